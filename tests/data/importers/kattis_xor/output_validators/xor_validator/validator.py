"""Output validator: validator.py input answer feedback_dir < output; exit 42 accepts, 43 rejects."""

import sys

answer = open(sys.argv[2]).read().split()
output = sys.stdin.read().split()
ok = len(output) == 2 and output[0] == answer[0] and abs(float(output[1]) - float(answer[1])) <= 1e-6
sys.exit(42 if ok else 43)
