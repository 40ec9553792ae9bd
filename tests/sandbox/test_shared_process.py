"""The terms on which a submission's cases share one process (docs/security.md, "The shared process"),
each shown by a program: a fresh ``__main__``, the student's own modules afresh, its own input,
output and seed, anything abnormal ending the shared process, hidden cases last, repeats and
interactive cases never shared, and a case not accepted there run again alone, whose result counts.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from grader.model import Limits
from grader.run.execute import Program
from grader.run.forkserver import ForkServerRunner

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the shared process is the fork server's")
QUICK = Limits(time_s=3)


@pytest.fixture(scope="module")
def runner():
    with ForkServerRunner() as made:
        yield made


def program(folder: Path, text: str, **others: str) -> Program:
    for name, body in others.items():
        (folder / f"{name}.py").write_text(body, encoding="utf-8")
    path = folder / "main.py"
    path.write_text(text, encoding="utf-8")
    companions = tuple(folder / f"{name}.py" for name in others)
    return Program(sys.executable, path, "main.py", companions=companions, own_modules=tuple(others))


def together(runner, prog, inputs, limits=QUICK):
    return runner.run_together(prog, [(text.encode(), limits, f"seed-{i}") for i, text in enumerate(inputs)])


def outputs(results):
    return [None if r is None else r.stdout.decode() for r in results]


def test_each_case_gets_its_own_input_output_and_a_fresh_main(runner, tmp_path):
    prog = program(tmp_path, "import sys\nseen = globals().get('seen', 0) + 1\nprint(input() * 2, seen)\n")
    assert outputs(together(runner, prog, ["a", "b", "c"])) == ["aa 1\n", "bb 1\n", "cc 1\n"]


def test_the_students_own_modules_are_imported_afresh_for_each_case(runner, tmp_path):
    prog = program(tmp_path, "import helper\nhelper.calls.append(1)\nprint(len(helper.calls))\n", helper="calls = []\n")
    assert outputs(together(runner, prog, ["", "", ""])) == ["1\n", "1\n", "1\n"]


def test_each_case_has_its_own_seed_the_same_as_alone(runner, tmp_path):
    draws = "random.random(), random.SystemRandom().random(), os.urandom(4), open('/dev/urandom', 'rb').read(4)"
    prog = program(tmp_path, f"import os, random\nprint({draws})\n")
    with runner.shared(prog, QUICK) as session:
        shared = [session.run(b"", QUICK, f"seed-{i}").stdout.decode() for i in range(3)]
    alone = [runner.run(replace(prog, seed=f"seed-{i}"), b"", QUICK).stdout.decode() for i in range(3)]
    assert shared == alone and len(set(shared)) == 3


def test_many_cases_in_one_process_do_not_pile_up(runner, tmp_path):
    prog = program(tmp_path, "import random\nprint(random.randrange(10))\n")
    with runner.shared(prog, QUICK) as session:
        ran = [session.run(b"", QUICK, f"seed-{i}") for i in range(1200)]
    assert all(r is not None and r.exit_code == 0 for r in ran)


@pytest.mark.parametrize(
    "leaves",
    [
        "open('left.txt', 'w').write('x')",  # a file in its folder
        "open('/tmp/left.txt', 'w').write('x')",  # a file in its temporary folder
        "import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])",
    ],
)
def test_a_case_that_leaves_something_behind_ends_the_shared_process(runner, tmp_path, leaves):
    prog = program(tmp_path, f"import sys\n{leaves}\nsys.stdout.write('done\\n')\n")
    results = together(runner, prog, ["", "", ""])
    assert results[0] is not None and results[0].stdout == b"done\n"  # its own result stands
    assert results[1:] == [None, None]  # the rest run alone


@pytest.mark.parametrize(
    "changes, probe",
    [
        ("import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()",
         "threading.active_count()"),
        ("import signal\nsignal.signal(signal.SIGTERM, lambda *a: None)", "signal.getsignal(signal.SIGTERM)"),
        ("import os\nos.chdir('/')", "os.getcwd() == '/'"),
        ("import builtins\nbuiltins.print = lambda *a, **k: None", "builtins.print.__name__"),
        ("import sys\nsys.setrecursionlimit(50000)", "sys.getrecursionlimit()"),
        ("import os\nos.environ['LEFT'] = '1'", "os.environ.get('LEFT')"),
    ],
)  # fmt: skip
def test_what_a_case_changes_in_its_own_process_goes_with_it(runner, tmp_path, changes, probe):
    """Each case runs in a process of its own (a fork of the shared one): the next finds it as it was."""
    prog = program(
        tmp_path, f"import builtins, os, signal, sys, threading\nsys.stdout.write(repr({probe}) + '\\n')\n{changes}\n"
    )
    results = together(runner, prog, ["", "", ""])
    assert len({r.stdout for r in results}) == 1 and None not in results


@pytest.mark.parametrize(
    "ends",
    [
        "import os\nos._exit(0)",
        "raise SystemExit(3)",
        "raise ValueError('no')",
        "while True: pass",
        "print('x' * 10**7)",
    ],
)
def test_a_case_that_ends_badly_leaves_it_and_the_rest_to_runs_alone(runner, tmp_path, ends):
    prog = program(
        tmp_path, f"import sys\nif input() == 'bad':\n    {ends.replace(chr(10), chr(10) + '    ')}\nprint('ok')\n"
    )
    limits = replace(QUICK, time_s=1, output_bytes=1000)
    results = together(runner, prog, ["fine", "bad", "fine"], limits)
    assert outputs(results[:1]) == ["ok\n"]
    if ends.startswith("import os"):  # the case's own process ended as alone, leaving nothing
        assert outputs(results[1:]) == ["", "ok\n"] and results[1].exit_code == 0
        return
    if ends.startswith(("raise SystemExit", "raise ValueError")):
        assert results[1] is not None and results[1].exit_code != 0  # its own result, then the end
    else:
        assert results[1] is None
    assert results[2] is None


def test_visible_cases_run_first_and_hidden_ones_last_repeats_and_games_included():
    from support import PROJECT

    from grader.course.course_checkers import course_checkers
    from grader.course.loader import load_course
    from grader.grade.grading import GradingContext
    from grader.grade.shared_cases import sharing

    course = load_course(PROJECT)
    context = GradingContext(checkers=course_checkers(PROJECT), python=sys.executable)
    for task in course.values():
        hidden = [case.hidden for case in sharing(task.cases, context)]
        assert hidden == sorted(hidden), task.id
    nim_sum = [case.hidden for case in sharing(course["nim_sum"].cases, context)]
    assert any(nim_sum) and not all(nim_sum)
    assert any(case.repeat > 1 for case in sharing(course["optimal_move"].cases, context))
    assert sharing(course["working_game"].cases, context)  # each game in a process of its own, shared


def test_a_case_that_fails_only_in_the_shared_process_is_run_alone_and_that_counts(tmp_path):
    """A program can tell it runs in a shared process (it may make no message queue there): one
    that answers wrongly only there is graded as alone."""
    from support import PROJECT

    from grader.course.course_checkers import course_checkers
    from grader.grade.grading import GradingContext, grade_file
    from grader.model import Case, Task

    (tmp_path / "echo.py").write_text(
        "import resource\nprint(input() if resource.getrlimit(resource.RLIMIT_MSGQUEUE)[0] else 'wrong')\n"
    )
    cases = tuple(
        Case(name=f"echo {i}", input=f"{i}\n", expected=(f"{i}\n",), checker="text", checker_options={}, limits=QUICK)
        for i in range(4)
    )
    task = Task(id="echo", title="echo", cases=cases)
    with ForkServerRunner() as runner:
        context = GradingContext(checkers=course_checkers(PROJECT), python=sys.executable, runner=runner, jobs=1)
        shared = grade_file(task, tmp_path / "echo.py", context)
        assert (
            runner.run_together(
                Program(sys.executable, tmp_path / "echo.py", "echo.py"), [(b"0\n", QUICK, "a"), (b"1\n", QUICK, "b")]
            )[1].stdout
            == b"wrong\n"
        )  # in the shared process its cases answer wrongly
        alone = grade_file(task, tmp_path / "echo.py", replace(context, share_process=False))
    assert [c.verdict for c in shared.cases] == [c.verdict for c in alone.cases]
    assert shared.score == shared.max_score == alone.score


@pytest.mark.parametrize(
    "task_id, wrong",
    [("optimal_move", "p_position_picks_empty_rows.py"), ("working_game", "turn_passes_after_illegal_move.py")],
)
def test_repeats_and_games_get_the_same_verdicts_shared_as_alone(task_id, wrong):
    """Every verdict of a reference solution and of a known-wrong one is the same with the shared
    process as with one process per run (the pytest plugin checks every known-wrong file is caught; this is
    the randomised and the played cases, run both ways here)."""
    from support import PROJECT

    from grader.course.course_checkers import course_checkers
    from grader.course.loader import load_course
    from grader.course.reference import with_answers
    from grader.grade.grading import GradingContext, grade_file

    with ForkServerRunner() as runner:
        context = GradingContext(checkers=course_checkers(PROJECT), python=sys.executable, runner=runner, jobs=2)
        task = with_answers(load_course(PROJECT)[task_id], context)
        for path in (PROJECT / "solutions" / f"{task_id}.py", PROJECT / "solutions" / "wrong" / task_id / wrong):
            verdicts = {
                share: [c.verdict for c in grade_file(task, path, replace(context, share_process=share)).cases]
                for share in (True, False)
            }
            assert verdicts[True] == verdicts[False], path.name


def test_repeats_made_several_at_once_are_not_shared():
    """Several runs of a repeated case at once are decided as they come; one after another they
    could stop at another run, so they run alone as before."""
    from support import PROJECT

    from grader.course.course_checkers import course_checkers
    from grader.course.loader import load_course
    from grader.grade.grading import GradingContext
    from grader.grade.shared_cases import sharing

    context = GradingContext(checkers=course_checkers(PROJECT), python=sys.executable, repeat_jobs=2)
    assert not any(case.repeat > 1 for case in sharing(load_course(PROJECT)["optimal_move"].cases, context))


FORGES = """
import json, os, socket, stat, sys
for name in os.listdir("/proc/self/fd"):
    try:
        fd = int(name)
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            sock = socket.socket(fileno=os.dup(fd))
            sock.send(json.dumps({"status": 0, "clean": True}).encode())
            print("found the socket")
    except (OSError, ValueError):
        pass
print(input())
"""


def test_a_program_that_answers_for_the_grader_finds_nothing_to_answer_on(runner, tmp_path):
    """A case's process never holds the shared process's control socket."""
    prog = program(tmp_path, FORGES)
    with runner.shared(prog, QUICK) as session:
        ran = [session.run(f"{i}\n".encode(), QUICK, f"seed-{i}") for i in range(3)]
    assert [r.stdout for r in ran] == [b"0\n", b"1\n", b"2\n"]  # nothing to find, nothing misread


def test_system_v_shared_memory_left_behind_ends_the_shared_process(runner, tmp_path):
    made = "import ctypes\nprint(ctypes.CDLL(None).shmget(0, 4096, 0o1600) >= 0)\n"  # IPC_PRIVATE, IPC_CREAT
    prog = program(tmp_path, made)
    with runner.shared(prog, QUICK) as session:
        first = session.run(b"", QUICK, "seed-0")
        assert first is not None
        if first.stdout != b"True\n":
            pytest.skip("this machine's sandbox refuses System V shared memory altogether")
        assert not session.alive
