"""The test commands of a noxfile: `session.run(...)` calls, every argument literal, in the sessions
named like tests, read as a syntax tree and never run.
"""

from __future__ import annotations

import ast
import shlex
import warnings
from collections.abc import Iterator

from tiergate.gate.detection.declared.declaration import Declared, DeclaredAt, made
from tiergate.gate.detection.testcommand import names_tests


def nox_commands(text: str) -> Iterator[Declared]:
    """`session.run(...)` in the sessions named like tests, read as a syntax tree: never executed."""
    if not text:
        return
    try:
        with warnings.catch_warnings():  # the project's warnings are not tiergate's to print
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        name = _session_name(node)
        parameters = [*node.args.posonlyargs, *node.args.args]
        if name is None or not names_tests(name) or not parameters:
            continue
        session = parameters[0].arg
        calls = [call for call in ast.walk(node) if _is_run(call, session)]
        for call in calls:
            assert isinstance(call, ast.Call)
            yield _nox_command(call, session, f"session {name}", alone=len(calls) == 1)


def _session_name(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The session name of a function decorated with `@nox.session` (or `@session`), else None."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        dotted = ast.unparse(target)
        if dotted not in ("nox.session", "session"):
            continue
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
        return function.name
    return None


def _is_run(node: ast.AST, session: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "run"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == session
    )


def _nox_command(call: ast.Call, session: str, where: str, *, alone: bool) -> Declared:
    words: list[str] = []
    notes: list[str] = []
    problem = ""
    for argument in call.args:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            words.append(argument.value)
        elif isinstance(argument, ast.Starred) and ast.unparse(argument.value) == f"{session}.posargs":
            notes.append(f"{session}.posargs is nothing: tiergate passes no arguments")
        else:
            problem = problem or f"nox computes an argument ({ast.unparse(argument)})"
    written = ast.unparse(call)
    command = shlex.join(words)
    return made(written, command, DeclaredAt("noxfile.py", where, call.lineno), notes, problem, alone=alone)
