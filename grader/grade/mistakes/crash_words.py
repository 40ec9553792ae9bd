"""Words for crashes whose message alone names the habit behind them: names and methods of Python 2,
of other languages and of other courses, which Python 3 does not have. Pure data and lookups.

In: the exception's message (its name is checked by the caller). Out: the sentence for that habit,
or "" when the message is not one of them. Each sentence holds for any code that gets that message
(``name 'xrange' is not defined`` is always Python 2's ``xrange``); advice that depends on the
student's code is ``crash_causes``'.
"""

from __future__ import annotations

import re
import sys
from typing import Dict, Tuple

# Built-in names of Python 2 that Python 3 does not have, and what to write instead.
PYTHON2_NAMES: Dict[str, str] = {
    "reduce": "reduce is no longer a built-in function in Python 3: it moved to the functools module. "
    "Write from functools import reduce at the top of the file, or a for loop over the list.",
    "raw_input": "raw_input is Python 2's: in Python 3 it is called input().",
    "xrange": "xrange is Python 2's: in Python 3 range(...) does the same.",
    "unicode": "unicode is Python 2's: in Python 3 all text is str.",
    "basestring": "basestring is Python 2's: in Python 3 all text is str (isinstance(x, str)).",
    "long": "long is Python 2's: in Python 3 int holds whole numbers of any size.",
    "unichr": "unichr is Python 2's: in Python 3 it is called chr().",
    "cmp": "cmp() is Python 2's and is gone in Python 3: compare with <, == and >, and sort with key=.",
    "execfile": "execfile is Python 2's: in Python 3 there is none (and an exercise file must work on its own).",
    "file": "file() is Python 2's: in Python 3 open a file with open().",
    "reload": "reload is no longer a built-in function in Python 3: it is importlib.reload.",
    "apply": "apply is Python 2's: in Python 3 call the function directly, f(*args).",
    "intern": "intern is Python 2's: in Python 3 it is sys.intern.",
    "buffer": "buffer is Python 2's: in Python 3 use memoryview or bytes.",
}

# Names of other languages for Python's True, False and None.
OTHER_LANGUAGE_NAMES: Dict[str, str] = {
    "true": "Python writes True with a capital T.",
    "false": "Python writes False with a capital F.",
    "none": "Python writes None with a capital N.",
    "null": "Python's value for nothing is None (null is JSON's and JavaScript's).",
    "nil": "Python's value for nothing is None (nil is another language's).",
    "TRUE": "Python writes True with only a capital T.",
    "FALSE": "Python writes False with only a capital F.",
}

# (type or module, attribute) → what Python 3 has instead. "" as the type: any type.
_ATTRIBUTES: Dict[Tuple[str, str], str] = {
    ("dict", "has_key"): "has_key is Python 2's: in Python 3 write key in d.",
    ("dict", "iteritems"): "iteritems is Python 2's: in Python 3 write d.items().",
    ("dict", "iterkeys"): "iterkeys is Python 2's: in Python 3 write d.keys(), or loop over d itself.",
    ("dict", "itervalues"): "itervalues is Python 2's: in Python 3 write d.values().",
    ("str", "decode"): "In Python 3 text is already str: there is nothing to decode.",
    ("sys", "maxint"): "sys.maxint is Python 2's: Python 3's int has no largest value (sys.maxsize is the nearest).",
    ("string", "letters"): "string.letters is Python 2's: in Python 3 it is string.ascii_letters.",
    ("string", "lowercase"): "string.lowercase is Python 2's: in Python 3 it is string.ascii_lowercase.",
    ("string", "uppercase"): "string.uppercase is Python 2's: in Python 3 it is string.ascii_uppercase.",
    ("string", "atoi"): "string.atoi is Python 2's: in Python 3 write int(text).",
    ("string", "maketrans"): "string.maketrans is Python 2's: in Python 3 it is str.maketrans.",
    ("", "next"): "x.next() is Python 2's: in Python 3 write next(x).",
    ("list", "push"): "Python's lists have no push (that is JavaScript's): add to the end with append.",
    ("list", "add"): "Python's lists have no add (that is Java's and sets'): add to the end with append.",
    ("list", "length"): "Python's lists have no length attribute: the length of a list is len(x).",
    ("list", "size"): "Python's lists have no size: the length of a list is len(x).",
    ("str", "length"): "Python's text has no length attribute: the length of a text is len(x).",
    ("str", "contains"): "Python's text has no contains: write part in text.",
}
# Python 2's string module functions that are methods of str in Python 3.
_STRING_FUNCTIONS = frozenset(
    "join split replace upper lower strip lstrip rstrip find rfind index count zfill center ljust rjust".split()
)

