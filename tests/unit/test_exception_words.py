"""An exception's message as the process that ran the program reports it: in the newest Python's
words on every Python (``child_program.newest_words``), and what the grader says of it. In: nothing;
out: asserts."""

from grader.grade.diagnose import Crash, crash_said
from grader.run.child import child_program


def test_an_exception_is_told_in_the_newest_pythons_words():
    import random

    told = []
    fails = (lambda: random.choice([]), lambda: max([]), lambda: min(()), lambda: random.randint(1, 0), lambda: [][0])
    for fail in fails:
        try:
            fail()
        except Exception as error:
            told.append(child_program.crash_record(error, "/nowhere")["crash"]["text"])
    assert told == [
        "Cannot choose from an empty sequence",
        "max() iterable argument is empty",
        "min() iterable argument is empty",
        "empty range in randrange(1, 1)",
        "list index out of range",
    ]


def test_an_index_error_on_a_line_that_chooses_is_not_called_an_empty_choice():
    """Only the exception raised inside random.choice is; an index past the end on that line is not."""
    import random

    rows = [1, 2, 3]
    try:
        random.choice(rows[9])
    except IndexError as error:
        text = child_program.crash_record(error, "/nowhere")["crash"]["text"]
    crash = Crash("IndexError", text, line=4, source="random.choice(rows[9])", file="task.py")
    said = crash_said(crash, run_name="task.py")
    assert "random.choice was given an empty list" not in said.whole, said.whole
    chose = crash_said(Crash("IndexError", "Cannot choose from an empty sequence", 4, "random.choice(rows)", "task.py"))
    assert "random.choice was given an empty list" in chose.whole, chose.whole
