"""A task's rules (``bin()`` not allowed, no ``^`` operator...): what each forbids, defined once, and
the two checks built on it.

``rule_data`` says what each kind of rule forbids (the operators' spellings and functions, format
codes, where a forbidden object is looked up). ``static_check`` (with ``scopes``, which tells the
file's own names from the built-ins) reads the handed-in file's syntax tree before it runs and
names the line. The program's own process checks what it does while it runs: ``rule_tree``
rewrites its syntax tree, ``rule_checks`` resolves the rules to the objects they forbid,
``rule_traps`` puts traps in place of those objects, ``rule_guard`` ties them together. Those five
(``rule_data`` and the four ``rule_*`` of the child) import only the standard library: they are
sent to the program's process as source text (``run/execute.py``'s ``CHILD_MODULES``), where they
import each other by bare name.

Rules are pedagogy, not a security boundary: docs/security.md ("The rules and the limits") says
which routes the checks cover and which stay outside.
"""
