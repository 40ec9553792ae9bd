"""``python -m grader``: hands over to the command line."""

import sys

from grader.cli import main

sys.exit(main())
