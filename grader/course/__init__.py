"""Loading a course: its folders and task ids, test case YAML validated into ``Task`` values (with file
and line in every error), generated cases and their answers from the reference solutions.
"""
