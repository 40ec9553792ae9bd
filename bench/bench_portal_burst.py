"""A lab burst on the portal, through its HTTP API: STUDENTS hand in one file each within WINDOW
seconds, a realistic mix (reference solutions, known-wrong ones, a few looping files), on SQLite
and on PostgreSQL.

    python bench/bench_portal_burst.py [--students 300] [--window 60] [--loops 5] [--db both]
        [--hidden at_once|after_deadline]

One ``serve`` process (the embedded default: the site and ``--workers`` graders) on this machine.
The client is this script: a thread per hand-in, each waiting for its moment (seeded, uniform over
the window), then ``POST /api/submissions`` with its own token. Not Locust: a burst is one upload
per student at a set moment and then nothing; what is measured is the time from the upload to the
result, which the portal itself records (``graded_at``), so the client needs no load generator
and polls nothing (it reads the database to know when everything is done).

Printed for each database: how many were handed in, graded, lost or graded twice; the latency from
upload to result of the correct submissions (p50, p95, max) and of all; the throughput; and, as
the baseline run in the same process, the latency of one correct submission of each task handed
in alone before the burst, with p95 as a ratio of it. Target: every submission graded, none lost,
p95 at most 5 s for correct ones while the looping ones are in the queue.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import datetime
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(PROJECT), str(PROJECT / "tests")]

from grader.authoring.known_wrong import read_wrong_solution  # noqa: E402
from grader.cli.portal_client import multipart  # noqa: E402
from grader.model import Verdict  # noqa: E402
from grader.web.server import default_workers  # noqa: E402

TASKS = ("exclusive_or", "bin_num", "bitwise_xor", "nim_sum", "make_move", "optimal_move", "ui", "present_board")
LOOPING = "while True:\n    pass\n"


def grader(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "grader", *args], cwd=PROJECT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"python -m grader {' '.join(args[:2])} failed: {done.stderr.strip()}")
    return done.stdout


def wrong_files(task: str) -> list:
    """The task's known-wrong solutions that give a wrong answer or crash (loops are counted apart)."""
    found = []
    for path in sorted((PROJECT / "solutions" / "wrong" / task).glob("*.py")):
        wrong = read_wrong_solution(task, path)
        if wrong.verdict in (Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR) and not wrong.xfail:
            found.append(path.read_text(encoding="utf-8"))
    return found


def the_mix(students: int, loops: int, window: float, seed: int = 7) -> list:
    """(moment, username, task, kind, text) per student: about 80 % reference, 20 % known-wrong,
    ``loops`` looping, each task in turn; the moments uniform over the window."""
    chance = random.Random(seed)
    wrong = {task: wrong_files(task) for task in TASKS}
    looping = set(chance.sample(range(students), loops))
    mix = []
    for number in range(students):
        task = TASKS[number % len(TASKS)]
        if number in looping:
            kind, text = "looping", LOOPING
        elif chance.random() < 0.2 and wrong[task]:
            kind, text = "wrong", chance.choice(wrong[task])
        else:
            kind, text = "correct", (PROJECT / "solutions" / f"{task}.py").read_text(encoding="utf-8")
        mix.append((chance.uniform(0, window), f"s{number:03d}", task, kind, text + f"\n# {number}\n"))
    return mix


def hand_in(url: str, token: str, task: str, text: str) -> int:
    content_type, body = multipart({"task": task}, [("file", f"{task}.py", text.encode())])
    headers = {"Authorization": f"Token {token}", "Content-Type": content_type}
    request = urllib.request.Request(f"{url}/api/submissions", data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())["id"]


class Rows:
    """The submissions as the database holds them: id -> (status, verdict, attempt, graded_at)."""

    def __init__(self, data: Path, db_url: str) -> None:
        self.data, self.db_url = data, db_url

    def read(self) -> dict:
        query = "SELECT id, status, verdict, attempt, graded_at FROM portal_submission"
        if self.db_url:
            import psycopg

            with psycopg.connect(self.db_url) as database:
                found = database.execute(query).fetchall()
            return {r[0]: (r[1], r[2], r[3], r[4].timestamp() if r[4] else None) for r in found}
        with sqlite3.connect(self.data / "portal.sqlite3", timeout=30) as database:
            found = database.execute(query).fetchall()
        return {r[0]: (r[1], r[2], r[3], _seconds(r[4])) for r in found}


def _run_sql(data: Path, db_url: str, query: str) -> None:
    if db_url:
        import psycopg

        with psycopg.connect(db_url, autocommit=True) as database:
            database.execute(query)
        return
    with sqlite3.connect(data / "portal.sqlite3", timeout=30) as database:
        database.execute(query)


def passwords_chosen(data: Path, db_url: str) -> None:
    """Every account past its one-time password, as if each student had chosen their own (no API
    token works before)."""
    _run_sql(data, db_url, "DELETE FROM portal_firstsignin")


def hidden_cases_run(data: Path, db_url: str, when: str) -> None:
    """When hidden cases run, as the instructor chooses on /teach/: ``at_once`` (every case of
    every hand-in, the work a burst cost before hidden cases could wait) or ``after_deadline``
    (a new course's default: a burst before the deadline runs the public cases only)."""
    _run_sql(
        data,
        db_url,
        "INSERT INTO portal_coursesetting (id, marks_from, max_waiting, max_stored_mib, hidden_results) "
        f"VALUES (1, 'latest', 10, 16, '{when}')",
    )


