"""The submission portal (``python -m grader serve``): students hand in on a website, the grader
grades what they hand in in its sandbox, instructors watch the class. A Django app, installed with
the ``web`` extra (Python 3.10+); the rest of the grader never imports it.
"""
