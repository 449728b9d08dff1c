"""The test commands of a Makefile: the recipe lines of a target named like tests, with the file's
variables expanded as make would (one the file does not set is empty).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from tiergate.gate.detection.declared.declaration import MAKEFILES, Declared, DeclaredAt, logical_lines, made
from tiergate.gate.detection.testcommand import names_tests

_MAKE_ASSIGN = re.compile(
    r"^(?:export\s+|override\s+)*([A-Za-z_][\w.-]*)\s*(\?=|:::=|::=|:=|\+=|!=|=)\s*(.*)$"
)
_MAKE_RULE = re.compile(r"^([^\s:=#][^:=]*?)\s*::?(?!=)\s*(.*)$")
_MAKE_REFERENCE = re.compile(r"\$(?:\(([^()]*)\)|\{([^{}]*)\}|([^({$]))")


def make_commands(texts: Mapping[str, str]) -> Iterator[Declared]:
    file = next((name for name in MAKEFILES if name in texts), None)
    if file is None:
        return
    variables: dict[str, str] = {}
    computed: set[str] = set()
    recipes: list[tuple[str, list[tuple[int, str]]]] = []
    current: list[tuple[int, str]] | None = None
    for number, raw in logical_lines(texts[file].splitlines()):
        if raw.startswith("\t"):
            if current is not None:
                current.append((number, raw[1:].strip()))
            continue
        current = None
        stripped = raw.split("#", 1)[0].rstrip()
        if not stripped.strip() or _make_assignment(stripped, variables, computed):
            continue
        rule = _MAKE_RULE.match(stripped)
        tested = next((t for t in rule.group(1).split() if names_tests(t)), None) if rule else None
        if rule is not None and tested is not None and "=" not in rule.group(2):
            current = [(number, rule.group(2).split(";", 1)[1].strip())] if ";" in rule.group(2) else []
            recipes.append((tested, current))
    for target, recipe in recipes:
        commands = [(n, line) for n, line in recipe if line and not line.startswith("#")]
        for number, written in commands:
            where = f"target {target}"
            yield _make_command(
                written, DeclaredAt(file, where, number), variables, computed, len(commands) == 1
            )


def _make_assignment(line: str, variables: dict[str, str], computed: set[str]) -> bool:
    """Record the variable `line` assigns, if it is an assignment (`=`, `:=`, `?=`, `+=`, `!=`)."""
    assigned = _MAKE_ASSIGN.match(line)
    if not assigned:
        return False
    name, operator, value = assigned.groups()
    if operator == "!=":
        computed.add(name)
    elif operator == "+=":
        variables[name] = f"{variables.get(name, '')} {value}".strip()
    elif operator != "?=" or name not in variables:
        variables[name] = value.strip()
    return True


def _make_command(
    written: str,
    at: DeclaredAt,
    variables: Mapping[str, str],
    computed: set[str],
    alone: bool,
) -> Declared:
    text = written
    while text[:1] in ("@", "+", "-"):
        if text[0] == "-":
            ignored = "make ignores its failure (`-`)"
            return Declared(written, at.file, at.where, at.line, problem=ignored, alone=alone)
        text = text[1:].lstrip()
    notes: list[str] = []
    problem = ""

    def expand(value: str, depth: int) -> str:
        def one(match: re.Match[str]) -> str:
            nonlocal problem
            name = next((g for g in match.groups() if g is not None), "")
            if name == "$":
                return "$"
            if name == "MAKE":
                return "make"
            if name in computed or " " in name or depth > 8:
                problem = problem or f"only make can resolve {match.group(0)}"
                return match.group(0)
            if name not in variables:
                notes.append(f"{match.group(0)} is not set in {at.file}: empty, as make leaves it")
                return ""
            return expand(variables[name], depth + 1)

        return _MAKE_REFERENCE.sub(one, value)

    first = _MAKE_REFERENCE.fullmatch(text.split()[0]) if text.split() else None
    name = next((g for g in first.groups() if g), "") if first is not None else ""
    if first is not None and name not in variables and name != "MAKE":
        problem = f"its program, {first.group(0)}, is set outside {at.file}"
    command = expand(text, 0)
    return made(written, " ".join(command.split()), at, notes, problem, alone)
