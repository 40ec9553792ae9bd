"""The portal's grading: the queue in the database, the dispatchers that claim and grade its rows
(here or on a Dask cluster), the course they grade against, and ``serve``'s grading process. It
imports the marks' rules of when hidden cases run (``web/marks``), never the site.
"""
