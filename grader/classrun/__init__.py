"""Grading a whole class: its student folders, units of work on any executor, the results cache,
progress, and the files a class run writes (gradebook, cases, JUnit, overview).
"""
