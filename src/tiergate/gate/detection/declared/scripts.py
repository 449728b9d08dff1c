"""The test commands of the Python task runners: hatch's env scripts (pyproject or hatch.toml), pdm's
scripts and poe's tasks named like tests, with `{args}` read as its default or nothing.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import tomllib
from collections.abc import Iterator, Mapping
from typing import Any

from tiergate.gate.detection.declared.declaration import BRACED, Declared, DeclaredAt, line_of, made
from tiergate.gate.detection.testcommand import names_tests

_ARGS = re.compile(r"\{args(?::([^{}]*))?\}")


def hatch_commands(texts: Mapping[str, str], pyproject: Mapping[str, Any]) -> Iterator[Declared]:
    tool = pyproject.get("tool")
    hatch = tool.get("hatch") if isinstance(tool, Mapping) else None
    sources: list[tuple[str, Any, str]] = [("pyproject.toml", hatch, "tool.hatch.")]
    if "hatch.toml" in texts:
        with contextlib.suppress(tomllib.TOMLDecodeError):
            sources.append(("hatch.toml", tomllib.loads(texts["hatch.toml"]), ""))
    for file, config, prefix in sources:
        envs = config.get("envs") if isinstance(config, Mapping) else None
        for env, table in envs.items() if isinstance(envs, Mapping) else ():
            scripts = table.get("scripts") if isinstance(table, Mapping) else None
            for name, script in scripts.items() if isinstance(scripts, Mapping) else ():
                if names_tests(str(name)):
                    where = f"[{prefix}envs.{env}.scripts] {name}"
                    yield from _script(script, file, where, texts.get(file, ""))


# The task runners whose table maps a name to a command, and the keys of a table entry holding it.
_TASK_TABLES = (
    ("pdm", "scripts", ("cmd", "shell", "composite")),
    ("poe", "tasks", ("cmd", "shell", "sequence")),
)


def task_commands(pyproject: Mapping[str, Any], text: str) -> Iterator[Declared]:
    """pdm's scripts and poe's tasks named like tests (a `call` or `script` entry is no command)."""
    tool = pyproject.get("tool")
    for runner, key, keys in _TASK_TABLES:
        config = tool.get(runner) if isinstance(tool, Mapping) else None
        table = config.get(key) if isinstance(config, Mapping) else None
        for name, entry in table.items() if isinstance(table, Mapping) else ():
            if names_tests(str(name)):
                body = (
                    next((entry[k] for k in keys if k in entry), None)
                    if isinstance(entry, Mapping)
                    else entry
                )
                yield from _script(body, "pyproject.toml", f"[tool.{runner}.{key}] {name}", text)


def _script(script: object, file: str, where: str, text: str) -> Iterator[Declared]:
    """A script's commands: a string, or a list of them (a list of words is one command)."""
    if isinstance(script, list) and script and all(isinstance(w, str) and " " not in w for w in script):
        script = shlex.join(script)
    commands = [script] if isinstance(script, str) else script if isinstance(script, list) else []
    lines = text.splitlines()
    for written in commands:
        if not isinstance(written, str):
            continue
        command, notes = _without_args(written)
        command = command.replace("{root}", ".")
        problem = f"only the tool can resolve {found.group(0)}" if (found := BRACED.search(command)) else ""
        line = line_of(lines, written, "") if lines else 0
        at = DeclaredAt(file, where, line)
        yield made(written, " ".join(command.split()), at, notes, problem, len(commands) == 1)


def _without_args(written: str) -> tuple[str, list[str]]:
    """`written` with its `{args}` placeholders replaced by their default, or by nothing."""
    notes = [
        f"{m.group(0)} is {m.group(1) or 'nothing'}: tiergate passes no arguments"
        for m in _ARGS.finditer(written)
    ]
    return _ARGS.sub(lambda m: m.group(1) or "", written), notes
