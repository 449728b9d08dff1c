"""The test commands of a justfile: the lines of a recipe named like tests (not a script recipe), with
the file's variables and the recipe's parameter defaults filled in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from tiergate.gate.detection.declared.declaration import JUSTFILES, Declared, DeclaredAt, logical_lines, made
from tiergate.gate.detection.testcommand import names_tests

_JUST_ASSIGN = re.compile(r"^(?:export\s+)?([A-Za-z_][\w-]*)\s*:=\s*(.*)$")
_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][\w-]*)((?:\s+[^:]*)?):(?!=)(.*)$")
_JUST_INTERPOLATION = re.compile(r"\{\{\s*(.*?)\s*\}\}")


def just_commands(texts: Mapping[str, str]) -> Iterator[Declared]:
    file = next((name for name in JUSTFILES if name in texts), None)
    if file is None:
        return
    variables: dict[str, str] = {}
    recipes: list[tuple[str, dict[str, str], list[tuple[int, str]]]] = []
    current: list[tuple[int, str]] | None = None
    for number, raw in logical_lines(texts[file].splitlines()):
        if raw[:1] in (" ", "\t"):
            if current is not None and raw.strip():
                current.append((number, raw.strip()))
            continue
        current = None
        line = raw.strip()
        if not line or line.startswith(("#", "[")):
            continue
        assigned = _JUST_ASSIGN.match(line)
        if assigned:
            variables[assigned.group(1)] = _just_string(assigned.group(2))
            continue
        recipe = _JUST_RECIPE.match(line)
        if recipe and names_tests(recipe.group(1)):
            current = []
            recipes.append((recipe.group(1), _just_parameters(recipe.group(2)), current))
    for name, parameters, body in recipes:
        if body and body[0][1].startswith("#!"):
            continue  # a script recipe: its lines are a program of their own
        commands = [(n, text) for n, text in body if not text.startswith("#")]
        for number, written in commands:
            scope = {**variables, **parameters}
            yield _just_command(written, file, f"recipe {name}", number, scope, len(commands) == 1)


def _just_string(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return "\0" if not re.fullmatch(r"[\w.-]*", value) else value  # an expression: unknown


def _just_parameters(text: str) -> dict[str, str]:
    """A recipe's parameters with their default ("" without one: tiergate passes no arguments)."""
    parameters: dict[str, str] = {}
    for word in text.split():
        name, _, default = word.lstrip("*+$").partition("=")
        parameters[name] = _just_string(default) if default else ""
    return parameters


def _just_command(
    written: str, file: str, where: str, line: int, scope: Mapping[str, str], alone: bool
) -> Declared:
    text = written
    while text[:1] in ("@", "-"):
        if text[0] == "-":
            return Declared(written, file, where, line, problem="just ignores its failure (`-`)", alone=alone)
        text = text[1:].lstrip()
    notes: list[str] = []
    problem = ""

    def one(match: re.Match[str]) -> str:
        nonlocal problem
        value = scope.get(match.group(1))
        if value is None or value == "\0":
            problem = problem or f"only just can resolve {match.group(0)}"
            return match.group(0)
        if not value:
            notes.append(f"{match.group(0)} is nothing: tiergate passes no arguments")
        return value

    command = _JUST_INTERPOLATION.sub(one, text)
    return made(written, " ".join(command.split()), DeclaredAt(file, where, line), notes, problem, alone)
