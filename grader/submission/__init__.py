"""Reading a submission before it runs: its files (regular files only, never through a link), whether
it compiles and keeps the task's rules (checked by ``grader/rules/``), and the result when a file
cannot be used.
"""
