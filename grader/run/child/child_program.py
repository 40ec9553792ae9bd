"""The student's file run as ``__main__``, and how it ended told to the grader on a channel of its own.

Like ``zygote_isolation``, this runs in the program's own process (the fork server's child, or the
bootstrap of a new interpreter), never imported by the grader: it imports only the standard library
(and ``rule_guard``, sent beside it, for a task with rules).

The grader never reads how a program crashed from its standard error, which the program controls:
the process that runs it writes a structured record to the report channel (file descriptor
``REPORT_FD``, a pipe the grader made for this run), one JSON object per line:

  {"crash": {"type": "IndexError", "builtin": true, "text": "...", "frames": [[file, line, function]...]}}
  {"rule": INDEX, "file": "bin_num.py", "line": 12}      a rule of the task broken while running

``frames`` are the frames in the student's files only (named as in the run folder), innermost last.
The stack asked for at the time limit (SIGUSR1) is written to the same channel by ``faulthandler``,
as its usual text, and then, as soon as the program's own code runs again, as a record with the
state of each of the student's frames (``state_record``)::

  {"state": [[file, line, function, STATE]...]}   innermost first; STATE "" when it cannot be told

STATE is a fingerprint of the frame's variables, made without running any of the program's code
(no ``__repr__``, ``__eq__`` or ``__hash__`` of its own classes): two looks that find a frame on
the same line with the same STATE saw a loop that made no progress in between. A program can write
to the channel too: only its own feedback is at stake (the verdict comes from its exit status, and
a hidden case shows nothing of a record).
"""

import builtins
import faulthandler
import json
import os
import signal
import sys
import types

REPORT_FD = 3
_MAX_FRAMES = 12
_MAX_TEXT = 600
# Written as it is when there is no memory left to build a record.
_OUT_OF_MEMORY = b'{"crash": {"type": "MemoryError", "builtin": true, "text": "", "frames": []}}\n'


def take_channel(fd):
    """Make ``fd`` (the grader's write end) the report channel, closed on exec for the program's own."""
    if fd != REPORT_FD:
        os.dup2(fd, REPORT_FD)
        os.close(fd)
    os.set_inheritable(REPORT_FD, False)


def watch_for_stack():
    """At the time limit the grader sends SIGUSR1: the program then writes where it is (its stack)
    to the report channel at once (``faulthandler``, even inside a long call of C code), and the
    state of its frames when its own code runs next (``state_record``, a Python handler
    faulthandler chains to). Set in the process that runs the program."""
    if hasattr(signal, "SIGUSR1"):
        try:
            signal.signal(signal.SIGUSR1, _report_state)
            chain = True
        except (ValueError, OSError):  # not the main thread: the stack alone, as before
            chain = False
        faulthandler.register(signal.SIGUSR1, file=REPORT_FD, all_threads=True, chain=chain)


# The folder of the running program (``execute``): the frames of files there are the student's.
_FOLDER = [""]
# Values that are the program's code or its tools, not its state: left out of a frame's state.
# Types are told apart by their ids: comparing a type of the program's own could run its code.
_CODE = {id(kind) for kind in (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, types.MethodType)}
_PLAIN = {id(kind) for kind in (int, float, bool, str, bytes, type(None))}
_CONTAINERS = {id(kind): kind.__name__ for kind in (list, tuple, set, frozenset, dict)}
_SETS = {id(set), id(frozenset)}
# A container larger than this is not told (its state is unknown): reading it would keep the program
# in its signal handler too long, and its length alone would call a loop that changes it in place stuck.
_MAX_ITEMS = 100_000


