"""Which checks a project has, read from the project: the adapter beside the pure `tiergate.gate.checks`.

The `[checks]` table of the configuration wins; without one, the simple per-ecosystem rules of
`tiergate.gate.detection.rules` name the obvious commands, offered when the programs they start are on PATH. A
check's program is looked up here too, as the shell would find it, before the check is started.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tomllib
from dataclasses import replace
from typing import TYPE_CHECKING

from tiergate.frozen import frozen
from tiergate.gate.checks import Check, make_check
from tiergate.gate.detection.declared.declaration import FILES_READ, WORKFLOWS
from tiergate.gate.detection.program import program_of
from tiergate.gate.detection.rules import Detection, ProjectFacts, detect, programs_named

if TYPE_CHECKING:
    from pathlib import Path

    from tiergate.config.settings import Config


def project_checks(root: Path, config: Config) -> tuple[Check, ...]:
    """The checks of the project at `root`: its `[checks]` table, else the detected ones whose
    programs are on PATH."""
    if config.checks:
        origin = f"configured in {config.source}"
        return tuple(make_check(name, command, origin) for name, command in config.checks.items())
    return tuple(
        make_check(found.name, found.command, f"detected: {found.reason}")
        for found in detected_checks(root).offered
    )


def detected_checks(root: Path, path: str | None = None) -> Detection:
    """The checks detected for `root`, with the programs they start looked up on `path` (None: this
    process's PATH, which the checks run with)."""
    facts = read_facts(root)
    search = os.environ.get("PATH") if path is None else path
    found = frozenset(name for name in programs_named(facts) if shutil.which(name, path=search))
    return detect(replace(facts, programs=found))


@frozen
class Located:
    """Where a check's program is. `program`: as the command names it (None: the command line alone
    cannot tell, see `tiergate.gate.detection.program`); `location`: its path, or "shell builtin"; `problem`:
    why the check cannot run ("" when it can, or when that cannot be told before running it)."""

    program: str | None
    location: str = ""
    problem: str = ""


def locate_program(command: str, root: Path, path: str | None = None) -> Located:
    """Look up the program `command` starts, as `/bin/sh -c` in `root` would find it (`path`: the
    PATH to search; None: this process's)."""
    program = program_of(command)
    if program is None:
        return Located(None)
    if program.builtin:
        return Located(program.word, "shell builtin")
    if not program.is_path:
        search = os.environ.get("PATH") if path is None else path
        found = shutil.which(program.word, path=search)
        return Located(program.word, found or "", "" if found else f"`{program.word}` is not on PATH")
    target = root / program.directory / program.word
    shown = f"`{program.word}`" + ("" if program.directory == "." else f" (in {program.directory})")
    if not target.exists():
        return Located(program.word, "", f"{shown} does not exist")
    if target.is_dir() or not os.access(target, os.X_OK):
        return Located(program.word, "", f"{shown} is not an executable file")
    return Located(program.word, str(target))


# A file larger than this declares no test command tiergate reads (it would only slow every gate down).
LARGEST_READ = 256 * 1024


def read_facts(root: Path) -> ProjectFacts:
    """What check detection looks at in `root`; unreadable or malformed files count as absent."""
    try:
        names = frozenset(entry.name for entry in root.iterdir())
    except OSError:
        names = frozenset()
    try:
        pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        pyproject = {}
    try:
        package = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        package = {}
    package = package if isinstance(package, dict) else {}
    texts = _declaring_texts(root, names)
    return ProjectFacts(names, pyproject, package, texts=texts, package_tests=_package_tests(root, names))


def _package_tests(root: Path, names: frozenset[str]) -> frozenset[str]:
    """The `tests`/`test` folders of the Python packages in `root` (a folder with an `__init__.py`)."""
    found = set()
    for name in names:
        if name.startswith(".") or not (root / name / "__init__.py").is_file():
            continue
        found |= {f"{name}/{sub}" for sub in ("tests", "test") if (root / name / sub).is_dir()}
    return frozenset(found)


def _declaring_texts(root: Path, names: frozenset[str]) -> dict[str, str]:
    """The text of the files that may declare test commands (`tiergate.gate.detection.declared`), by path from
    `root`: those of FILES_READ in the root, pyproject.toml, and the CI workflows."""
    paths = [name for name in (*FILES_READ, "pyproject.toml") if name in names]
    if ".github" in names:
        with contextlib.suppress(OSError):
            workflows = sorted((root / WORKFLOWS).iterdir())
            paths += [f"{WORKFLOWS}{p.name}" for p in workflows if p.suffix in (".yml", ".yaml")]
    texts: dict[str, str] = {}
    for path in paths:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            file = root / path
            if file.is_file() and file.stat().st_size <= LARGEST_READ:
                texts[path] = file.read_text(encoding="utf-8")
    return texts
