"""``python -m grader``: hands over to the command line."""

import sys

from grader.cli.main import main

sys.exit(main())
