"""Every test command a project declares in its files, in the order they are preferred, and the options
it gives pytest. Pure: the caller reads the files (`tiergate.gate.detection.projectchecks`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tiergate.gate.detection.declared.declaration import Declared, read_ini
from tiergate.gate.detection.declared.just import just_commands
from tiergate.gate.detection.declared.make import make_commands
from tiergate.gate.detection.declared.nox import nox_commands
from tiergate.gate.detection.declared.scripts import hatch_commands, task_commands
from tiergate.gate.detection.declared.tox import tox_commands
from tiergate.gate.detection.declared.workflows import workflow_commands


def declared_commands(texts: Mapping[str, str], pyproject: Mapping[str, Any]) -> tuple[Declared, ...]:
    """Every command declared for the tests in the files of `texts` (path relative to the project
    root -> text) and the parsed `pyproject`, in the order they are preferred: tox, nox, hatch, pdm and
    poe, make, just, the CI workflows (within a file, the earlier line)."""
    found = [
        *tox_commands(texts, pyproject),
        *nox_commands(texts.get("noxfile.py", "")),
        *hatch_commands(texts, pyproject),
        *task_commands(pyproject, texts.get("pyproject.toml", "")),
        *make_commands(texts),
        *just_commands(texts),
        *workflow_commands(texts),
    ]
    return tuple(found)


def pytest_options(texts: Mapping[str, str], pyproject: Mapping[str, Any]) -> str:
    """The `addopts` the project gives pytest, wherever pytest reads them, as text."""
    tool = pyproject.get("tool")
    pytest = tool.get("pytest") if isinstance(tool, Mapping) else None
    ini = pytest.get("ini_options") if isinstance(pytest, Mapping) else None
    options = [str(ini.get("addopts", ""))] if isinstance(ini, Mapping) else []
    for name, section in (
        ("pytest.ini", "pytest"),
        (".pytest.ini", "pytest"),
        ("tox.ini", "pytest"),
        ("setup.cfg", "tool:pytest"),
    ):
        parser = read_ini(texts.get(name, ""))
        if parser is not None and parser.has_option(section, "addopts"):
            options.append(parser.get(section, "addopts"))
    return "\n".join(options)