def _plain_key(value, depth=0, type=type, id=id, len=len, sorted=sorted, repr=repr, all=all, tuple=tuple):
    """A summary of ``value`` made without calling any of the program's code: a hashable value, or
    None when ``value`` is (or holds) an object of a class of the program's own or one not
    summed up here (its state cannot be told from outside). The built-ins it uses are bound when
    this module loads, before a task's rules put traps in their place (``rule_traps``)."""
    kind = id(type(value))
    if kind in _PLAIN:
        return value
    if kind in _CONTAINERS and depth < 3:
        if len(value) > _MAX_ITEMS:
            return None
        if kind in _SETS:  # in an order of their own (plain items only: repr runs no program code)
            if not all(id(type(item)) in _PLAIN for item in value):
                return None
            value = sorted(value, key=repr)
        items = value.items() if _CONTAINERS[kind] == "dict" else value
        keys = []
        for item in items:
            key = _plain_key(item, depth + 1)
            if key is None:
                return None
            keys.append(key)
        return (_CONTAINERS[kind], tuple(keys))
    return None


def state_of(names, sorted=sorted, type=type, id=id, hash=hash, tuple=tuple, issubclass=issubclass):
    """The fingerprint of a frame's variables ``names`` (a mapping of names to values): a short
    text, "" when some variable's state cannot be told (``_plain_key``). Classes, functions and
    modules are the program's code, not its state, and are left out."""
    keys = []
    for name in sorted(names):
        value = names[name]
        if id(type(value)) in _CODE or issubclass(type(value), type) or name.startswith("__"):
            continue
        key = _plain_key(value)
        if key is None:
            return ""
        keys.append((name, key))
    return "%016x" % (hash(tuple(keys)) & 0xFFFFFFFFFFFFFFFF)


def state_record(frame, folder, len=len):
    """The record of where the program is from ``frame`` outwards: its frames in the student's
    files (innermost first, at most ``_MAX_FRAMES``), each with the state of its variables."""
    found = []
    while frame is not None and len(found) < _MAX_FRAMES:
        name = _in_folder(frame.f_code.co_filename, folder)
        if name:
            found.append([name, frame.f_lineno or 0, frame.f_code.co_name, state_of(frame.f_locals)])
        frame = frame.f_back
    return {"state": found}


def _report_state(signum, frame):
    try:
        if not _FOLDER[0]:
            return
        if _PENDING[0] is not None:
            # the look before has not reached its loop's top: given up unreported, since its record and
            # this one, moments apart, would read as no progress between two looks
            _PENDING[0]()
        if frame is None or sys.gettrace() is not None:  # traced by the program itself: where it is now
            report(state_record(frame, _FOLDER[0]))
        else:
            _report_at_loop_top(frame, _FOLDER[0])
    except BaseException:  # (a frame's variables changed under us, no memory left...): the grader says less
        pass


_TOP_LINES = 1000  # the most lines a look waits for its loop's top before it reports anyway
# 3.9 tells a frame traced again its first line as the one it stored when last traced: untraced, where it is
_STORED_LINE = sys.version_info < (3, 10)
_PENDING = [None]  # gives up the look that waits for its loop's top (``_report_at_loop_top``), if any


def _report_at_loop_top(start, folder, settrace=sys.settrace):
    """Report where the program is (``state_record``) once the student's innermost frame (from
    ``start``, where the look landed, outwards) comes back to a line no later than its last, past its
    first: its loop's top (3.9 and 3.10 run a handler between any two instructions, every version in
    code a loop calls: two looks at an endless loop would find different lines); or after
    ``_TOP_LINES`` lines in those frames, or when the student's frame returns."""
    own = start
    while own is not None and not _in_folder(own.f_code.co_filename, folder):
        own = own.f_back
    if own is None:
        report(state_record(start, folder))
        return
    seen = [own.f_lineno or 0, 0, 0]  # the last line of ``own``, its lines, all lines
    frames = []

    def traced(frame, event, arg):
        try:
            if event != "line" and (event != "return" or frame is not own):
                return traced
            seen[2] += 1
            if event == "line" and frame is own:
                # (its first line may be the one the look found: 3.10 tells it again as tracing starts)
                if _STORED_LINE:  # (returning ``traced`` sets it again)
                    frame.f_trace = None
                line = frame.f_lineno or 0
                back, seen[0], seen[1] = seen[1] > 0 and line <= seen[0], line, seen[1] + 1
                if not back and seen[2] < _TOP_LINES:
                    return traced
            elif event == "line" and seen[2] < _TOP_LINES:
                return traced
            give_up()
            report(state_record(frame, folder))
        except BaseException:
            pass
        return None

    def give_up():
        _PENDING[0] = None
        for each in frames:
            each.f_trace = None
        settrace(None)

    frame = start
    while frame is not None:
        frame.f_trace = traced
        frames.append(frame)
        frame = None if frame is own else frame.f_back
    _PENDING[0] = give_up
    settrace(_untraced)


