"""Input validator: two whole numbers from 0 to 10**9 on one line; exit 42 when valid."""

import re
import sys

text = sys.stdin.read()
sys.exit(42 if re.fullmatch(r"\d{1,10} \d{1,10}\n", text) else 43)