def _seconds(text):
    return datetime.fromisoformat(text).timestamp() if text else None


def wait_graded(rows: Rows, ids, limit_s: float) -> dict:
    deadline = time.time() + limit_s
    while True:
        found = rows.read()
        if all(found.get(i, ("queued",))[0] in ("done", "error") for i in ids) or time.time() > deadline:
            return found
        time.sleep(0.5)


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))] if ordered else float("nan")


def burst(db_name: str, db_url: str, args) -> None:
    folder = Path(tempfile.mkdtemp(prefix="nim-burst-"))
    data, options = folder / "data", (["--db", db_url] if db_url else [])
    names = [f"s{n:03d}" for n in range(args.students)] + ["baseline"]
    (folder / "roster.csv").write_text("username,role\n" + "".join(f"{n},student\n" for n in names))
    grader("users", "import", str(folder / "roster.csv"), "--data", str(data), *options)
    passwords_chosen(data, db_url)
    hidden_cases_run(data, db_url, args.hidden)
    tokens = dict(line.split() for line in grader("users", "token", *names, "--data", str(data), *options).splitlines())
    command = [*args.prefix.split(), sys.executable, "-m", "grader", "serve", "--data", str(data), *options]
    command += ["--port", "0", *(["--workers", str(args.workers)] if args.workers else [])]
    server = subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.PIPE, text=True)
    url = re.search(r"http://127\.0\.0\.1:\d+", server.stdout.readline()).group(0)
    rows = Rows(data, db_url)
    try:
        alone = []
        for task in TASKS:  # the baseline: one correct file at a time, nothing else in the queue
            start = time.time()
            number = hand_in(url, tokens["baseline"], task, (PROJECT / "solutions" / f"{task}.py").read_text())
            graded_at = wait_graded(rows, [number], 600)[number][3]
            if graded_at is None:
                raise SystemExit(
                    f"{db_name}: the baseline {task} was not graded within 600 s: the machine is overloaded"
                )
            alone.append(graded_at - start)
        mix = the_mix(args.students, args.loops, args.window)
        sent, lock, begin = {}, threading.Lock(), time.time() + 1

        def one(moment, username, task, kind, text):
            time.sleep(max(0.0, begin + moment - time.time()))
            start = time.time()
            number = hand_in(url, tokens[username], task, text)
            with lock:
                sent[number] = (start, kind, task)

        threads = [threading.Thread(target=one, args=entry) for entry in mix]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        found = wait_graded(rows, list(sent), 600)
    finally:
        server.terminate()
        server.wait(60)
    graded = {n: found[n] for n in sent if n in found and found[n][0] == "done"}
    latency = {n: graded[n][3] - sent[n][0] for n in graded}
    correct = [latency[n] for n in graded if sent[n][1] == "correct"]
    wrongly = [n for n in graded if sent[n][1] == "correct" and graded[n][1] != "accepted"]
    last = max(graded[n][3] for n in graded)
    base = statistics.median(alone)
    p95 = percentile(correct, 0.95)
    workers = args.workers or f"{default_workers()} (serve's default)"
    print(f"== {db_name}: {len(mix)} students within {args.window:g} s, --workers {workers} ==")
    print(f"handed in {len(sent)}, graded {len(graded)}, lost {len(mix) - len(graded)}, "
          f"graded more than once {sum(1 for n in graded if graded[n][2] != 1)}, "
          f"correct ones not accepted {len(wrongly)}")  # fmt: skip
    print(f"mix: {sum(1 for e in mix if e[3] == 'correct')} correct, {sum(1 for e in mix if e[3] == 'wrong')} "
          f"known-wrong, {sum(1 for e in mix if e[3] == 'looping')} looping")  # fmt: skip
    print(f"baseline (one correct file alone, each task): median {base:.2f} s, max {max(alone):.2f} s")
    print(f"correct: p50 {percentile(correct, 0.5):.2f} s, p95 {p95:.2f} s ({p95 / base:.1f}x the baseline), "
          f"max {max(correct):.2f} s; target p95 <= 5 s: {'MET' if p95 <= 5 else 'NOT MET'}")  # fmt: skip
    every = list(latency.values())
    print(f"all: p50 {percentile(every, 0.5):.2f} s, p95 {percentile(every, 0.95):.2f} s, max {max(every):.2f} s")
    print(f"throughput: {len(graded) / (last - begin):.2f} submissions/s over {last - begin:.1f} s "
          f"(first upload to last result)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--loops", type=int, default=5)
    parser.add_argument("--workers", type=int, help="serve's --workers (default: serve's own, twice the cores)")
    parser.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument(
        "--hidden",
        choices=("at_once", "after_deadline"),
        default="at_once",
        help="when hidden cases run (default at_once: every case, as before they could wait for the deadline)",
    )
    parser.add_argument(
        "--prefix", default="", help="a command to start serve under, e.g. 'py-spy record -f raw -o serve.txt --'"
    )
    args = parser.parse_args()
    if args.db in ("sqlite", "both"):
        burst("SQLite", "", args)
    if args.db in ("postgresql", "both"):
        from portal_database import PostgresServer

        server = PostgresServer()
        try:
            if not server.start():
                print(f"== PostgreSQL: not measured: {server.problem} ==")
                return
            burst("PostgreSQL", server.new_database(), args)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
