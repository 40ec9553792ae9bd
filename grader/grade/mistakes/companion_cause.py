"""A failure that comes from one of the student's other exercise files, named as such.

A task's file may import the student's answers to earlier exercises (its companions: working_game
takes present_board, make_move, optimal_move and ui from the student's own files). When what an
interactive session found wrong is about what one of those functions makes (the session's problem
names it as ``about``: the text of the board is present_board's), and the file being graded takes
that function from the student's file of that name (it imports it and defines none of its own),
the mistake is in that file, not in the one being graded: the message says so first, and where to
check it. Otherwise the message is as the session said it.

In: the session's message and ``about``, the graded file's source text, the names of the companion
files the program ran with. Out: the message. Pure: reads the syntax tree only.
"""

from __future__ import annotations

import ast
from typing import Sequence

from grader.submission.syntax_tree import parsed


def named(message: str, about: str, source: str, companions: Sequence[str], run_name: str) -> str:
    """``message``, led by the companion file it comes from when ``about`` (a function of another
    exercise, "" for none) is taken from the student's own file among ``companions`` by the graded
    file (``source``, run as ``run_name``)."""
    file = f"{about}.py"
    if not about or file not in companions or not takes_from(source, about):
        return message
    return (
        f"This comes from your {file} (its {about} makes what {run_name} shows here): {message} Fix it in "
        f"{file}, and check that file on its own: python -m grader check {file}."
    )


def takes_from(source: str, name: str) -> bool:
    """Whether ``source`` imports ``name`` from the module ``name`` (``from present_board import
    present_board``, or ``import present_board``), calls it (``present_board(board)``,
    ``present_board.present_board(board)``) and defines no function or class of that name itself."""
    tree = parsed(source)
    if tree is None:
        return False
    imported = called = False
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return False  # its own: what it shows is this file's doing
        if isinstance(node, ast.ImportFrom) and node.module == name:
            imported = imported or any(alias.name in (name, "*") for alias in node.names)
        elif isinstance(node, ast.Import):
            imported = imported or any(alias.name == name for alias in node.names)
        elif isinstance(node, ast.Call):
            function = node.func
            called = called or (isinstance(function, ast.Name) and function.id == name)
            called = called or (isinstance(function, ast.Attribute) and function.attr == name)
    return imported and called
