"""nim-grader: grades the Nim lab's exercise files against YAML test cases.

The flow is load (``course``) → run (``submission``, ``run``) → check (``check``) → grade (``grade``)
→ report (``report``), with the class run, the authoring tools and the command line on top; see
docs/architecture.md.
"""

__version__ = "0.1.0"
