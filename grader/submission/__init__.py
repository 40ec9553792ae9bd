"""Reading a submission before it runs: its files (regular files only, never through a link), whether
it compiles, the task's static rules, and the result when a file cannot be used.
"""
