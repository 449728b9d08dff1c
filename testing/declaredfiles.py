"""The test commands a project declares in `files` (path -> text), as the gate reads them: for the
tests of `tiergate.gate.detection.declared`."""

from __future__ import annotations

import tomllib

from tiergate.gate.detection.declared.commands import declared_commands
from tiergate.gate.detection.declared.declaration import Declared


def read(files: dict[str, str]) -> list[Declared]:
    pyproject = tomllib.loads(files.get("pyproject.toml", ""))
    return list(declared_commands(files, pyproject))


def commands(files: dict[str, str]) -> list[tuple[str, str]]:
    """(command, problem) of each declared command."""
    return [(d.command, d.problem) for d in read(files)]