def _untraced(frame, event, arg):  # no new frame is traced while a look waits
    return None


def _write(data):
    try:
        while data:
            data = data[os.write(REPORT_FD, data) :]
    except OSError:
        pass  # the program closed or filled its channel: the grader says less, nothing breaks


def report(record):
    """Send one record to the grader."""
    try:
        data = json.dumps(record).encode("utf-8", "replace") + b"\n"
    except (TypeError, ValueError, MemoryError, RecursionError):
        return
    _write(data)


def _text(error):
    """What the exception says (its message), bounded; "" when it cannot be had."""
    try:
        text = error.msg if isinstance(error, SyntaxError) and isinstance(error.msg, str) else str(error)
    except BaseException:  # a student's __str__ may raise anything
        return ""
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + "..."


def _in_folder(path, folder):
    prefix = folder.rstrip("/") + "/"
    return path[len(prefix) :] if isinstance(path, str) and path.startswith(prefix) else ""


def newest_words(kind, text, code):
    """``text``, the message of an exception of class ``kind`` raised in ``code``, in the newest
    Python's words where older ones differ: a course's ``exception_text`` holds on every Python."""
    if kind is IndexError and code is not None and code.co_name == "choice":
        random = sys.modules.get("random")  # 3.9 and 3.10: "list index out of range"
        if code.co_filename == getattr(random, "__file__", None):
            return "Cannot choose from an empty sequence"
    if kind is ValueError and text in ("max() arg is an empty sequence", "min() arg is an empty sequence"):
        return text[:3] + "() iterable argument is empty"  # (before 3.12)
    old = "empty range for randrange() ("  # before 3.12: "(start, stop, width)"
    if kind is ValueError and text.startswith(old) and text.endswith(")") and text.count(",") == 2:
        start, stop, _ = text[len(old) : -1].split(",")
        return f"empty range in randrange({start.strip()}, {stop.strip()})"
    return text


def crash_record(error, folder):
    """The record of ``error`` ending the program that runs in ``folder``."""
    frames = []
    tb = error.__traceback__
    while tb is not None:
        name = _in_folder(tb.tb_frame.f_code.co_filename, folder)
        if name:
            frames.append([name, tb.tb_lineno if isinstance(tb.tb_lineno, int) else 0, tb.tb_frame.f_code.co_name])
            if len(frames) > 2 * _MAX_FRAMES:  # (a deep recursion: its innermost frames are what matter)
                del frames[:_MAX_FRAMES]
        tb = tb.tb_next
    if isinstance(error, SyntaxError):  # where the file that does not compile is wrong: not a frame
        name = _in_folder(error.filename, folder)
        if name and isinstance(error.lineno, int):
            frames.append([name, error.lineno, "<module>"])
    kind = type(error)
    builtin = getattr(builtins, kind.__name__, None) is kind
    innermost = error.__traceback__
    while innermost is not None and innermost.tb_next is not None:  # (where it was raised)
        innermost = innermost.tb_next
    return {
        "crash": {
            "type": kind.__name__[:100],
            "builtin": builtin,
            "text": newest_words(kind, _text(error), innermost.tb_frame.f_code if innermost else None),
            "frames": frames[-_MAX_FRAMES:],
        }
    }


