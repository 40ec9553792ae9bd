"""The portal's marks: which graded submission counts, deadlines, late rules, extensions and
adjustments, the instructors' policies, and the exports. Read from the one stored result of each
submission (``web/row_records``) by every page and export; imports neither the site nor the worker.
"""
