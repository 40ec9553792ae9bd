"""The import system under a task's rules: the program's own modules compiled through the guard.

Like ``rule_guard`` (which calls it once, when it is installed), this runs in the program's own
process, sent as source text, and imports only the standard library. ``guard_imports(folder,
rules, prepare, retrap)`` changes the import system's loaders, in this process only:

- a module file of the program (in the run ``folder``, or outside every folder the interpreter had
  on its path) is compiled through ``prepare(source, path, rules)``, never from a cached .pyc;
- its compiled modules (bytecode and extension files) are refused: the guard cannot look inside;
- a module made anew while the program runs (a built-in or extension module imported again, a
  module reloaded) goes through ``retrap(module)``, which puts the traps in place in it if it is
  one of their homes (``rule_traps``).

It returns ``library_file(source, filename)``: whether text handed to ``compile`` is one of the
interpreter's own files, compiled from source by the import system, which runs as it is.
"""

import builtins
import importlib
import importlib.util
import os
import sys


def guard_imports(folder, rules, prepare, retrap):
    """Change the import system (see the module's docstring); returns ``library_file``."""
    type, isinstance, any, open, tuple, str, bytes, ImportError = (
        builtins.type, builtins.isinstance, builtins.any, builtins.open, builtins.tuple, builtins.str,
        builtins.bytes, builtins.ImportError,
    )  # fmt: skip
    realpath, isabs, separator, decode_source = os.path.realpath, os.path.isabs, os.sep, importlib.util.decode_source
    # Where the interpreter's own modules are: what is imported from anywhere else is the program's.
    roots = {realpath(path) for path in sys.path if path}
    trusted = tuple(root for root in roots if not _inside(root, folder, separator))

    def untrusted(path):
        """Whether a module file at ``path`` is the program's: in the run folder, or outside every
        folder the interpreter had on its path when the guard started."""
        real = realpath(path)
        return _inside(real, folder, separator) or not any(_inside(real, root, separator) for root in trusted)

    def library_file(source, filename):
        if not (isinstance(filename, str) and isabs(filename) and isinstance(source, (str, bytes))):
            return False
        if untrusted(filename):
            return False
        try:
            with open(filename, "rb") as handle:
                data = handle.read()
        except OSError:
            return False
        return source == (data if isinstance(source, bytes) else decode_source(data))

    bootstrap, external = importlib._bootstrap, importlib._bootstrap_external  # the import system's loaders
    from_source = external.SourceLoader.get_code
    from_bytecode = external.SourcelessFileLoader.get_code
    from_extension = external.ExtensionFileLoader.create_module
    source_file_loader = external.SourceFileLoader

    def get_code(loader, fullname):
        path = loader.get_filename(fullname)
        if type(loader) is source_file_loader and not untrusted(path):
            return from_source(loader, fullname)
        return prepare(loader.get_data(path), path, rules)

    def refuse(path, name):
        if untrusted(path):
            raise ImportError(f"nim-grader: only .py files of the program can be imported: {path}", name=name)

    def get_bytecode(loader, fullname):
        refuse(loader.get_filename(fullname), fullname)
        return from_bytecode(loader, fullname)

    def create_module(loader, spec):
        refuse(loader.path, spec.name)
        return from_extension(loader, spec)

    external.SourceLoader.get_code = get_code
    external.SourcelessFileLoader.get_code = get_bytecode
    external.ExtensionFileLoader.create_module = create_module
    for owner in (bootstrap.BuiltinImporter, external.ExtensionFileLoader, external._LoaderBasics):
        _retrapped(owner, retrap)
    return library_file


def _retrapped(owner, retrap):
    """``owner.exec_module`` followed by ``retrap`` of the module it made, of the same kind (a
    function, a static or a class method: it differs between Python versions)."""
    raw = owner.__dict__["exec_module"]
    wrapper = type(raw) if isinstance(raw, (staticmethod, classmethod)) else None
    inner = raw.__func__ if wrapper else raw

    def exec_module(*args):
        inner(*args)
        retrap(args[-1])

    owner.exec_module = wrapper(exec_module) if wrapper else exec_module


def _inside(path, folder, separator):
    return bool(folder) and (path == folder or path.startswith(folder.rstrip(separator) + separator))