def report_crash(error, folder):
    """Send the record of ``error`` (a fixed one when even that needs memory the program has not left)."""
    try:
        report(crash_record(error, folder))
    except MemoryError:
        _write(_OUT_OF_MEMORY)


def compiled(script, rules):
    """The student's file compiled here, in the child (the server never reads it), with the task's
    rules checked as it runs (``rule_guard``); or the exception reading or compiling it raised, to
    be raised again as the program's own."""
    try:
        with open(script, "rb") as handle:
            source = handle.read()
        if rules:
            import rule_guard

            return rule_guard.prepare(source, script, rules)
        return compile(source, script, "exec", dont_inherit=True)
    except Exception as error:  # any failure to compile is the program's: raised again as its own
        return error


def _show_exception():
    """Print the exception being handled as an uncaught one is: through ``sys.excepthook`` (Python's
    own hook is written in C: on 3.11 it prints a child's first traceback in a tenth of the time
    ``traceback.print_exc`` takes, which touches far more of the memory shared with us)."""
    try:
        sys.excepthook(*sys.exc_info())
    except BaseException:
        pass


# The exit status of a program that broke a rule of its task while it ran (with a record saying
# which, unless the program closed its channel first: the grader then says less, never nothing).
RULE_BROKEN = 121
# Python's own exec, taken before the rule guard replaces it (the program's code runs one frame down).
_EXEC = exec


def prepared(script, folder, rules=()):
    """``script`` compiled (``compiled``), with the task's ``rules`` made live in this process: the
    code to ``execute``, or the exception reading or compiling it raised."""
    code = compiled(script, rules)
    if rules and not isinstance(code, BaseException):
        import rule_guard

        rule_guard.install(rules, _rule_broken(folder + "/"), folder)
    return code


def _rule_broken(prefix, write=os.write, leave=os._exit, quote=json.encoder.encode_basestring_ascii, length=len):
    """What the rule guard calls when rule ``index`` is broken at ``line`` of ``file``: the record,
    then the end of the process. Everything it uses is bound here, when the guard is installed
    (before the program runs): a program that replaces this module's globals, ``os`` or ``json``
    changes nothing of it, and nothing it raises stops the exit."""

    def broken(index, file, line):
        try:
            name = file[length(prefix) :] if file.startswith(prefix) else ""
            record = b'{"rule": %d, "file": %s, "line": %d}\n' % (index, quote(name).encode("ascii"), line)
            while record:
                record = record[write(REPORT, record) :]
        except BaseException:
            pass  # the program closed or filled its channel: the grader says less, never nothing
        finally:
            leave(STATUS)

    REPORT, STATUS = REPORT_FD, RULE_BROKEN
    return broken


def run(script, folder, rules=()):
    """Run ``script`` (in ``folder``) as ``__main__`` as ``python script`` would; its exit status.
    An exception that ends it is printed to its standard error, as Python prints it, and reported
    to the grader as a record. With ``rules``, a rule broken while it runs ends it at once
    (``RULE_BROKEN``), after a record of which rule, in which file and line."""
    return execute(prepared(script, folder, rules), script, folder)


def execute(code, script, folder):
    """Run ``code`` (``prepared``'s) as ``__main__`` in a fresh module; its exit status (see ``run``)."""
    try:
        if isinstance(code, BaseException):
            raise code
        _FOLDER[0] = folder
        main = types.ModuleType("__main__")
        main.__file__ = script
        main.__builtins__ = builtins
        sys.modules["__main__"] = main
        _EXEC(code, main.__dict__)
        return 0
    except SystemExit as stop:
        if stop.code is None:
            return 0
        if isinstance(stop.code, int):
            return stop.code
        try:
            print(stop.code, file=sys.stderr)
        except BaseException:
            pass
        return 1
    except BaseException as error:  # the student's exception: shown as Python would show it, and reported
        report_crash(error, folder)
        _show_exception()
        return 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
