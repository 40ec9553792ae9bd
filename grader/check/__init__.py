"""Checkers: small pure functions that compare a program's output with the expected answer, in a
registry by name; and the arithmetic of cases with several right answers.
"""
