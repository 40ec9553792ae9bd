"""Grading a submission: each case run, then checked, then given a verdict and a sentence that says
what to fix; repeats of random answers, quick feedback for loops, the shrinking of failures.
"""
