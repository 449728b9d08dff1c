"""Which checks a project has, read from the project: the adapter beside the pure `tiergate.gate.checks`.

The `[checks]` table of the configuration wins; without one, the simple per-ecosystem rules of
`tiergate.gate.detection.rules` name the obvious commands, offered when the programs they start are on PATH. A
check's program is looked up here too, as the shell would find it, before the check is started.
"""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tiergate.frozen import frozen
from tiergate.gate.checks import Check, make_check
from tiergate.gate.detection.declared.declaration import FILES_READ, WORKFLOWS
from tiergate.gate.detection.program import program_of
from tiergate.gate.detection.projectfiles import AtCommit, OnDisk, ProjectFiles
from tiergate.gate.detection.rules import Detection, ProjectFacts, detect, programs_named
from tiergate.gate.detection.sincebase import changed_declarations, script_changed, script_of
from tiergate.git import repository

if TYPE_CHECKING:
    from tiergate.config.settings import Config


def project_checks(root: Path, config: Config) -> tuple[Check, ...]:
    """The checks of the project at `root` as its files are now: its `[checks]` table, else the detected
    ones whose programs are on PATH. What the user's commands show; a loop's gate runs `checks_at_base`."""
    if config.checks:
        return _configured(config)
    return _made(detected_checks(root), "detected")


def checks_at_base(root: Path, config: Config, base: str | None) -> tuple[Check, ...]:
    """The checks a loop's gate runs, at its base and on each claim alike: the `[checks]` table of the
    configuration the loop kept, else those detected from the files as `base` holds them (the loop's
    base: a commit or tree id; None, outside git or before the first commit: the files in `root` now),
    their programs looked up on PATH now. What the agent writes into the Makefile does not change them."""
    if config.checks:
        return _configured(config)
    if base is None:
        return project_checks(root, config)
    return _made(detected_checks(root, at=_at_base(root, base)), "detected at the loop's base")


def declared_changes(root: Path, config: Config, base: str | None) -> tuple[str, ...]:
    """How the checks the files in `root` declare now differ from those `base` declares
    (`tiergate.gate.detection.sincebase`); none with a `[checks]` table or without a base."""
    if base is None:
        return ()
    if config.checks:  # the loop kept its table: only the files its commands run can change
        return tuple(_scripts_changed(root, base, config.checks))
    then = _with_programs(_at_base(root, base))
    return (
        *changed_declarations(then, _with_programs(read_facts(root))),
        *_scripts_changed(root, base, {check.name: check.command for check in detect(then).offered}),
    )


def _scripts_changed(root: Path, base: str, commands: Mapping[str, str]) -> list[str]:
    """For each check (`commands` by name) that runs a file of the project (`./run_tests.sh`,
    `sh scripts/check.sh`), why it is named when that file differs from the base's: the gate runs the
    workspace's copy."""
    scripts = {name: script for name, command in commands.items() if (script := script_of(command))}
    if not scripts:
        return []
    top = repository.repo_root(root)
    inside = root.resolve().relative_to(top.resolve()).as_posix()
    at_base = AtCommit(top, base, "" if inside == "." else inside)
    wanted = sorted(set(scripts.values()))
    present = [path for path, kind in at_base.kinds(wanted).items() if kind == "file"]
    was = at_base.texts(dict.fromkeys(present, LARGEST_READ))
    now = OnDisk(root).texts(dict.fromkeys(was, LARGEST_READ))
    return [
        script_changed(name, path)
        for name, path in scripts.items()
        if path in was and now.get(path) != was[path]
    ]


def _configured(config: Config) -> tuple[Check, ...]:
    origin = f"configured in {config.source}"
    return tuple(make_check(name, command, origin) for name, command in config.checks.items())


def _made(detection: Detection, said: str) -> tuple[Check, ...]:
    return tuple(
        make_check(found.name, found.command, f"{said}: {found.reason}") for found in detection.offered
    )


def detected_checks(root: Path, path: str | None = None, *, at: ProjectFacts | None = None) -> Detection:
    """The checks detected for `root` (from `at`, facts read elsewhere, when given), with the programs
    they start looked up on `path` (None: this process's PATH, which the checks run with)."""
    return detect(_with_programs(read_facts(root) if at is None else at, path))


def _with_programs(facts: ProjectFacts, path: str | None = None) -> ProjectFacts:
    search = os.environ.get("PATH") if path is None else path
    found = frozenset(name for name in programs_named(facts) if shutil.which(name, path=search))
    return replace(facts, programs=found)


def _at_base(root: Path, base: str) -> ProjectFacts:
    """What detection looks at in the project folder `root` as the commit or tree `base` holds it, read
    from git's objects; kept for the process (an object id names the same files for ever)."""
    top = repository.repo_root(root)
    inside = root.resolve().relative_to(top.resolve()).as_posix()
    key = (str(top), base, inside)
    if key not in _base_facts:
        _base_facts[key] = read_facts(AtCommit(top, base, "" if inside == "." else inside))
    return _base_facts[key]


_base_facts: dict[tuple[str, str, str], ProjectFacts] = {}


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
# pyproject.toml and package.json are read whole for their tables, up to this.
LARGEST_MANIFEST = 4 * 1024 * 1024


def read_facts(root: Path | ProjectFiles) -> ProjectFacts:
    """What check detection looks at in the project folder `root` (or as `ProjectFiles` give it: a
    commit's); unreadable or malformed files count as absent."""
    files = OnDisk(root) if isinstance(root, Path) else root
    entries = files.entries("")
    # Where a root folder may be a package with its tests inside (`toolz/tests`).
    folders = [name for name, kind in entries.items() if kind == "dir" and not name.startswith(".")]
    inner = files.kinds([f"{name}/{sub}" for name in folders for sub in ("__init__.py", "tests", "test")])
    workflows = files.entries(WORKFLOWS) if entries.get(".github") == "dir" else {}
    declaring = [name for name in (*FILES_READ, "pyproject.toml") if entries.get(name) == "file"]
    declaring += sorted(f"{WORKFLOWS}{name}" for name in workflows if name.endswith((".yml", ".yaml")))
    texts = files.texts(
        {
            **dict.fromkeys(declaring, LARGEST_READ),
            **{name: LARGEST_MANIFEST for name in ("pyproject.toml", "package.json") if name in entries},
        }
    )
    try:
        pyproject = tomllib.loads(texts.get("pyproject.toml", ""))
    except tomllib.TOMLDecodeError:
        pyproject = {}
    try:
        package = json.loads(texts.pop("package.json", "{}"))
    except ValueError:
        package = {}
    tests = frozenset(
        f"{name}/{sub}"
        for name in folders
        if inner.get(f"{name}/__init__.py") == "file"
        for sub in ("tests", "test")
        if inner.get(f"{name}/{sub}") == "dir"
    )
    package = package if isinstance(package, dict) else {}
    return ProjectFacts(frozenset(entries), pyproject, package, texts=texts, package_tests=tests)
