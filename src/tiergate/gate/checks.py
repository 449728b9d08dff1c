"""The check records (a check, what it did when it ran) and each check's kind, which sets its stage.

Syntax and build checks are the compile stage, run first; lint, types, tests and the rest the behaviour
stage. The kind is read from the check's name, else its command. See docs/judging.md, "Running a
check". Pure.
"""

from __future__ import annotations

import hashlib
import re
from typing import Literal

from tiergate.frozen import frozen
from tiergate.gate.pertest.record import TestRun

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


@frozen
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


Status = Literal["passed", "failed", "timed_out", "not_found", "error", "skipped", "no_tests"]
FAILING: frozenset[str] = frozenset({"failed", "timed_out", "not_found", "error", "no_tests"})
# A check that could not run at all (its program missing or not executable, the shell not starting),
# or a test check that ran not one test (`tiergate.gate.testevidence`): it shows nothing about the
# workspace, so it is never passed and never excused.
COULD_NOT_RUN: frozenset[str] = frozenset({"not_found", "error", "no_tests"})
# How a result the gate's time budget cut short (or left unrun) ends its reason: tiergate's lack of time,
# not the check's doing (`tiergate.gate.run`).
OUT_OF_TIME = "the gate's time budget ran out"


@frozen
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
    tests: TestRun | None = None  # a test check's tests, test by test, when its runner is known
    # What its processes read outside the claim's copy and the environment (`tiergate.gate.imported`).
    read_outside: tuple[str, ...] = ()

    @property
    def failing(self) -> bool:
        return self.status in FAILING

    @property
    def could_not_run(self) -> bool:
        return self.status in COULD_NOT_RUN

    @property
    def out_of_time(self) -> bool:
        """Cut short, or never started, for lack of the gate's time: no fact about the check."""
        return self.status == "timed_out" and self.reason.endswith(OUT_OF_TIME)

    @property
    def key(self) -> str:
        return check_key(self.name, self.command)


def kind_of(name: str, command: str) -> Kind:
    """The check's kind: from its name's words, else from its command's first words (docs/judging.md)."""
    for words in (_words(name), _words(command)[:COMMAND_WORDS_READ]):
        for kind, vocabulary in _KIND_WORDS:
            if vocabulary.intersection(words):
                return kind
    return "other"


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def make_check(name: str, command: str, source: str) -> Check:
    return Check(name, command, kind_of(name, command), source)


def signature(checks: tuple[Check, ...] | list[Check]) -> str:
    """One digest of a set of checks (names and commands, order ignored)."""
    return hashlib.sha256("\n".join(sorted(c.key for c in checks)).encode()).hexdigest()[:24]
