"""What explains a failure: every explanation a student may read beside the facts, and the one rule
that decides which speaks.

The rule. Each candidate explanation names the evidence it needs; of a failed case, the first in
this order whose evidence is there speaks, and no other:

1. The grader's cause, read from the student's code or from the file's failures together: a crash's
   cause (``crash_causes``, ``crash_words``: the line and the names in it), a function that gives
   back None (``returns``), a fault of a companion file (``companion_cause``), a move off by one row
   that explains most of the file's failing cases (``evidence.settle``), a time-out told to be a loop
   that never ends or slow work (``time_outs``: the looks at the program and its loops). A course
   hint that names the kind of time-out found is the course's words for that cause, said with it.
2. The course's hint (``hints``): the first whose conditions hold, in the order the instructor wrote
   them (known mistakes first, the plain ``hint`` last); one tied to no evidence of the run itself
   stays silent where a case before failed the same way (``evidence.failed_before``).
3. What the crash's exception usually means (``grade/diagnose.py``'s advice: the empty board, a
   row index, random.choice on an empty list).
4. Nothing: the facts (the input, expected, got; the exception and its line) stand alone.

A file's known mistake (``known_mistakes``: its visible failures are a known-wrong solution's) is
said once, at the top of its report, and its hint is a course hint of rank 2 on the cases it names.
"""
