"""A task's rules (``bin()`` not allowed, no ``^`` operator...): what each forbids, defined once, and
the syntax check built on it.

``rule_data`` says what each kind of rule forbids (the operators' spellings and functions, format
codes). ``static_check`` (with ``scopes``, which tells the file's own names from the built-ins)
reads the handed-in file's syntax tree before it runs and names the line. The check in the
program's own process while it runs is ``run/rule_guard.py``'s.
"""