_NO_ATTRIBUTE = re.compile(r"^(?:'(?P<type>\w+)' object|module '(?P<module>\w+)') has no attribute '(?P<name>\w+)'")
_NOT_SUBSCRIPTABLE = re.compile(
    r"^'(?P<type>map|filter|zip|dict_keys|dict_values|dict_items)' object is not subscriptable"
)
_NO_LEN = re.compile(r"^object of type '(?P<type>map|filter|zip)' has no len\(\)")
_ITERATORS = {"map": "map(...)", "filter": "filter(...)", "zip": "zip(...)"}
_VIEWS = {"dict_keys": "keys()", "dict_values": "values()", "dict_items": "items()"}


def name_words(name: str) -> str:
    """What to write instead of ``name``, a name Python 3 does not know but Python 2 or another
    language does; "" for any other name."""
    return PYTHON2_NAMES.get(name) or OTHER_LANGUAGE_NAMES.get(name, "")


def standard_module(name: str) -> bool:
    """Whether ``name`` is a module of Python's standard library (math, random, sys...)."""
    names = getattr(sys, "stdlib_module_names", None)  # Python 3.10 and up
    if names is None:
        return name in {"math", "random", "sys", "json", "os", "re", "time", "string", "functools", "itertools"}
    return name in names and not name.startswith("_")


def attribute_words(text: str) -> str:
    """What to write instead, for an AttributeError's message about an attribute of Python 2 or of
    another language; "" for any other."""
    found = _NO_ATTRIBUTE.match(text)
    if not found:
        return ""
    owner, name = found.group("type") or found.group("module"), found.group("name")
    if found.group("module") == "string" and name == "join":
        return (
            'string.join(words, sep) is Python 2\'s: in Python 3 write sep.join(words), for example "\\n".join(lines).'
        )
    if found.group("module") == "string" and name in _STRING_FUNCTIONS:
        return (
            f"string.{name}(text, ...) is Python 2's: in Python 3 it is a method of the text itself: text.{name}(...)."
        )
    return _ATTRIBUTES.get((owner, name)) or (_ATTRIBUTES.get(("", name), "") if found.group("type") else "")


def type_error_words(text: str, source: str) -> str:
    """What the message of a TypeError (with the student's line ``source``) says by itself: a habit
    of Python 2 (an index into map(...), sorting with cmp=, print >>), text added to a number, a
    value that is None; "" when the message alone tells no more than itself."""
    found = _NOT_SUBSCRIPTABLE.match(text) or _NO_LEN.match(text)
    if found and found.group("type") in _ITERATORS:
        made = _ITERATORS[found.group("type")]
        return (
            f"In Python 3 {made} gives its items one at a time, not a list (in Python 2 it was a list): "
            f"write list({made}) to index it or take its len."
        )
    if found:
        return (
            f"In Python 3 d.{_VIEWS[found.group('type')]} is a view, not a list (in Python 2 it was a list): "
            f"write list(d.{_VIEWS[found.group('type')]}) to index it."
        )
    if "'cmp' is an invalid keyword argument" in text:
        return "cmp= is Python 2's: in Python 3 sort with key= (a function giving each item's sort key)."
    if text.startswith("unsupported operand type(s) for >>: 'builtin_function_or_method'") and "print" in source:
        return "print >> f is Python 2's: in Python 3 write print(..., file=f)."
    if "NoneType" in text:
        return (
            "A value on this line is None (nothing): a function that ends without return gives None, and so "
            "do list methods such as sort() and append(), which change the list and give nothing back."
        )
    if re.match(r"^can only concatenate str \(not \"(int|float)\"\) to str", text) or re.match(
        r"^unsupported operand type\(s\) for [-+*/%]+: '(int|float)' and 'str'|^unsupported operand type\(s\) for "
        r"[-+/%]+: 'str' and '(int|float)'",
        text,
    ):
        return "A number and a text cannot be added or combined: convert first, with str(n) or int(text)."
    return ""
