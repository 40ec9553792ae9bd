"""The layout of grader/ keeps its promises (docs/architecture.md): stages import only downward, no
import circle, small files, few modules loose at the top."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Dict, Set

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "grader"
# From the bottom up; a package may import its own modules and those of any package below it.
FLOORS = (
    ("model", "errors", "safe_text", "marks", "counting"),
    ("rules", "submission", "run", "check"),
    ("nim",),
    ("course",),
    ("grade",),
    ("report",),
    ("classrun",),
    ("authoring",),
    ("web",),
    ("cli",),
    ("pytest_plugin", "__main__"),
)
FLOOR = {name: number for number, names in enumerate(FLOORS) for name in names}
# Run in the program's own process (the fork server, a new interpreter's start), sent as source
# text: they import only the standard library and each other. All of run/child/, and the part of
# rules/ that checks a task's rules while the program runs (the rest of rules/ is the grader's).
CHILD = PACKAGE / "run" / "child"
RULES = PACKAGE / "rules"
RULES_IN_THE_CHILD = {"rule_data", "rule_tree", "rule_checks", "rule_traps", "rule_imports", "rule_guard"}
STANDALONE = {f"grader.run.child.{path.stem}" for path in CHILD.glob("*.py") if path.stem != "__init__"}
STANDALONE |= {f"grader.rules.{name}" for name in RULES_IN_THE_CHILD}


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> Dict[str, Set[str]]:
    """Every grader module and the grader modules it imports (at any depth of its code)."""
    found: Dict[str, Set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        names: Set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "grader":
                for alias in node.names:
                    candidate = f"{node.module}.{alias.name}"
                    is_module = (PACKAGE.parent / (candidate.replace(".", "/") + ".py")).is_file()
                    names.add(candidate if is_module else node.module)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names if a.name.split(".")[0] == "grader")
        found[_module(path)] = {name for name in names if name != "grader"}
    return found


def _stage(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


def test_stages_import_only_downward():
    upward = []
    for module, imported in _imports().items():
        if not _stage(module):
            continue  # the package's face
        for name in imported:
            if FLOOR[_stage(name)] > FLOOR[_stage(module)]:
                upward.append(f"{module} imports {name}")
    assert not upward, "imports that run back up:\n" + "\n".join(sorted(upward))


def test_the_portal_shares_grade_and_report_and_nothing_of_the_class_run():
    """The portal grades a submission as the unit ``grade`` makes per student (``grade/``) and
    exports what ``grade`` exports (``report/``); the class run's own machinery is not its."""
    found = [
        f"{module} imports {name}"
        for module, imported in _imports().items()
        if _stage(module) == "web"
        for name in imported
        if _stage(name) == "classrun"
    ]
    assert not found, "\n".join(sorted(found))


# The portal's parts (docs/architecture.md): the site may import the worker and the marks, the worker
# the marks, the marks neither; what the portal keeps (models, the stored result) imports none of
# them. Only the modules that assemble the portal (its settings, addresses, app, WSGI and serve) and
# those that act on the whole of it (backup and restore, which ask whether a dispatcher runs) do.
WEB_PARTS = {"marks": set(), "worker": {"marks"}, "site": {"worker", "marks"}}
WEB_ASSEMBLY = {"grader.web.apps", "grader.web.settings", "grader.web.urls", "grader.web.wsgi", "grader.web.server"}
WEB_ASSEMBLY |= {"grader.web.backup", "grader.web.backup_database"}


def _web_part(module: str) -> str:
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[:2] == ["grader", "web"] and parts[2] in WEB_PARTS else ""


def test_the_portals_site_worker_and_marks_import_only_as_drawn():
    crossing = []
    for module, imported in _imports().items():
        if _stage(module) != "web" or module in WEB_ASSEMBLY:
            continue
        allowed = WEB_PARTS.get(_web_part(module), set())
        for name in imported:
            part = _web_part(name)
            if part and part != _web_part(module) and part not in allowed:
                crossing.append(f"{module} imports {name}")
    assert not crossing, "\n".join(sorted(crossing))


