"""What runs in the program's own process (and the fork server it is forked from).

Every module here imports only the standard library and its siblings: they are sent as source text
(``run/execute.py``'s ``CHILD_MODULES``), never imported by the grader in the program's process.
The grader imports one constant of ``child_program`` (the record names), nothing else.
"""
