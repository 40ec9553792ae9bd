"""Tools for the course team: ``verify`` (the course's cases against reference and known-wrong
solutions), ``add-case``, and importers from other graders' formats.
"""
