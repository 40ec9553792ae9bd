"""The student kit carries the grader as a wheel: the wheel holds no course file and nothing of a
hidden case, the kit's README installs it, and, installed where the course's folder is not, its
``check`` run in the kit grades against the kit's public cases only."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath
from typing import List

import pytest
from support import PROJECT, course_of

from grader.cli.main import main

COURSE_FOLDERS = {"testcases", "solutions", "exercises"}
DEPENDENCIES = ("yaml", "jinja2", "markupsafe", "regex")  # the grader's, imported by check


@pytest.fixture(scope="module")
def wheel_kit(tmp_path_factory) -> Path:
    """The project's own course made into a kit with the grader's wheel, once."""
    out = tmp_path_factory.mktemp("wheel-kit") / "nim-lab"
    assert main(["kit", str(out)]) == 0
    return out


def the_wheel(kit: Path) -> Path:
    wheels = sorted(kit.glob("*.whl"))
    assert len(wheels) == 1, f"the kit holds {len(wheels)} wheels: {os.listdir(kit)}"
    return wheels[0]


def hidden_names(course) -> List[str]:
    return [case.name for task in course.values() for case in task.cases if case.hidden]


def test_the_kit_carries_the_grader_as_a_wheel_and_its_readme_installs_it(wheel_kit, capsys):
    wheel = the_wheel(wheel_kit)
    assert re.fullmatch(r"nim_grader-[0-9.]+-py3-none-any\.whl", wheel.name)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"grader/__main__.py", "grader/cli/check.py", "grader/report/templates/index.html"} <= names
    readme = (wheel_kit / "README.md").read_text(encoding="utf-8")
    assert f"python3 -m pip install {wheel.name}" in readme
    assert f"| `{wheel.name}` |" in readme
    assert "python3 -m grader check exercises/" in readme
    assert "PATH-TO-NIM-GRADER" not in readme


def test_the_wheel_holds_no_course_file_and_nothing_of_a_hidden_case(wheel_kit, course):
    hidden = hidden_names(course)
    assert len(hidden) >= 20
    solutions = [path.read_text(encoding="utf-8").strip() for path in (PROJECT / "solutions").rglob("*.py")]
    assert len(solutions) > 100
    with zipfile.ZipFile(the_wheel(wheel_kit)) as archive:
        for name in archive.namelist():
            assert not set(PurePosixPath(name).parts) & COURSE_FOLDERS, name
            text = archive.read(name).decode("utf-8", "replace")
            assert [h for h in hidden if h in text] == [], name
            assert not any(solution in text for solution in solutions), name
            assert not name.endswith((".yaml", ".json")), name


def test_no_wheel_leaves_it_out_and_the_readme_says_to_install_the_grader_as_the_course_team_says(tmp_path, capsys):
    out = tmp_path / "kit"
    assert main(["kit", str(out), "--no-wheel"]) == 0
    assert not list(out.glob("*.whl"))
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "install it as your course team says" in readme and ".whl" not in readme
    assert ".whl" not in capsys.readouterr().out


def planted_wheel(real: bytes, name: str, text: str) -> bytes:
    """The grader's wheel with one more file, ``name`` holding ``text``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(real)) as source, zipfile.ZipFile(buffer, "w") as target:
        for info in source.infolist():
            target.writestr(info, source.read(info))
        target.writestr(name, text)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "name, text, words",
    [
        ("grader/testcases/nim_sum.yaml", "task: nim_sum\n", "grader/testcases/nim_sum.yaml"),
        ("grader/notes.py", "# the case 'hidden case 3: a very big number to bits'\n", "a very big number to bits"),
        ("grader/solved.py", (PROJECT / "solutions" / "nim_sum.py").read_text(encoding="utf-8"), "solutions/nim_sum"),
    ],
    ids=["a course folder", "a hidden case's name", "a solution"],
)
def test_a_wheel_carrying_course_files_stops_the_kit(wheel_kit, tmp_path, capsys, monkeypatch, name, text, words):
    from grader.authoring import kit_wheel

    real = the_wheel(wheel_kit)
    planted = planted_wheel(real.read_bytes(), name, text)
    monkeypatch.setattr(kit_wheel, "_built", lambda source: kit_wheel.Wheel(real.name, planted))
    assert main(["kit", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and "--no-wheel" in err and "Traceback" not in err
    assert os.listdir(tmp_path) == []


def test_where_no_wheel_can_be_built_the_kit_says_so_and_is_written_without_one(tmp_path, capsys, monkeypatch):
    from grader.authoring import kit_wheel

    monkeypatch.setattr(kit_wheel, "SOURCE", tmp_path / "installed")  # no pyproject.toml there
    assert main(["kit", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "no wheel" in out and "--no-wheel" in out
    assert not list((tmp_path / "out").glob("*.whl"))
    assert "install it as your course team says" in (tmp_path / "out" / "README.md").read_text(encoding="utf-8")


# -- installed from the wheel alone, check grades the kit's public cases -----------------------------


def _fresh_environment(folder: Path) -> Path:
    """A virtual environment with the grader's dependencies from this interpreter (by a .pth file: a
    venv made from a venv sees its base's packages, not this one's) and nothing else; its python."""
    missing = [name for name in DEPENDENCIES if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"this interpreter lacks the grader's dependencies {missing}")
    # made by the base interpreter: a venv made from a venv names that venv as its home on Python 3.9,
    # and the sandbox then finds no standard library to show the student's program
    base = Path(sys.base_prefix) / ("python.exe" if os.name == "nt" else "bin/python3")
    maker = str(base) if base.is_file() else sys.executable
    subprocess.run([maker, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=60)
    python = folder / ("Scripts" if os.name == "nt" else "bin") / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    places = {str(Path(importlib.util.find_spec(name).origin).parent.parent) for name in DEPENDENCIES}
    Path(site, "grader_dependencies.pth").write_text("\n".join(sorted(places)) + "\n", encoding="utf-8")
    return python


@pytest.mark.slow
def test_the_wheel_installed_alone_checks_in_the_kit_against_its_public_cases_only(wheel_kit, course, tmp_path):
    kit = Path(shutil.copytree(wheel_kit, tmp_path / "kit"))
    python = _fresh_environment(tmp_path / "venv")
    # --ignore-installed: the dependencies' folder (on the venv's path by the .pth file) may hold the
    # grader too (tox installs it there), and the wheel must land in the venv all the same
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "--no-deps"]
    install.append("--ignore-installed")
    installed = subprocess.run(
        [*install, "--disable-pip-version-check", "-q", str(the_wheel(kit))], capture_output=True, text=True
    )
    if "no such option: --python" in installed.stderr:
        pytest.skip("this pip is older than 22.3 (no --python)")
    assert installed.returncode == 0, installed.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["PYTHONNOUSERSITE"] = "1"

    where = subprocess.run(
        [str(python), "-c", "import grader, json, sys; print(json.dumps([grader.__file__, sys.path]))"],
        cwd=kit,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    module, path = json.loads(where.stdout)
    assert Path(module).resolve().is_relative_to((tmp_path / "venv").resolve()), module
    assert not any((kit / entry).resolve() == PROJECT for entry in path)  # "" is the kit, as for -m

    ran = subprocess.run(
        [str(python), "-m", "grader", "check", "exercises/", "--json"],
        cwd=kit,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 1, ran.stderr  # the stubs fail
    results = {task["task"]: task for task in json.loads(ran.stdout)["tasks"]}
    assert set(results) == set(course)
    hidden = set(hidden_names(course))
    for task_id, result in results.items():
        names = [case["name"] for case in result["cases"]]
        assert names == [case.name for case in course[task_id].cases if not case.hidden], task_id
        assert not hidden & set(names)
    assert "Public cases only: the portal also runs" in ran.stderr


def test_a_hidden_case_added_by_add_case_under_its_default_name_leaves_the_kit_possible(wheel_kit, tmp_path, capsys):
    # add-case --hidden names a case "hidden case N", words the grader's own source holds: the
    # documented path (add a hidden case, then make the kit) must end in a kit
    course = course_of(tmp_path / "course", ["nim_sum"])  # (no known-wrong solutions: no signatures to make)
    case = '{"type": "nim_sum", "input": [9, 9, 3]}'
    assert main(["add-case", "nim_sum", "--input", case, "--hidden", "--course", str(course)]) == 0
    added = (course / "testcases" / "nim_sum.yaml").read_text(encoding="utf-8")
    assert re.search(r"^  - name: hidden case [0-9]+$", added, re.M), added[-300:]
    capsys.readouterr()
    assert main(["kit", str(tmp_path / "kit"), "--course", str(course)]) == 0, capsys.readouterr().err
    assert len(list((tmp_path / "kit").glob("*.whl"))) == 1
