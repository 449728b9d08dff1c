"""Which checks a project has, and what kind each one is.

The `[checks]` table of the configuration wins; without one, the simple per-ecosystem rules of
`tiergate.gate.detect` name the obvious commands. Every check gets a kind, and the kind its stage:

    syntax, build              stage 1 (compile): cheap, and when the code does not even parse or
                               build, the behaviour checks' output is noise
    lint, types, tests, other  stage 2 (behaviour): run only when stage 1 has no new failure

The kind comes from the check's name, read as words (`type-check` is `type` and `check`), and when the
name says nothing, from the first words of its command (`python -m compileall src` is syntax, `go build
./...` is build, `npx tsc --noEmit` is types). When several words match, the earliest stage wins, so
`build-and-test` is a build. A name or command that says nothing is `other`, a behaviour check.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tiergate.gate.detect import Detection, ProjectFacts, detect, programs_named
from tiergate.gate.program import program_of

if TYPE_CHECKING:
    from tiergate.config import Config

Kind = Literal["syntax", "build", "types", "lint", "tests", "other"]
COMPILE_STAGE = 1
BEHAVIOUR_STAGE = 2
COMPILE_KINDS: frozenset[str] = frozenset({"syntax", "build"})
COMMAND_WORDS_READ = 3

# In stage order: the first kind with a matching word wins.
_KIND_WORDS: tuple[tuple[Kind, frozenset[str]], ...] = (
    ("syntax", frozenset({"syntax", "compileall", "py_compile", "parse"})),
    ("build", frozenset({"build", "compile", "bundle"})),
    ("types", frozenset({"types", "type", "typecheck", "typing", "mypy", "pyright", "tsc"})),
    (
        "lint",
        frozenset({"lint", "linter", "ruff", "flake8", "pylint", "eslint", "clippy", "vet", "golangci"}),
    ),
    (
        "tests",
        frozenset(
            {
                "test",
                "tests",
                "unittest",
                "pytest",
                "jest",
                "vitest",
                "mocha",
                "spec",
                "probe",
                "probes",
                "e2e",
                "integration",
                "unit",
                "acceptance",
                "regression",
            }
        ),
    ),
)
_WORD = re.compile(r"[A-Za-z0-9_]+")


@dataclass(frozen=True)
class Check:
    """One check: a shell command run in the project's directory."""

    name: str
    command: str
    kind: Kind
    source: str  # where it comes from, for a person: "configured in .tiergate.toml", "detected: ..."

    @property
    def stage(self) -> int:
        return COMPILE_STAGE if self.kind in COMPILE_KINDS else BEHAVIOUR_STAGE

    @property
    def key(self) -> str:
        """Names the check by what it runs: results of another command never stand in for it."""
        return check_key(self.name, self.command)


def check_key(name: str, command: str) -> str:
    return hashlib.sha256(f"{name}\0{command}".encode()).hexdigest()[:24]


Status = Literal["passed", "failed", "timed_out", "not_found", "error", "skipped"]
FAILING: frozenset[str] = frozenset({"failed", "timed_out", "not_found", "error"})
# A check that could not run at all (its program missing or not executable, the shell not starting):
# it shows nothing about the workspace, so it is never passed and never excused.
COULD_NOT_RUN: frozenset[str] = frozenset({"not_found", "error"})


@dataclass(frozen=True)
class CheckResult:
    """What one check did when it ran (or why it did not). `output` is the tail of its combined
    stdout and stderr."""

    name: str
    command: str
    kind: str
    stage: int
    status: Status
    exit_code: int | None  # negative: killed by that signal; None: never ran
    duration: float
    output: str
    output_bytes: int  # everything it printed, of which `output` is the end
    reason: str  # one line for a person: "exit 1", "timed out after 300 s", ...

    @property
    def failing(self) -> bool:
        return self.status in FAILING

    @property
    def could_not_run(self) -> bool:
        return self.status in COULD_NOT_RUN

    @property
    def key(self) -> str:
        return check_key(self.name, self.command)


def kind_of(name: str, command: str) -> Kind:
    """The check's kind: from its name's words, else from its command's first words (module docstring)."""
    for words in (_words(name), _words(command)[:COMMAND_WORDS_READ]):
        for kind, vocabulary in _KIND_WORDS:
            if vocabulary.intersection(words):
                return kind
    return "other"


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def make_check(name: str, command: str, source: str) -> Check:
    return Check(name, command, kind_of(name, command), source)


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


@dataclass(frozen=True)
class Located:
    """Where a check's program is. `program`: as the command names it (None: the command line alone
    cannot tell, see `tiergate.gate.program`); `location`: its path, or "shell builtin"; `problem`:
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
    return ProjectFacts(names, pyproject, package if isinstance(package, dict) else {})


def signature(checks: tuple[Check, ...] | list[Check]) -> str:
    """One digest of a set of checks (names and commands, order ignored)."""
    return hashlib.sha256("\n".join(sorted(c.key for c in checks)).encode()).hexdigest()[:24]
