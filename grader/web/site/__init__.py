"""The portal's site: its pages, forms and JSON API, sign-in and accounts, and handing in. It reads
the marks (``web/marks``) and puts hand-ins on the queue (``web/worker``); neither of them imports it.
"""