def test_every_module_is_on_a_floor():
    stages = {_stage(module) for module in _imports() if _stage(module)}
    assert stages <= set(FLOOR), f"place these in FLOORS and docs/architecture.md: {sorted(stages - set(FLOOR))}"


def test_no_import_circle():
    graph = _imports()
    state: Dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list) -> None:
        state[module] = 1
        for name in sorted(graph.get(module, ())):
            if state.get(name) == 1:
                raise AssertionError("an import circle: " + " -> ".join(path[path.index(name) :] + [name]))
            if name in graph and state.get(name) is None:
                visit(name, path + [name])
        state[module] = 2

    for module in sorted(graph):
        if state.get(module) is None:
            visit(module, [module])


def test_the_fork_server_modules_import_nothing_of_the_grader():
    graph = _imports()
    assert {module: graph[module] for module in STANDALONE} == {module: set() for module in STANDALONE}


def test_what_runs_in_the_child_is_its_folder_and_one_list():
    """Every module under run/child/ is sent to the program's process (the list in execute.py, or
    one of the two starts), and so is the child's part of rules/; nothing else is: the folders are
    the boundary."""
    from grader.run.execute import CHILD_MODULES, STARTS

    sent = {name for name, _ in CHILD_MODULES} | set(STARTS)
    here = {path.stem for path in CHILD.glob("*.py") if path.stem != "__init__"}
    outside = {f"{folder}/{name}" for name, folder in CHILD_MODULES if not (folder / f"{name}.py").is_file()}
    assert not outside, f"listed but missing: {outside}"
    assert here - sent == set(), f"in run/child/ but never sent to the child: {here - sent}"
    assert {name for name, folder in CHILD_MODULES if folder == CHILD} <= here
    assert {name for name, folder in CHILD_MODULES if folder == RULES} == RULES_IN_THE_CHILD
    assert {folder for _, folder in CHILD_MODULES} == {CHILD, RULES}
    assert {module.rsplit(".", 1)[1] for module in STANDALONE} >= sent


def test_what_runs_in_the_child_imports_only_the_standard_library():
    """A module sent to the program's process finds there the standard library and the modules sent
    before it (imported by bare name), nothing else: not the grader, not an installed package."""
    stdlib = getattr(sys, "stdlib_module_names", None)
    if stdlib is None:
        pytest.skip("sys.stdlib_module_names is new in Python 3.10")
    from grader.run.execute import CHILD_MODULES, STARTS

    sent = [name for name, _ in CHILD_MODULES]
    found = []
    for name, folder in [*CHILD_MODULES, *((start, CHILD) for start in STARTS)]:
        for node in ast.walk(ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                imported = [node.module or ""]
            else:
                continue
            for module in imported:
                top = module.split(".")[0]
                if top not in stdlib and top != "__future__" and top not in sent:
                    found.append(f"{folder.name}/{name}.py imports {module}")
    assert not found, "\n".join(found)


def test_modules_are_small_and_few_are_loose_at_the_top():
    long = {
        str(path.relative_to(PACKAGE.parent)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert not long, f"modules over 400 lines: {long}"
    loose = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(loose) <= 8, f"modules loose at the top of grader/: {loose}"


def test_the_architecture_page_names_every_module_and_no_other():
    """docs/architecture.md's module table matches the tree: a row names a module by its path, or by
    its bare file name after a path in the same cell (``grader/run/execute.py``, ``streams.py``)."""
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = page[page.index("| module | owns |") :].split("\n\n", 1)[0]
    named = set()
    for row in table.splitlines()[2:]:
        cell = row.split("|")[1]
        folder = ""
        for name in (part.strip(" `") for part in cell.split(",")):
            if name.startswith("grader/"):
                folder = name.rsplit("/", 1)[0]
                named.add(name)
            elif name.endswith(".py"):
                named.add(f"{folder}/{name}")
    modules = {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py" and "migrations" not in path.parts  # Django writes those
    }
    assert sorted(modules - named) == [], "modules the architecture page's table leaves out"
    assert sorted(named - modules - {"grader/report/templates/"}) == [], "rows naming modules that do not exist"
