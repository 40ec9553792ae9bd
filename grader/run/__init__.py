"""Running one program on one input under limits, in the sandbox this machine allows: facts about the
run (exit, output, time), never a verdict. The fork server and what each run gets in its child.
"""
