"""nim-grader: grades the Nim lab's exercise files against YAML test cases.

The flow is load → execute → check → grade → report; each stage is one module (see README).
"""

__version__ = "0.1.0"
