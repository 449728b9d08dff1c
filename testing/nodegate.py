"""The gate on a repository's JavaScript change, run by `node --test` with the changed lines' mutants, as
the node mutants' tests drive it: each mutant's fate readable, and the mutants the gate ran in processes
of its own (rather than in the check's) noted."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from testing.measuredgate import measured_gate
from tiergate.gate.mutation import nodestep, step
from tiergate.gate.request import MutantBounds
from tiergate.gate.ruling import GateResult
from tiergate.tier.mutation.fates import MutationRun
from tiergate.tier.mutation.mutants import Mutant

BASE_TEST = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n\n"
    "test('nothing', () => assert.ok(true));\n"
)
# A repository's base: a passing test file and a package.json (CommonJS).
BASE_FILES = {"test/base.test.js": BASE_TEST, "package.json": json.dumps({"name": "p"})}


class NodeGate:
    """A gate run on `repo` by `node --test`, noting which mutants it ran in processes of their own
    (`own_process`), which kills of the check's processes it ran again in processes of their own
    (`confirmed`), and the copies that behave the same it ran there (`copies`), each with its test files.
    Every mutant is run, survivors or not, unless `capped`: the tests see each mutant's fate."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, capped: bool = False, command: str = "node --test"
    ) -> None:
        self.command = command
        if not capped:
            monkeypatch.setattr(step, "AFTER_SURVIVOR", 1e6)
        self.own_process: list[tuple[str, tuple[str, ...]]] = []
        self.confirmed: list[tuple[str, tuple[str, ...]]] = []
        self.copies: list[tuple[str, tuple[str, ...]]] = []
        into = [self.own_process]
        fails = nodestep._Trial.fails

        def noted(trial: nodestep._Trial, mutant: Mutant, tests: Sequence[str]) -> bool:
            into[-1].append((mutant.describe(), tuple(tests)))
            return fails(trial, mutant, tests)

        monkeypatch.setattr(nodestep._Trial, "fails", noted)
        for name, runs in (("confirm", self.confirmed), ("no_change", self.copies)):
            monkeypatch.setattr(nodestep._Trial, name, _noting(getattr(nodestep._Trial, name), into, runs))

    def __call__(self, repo: Path) -> tuple[GateResult, MutationRun]:
        result = measured_gate(repo, self.command, mutants=MutantBounds())
        assert result.coverage is not None and result.coverage.mutation is not None
        [verdict] = result.verdicts
        assert verdict.result.status == "passed", verdict.result.output
        return result, result.coverage.mutation


def _noting(method: Callable[..., Any], into: list[list[Any]], runs: list[Any]) -> Callable[..., Any]:
    """`method`, noting the runs it makes in `runs` rather than where `into` says."""

    def noting(*args: Any) -> Any:
        into.append(runs)
        try:
            return method(*args)
        finally:
            into.pop()

    return noting


def fates(run: MutationRun) -> dict[tuple[int, str], tuple[str, str]]:
    """Each mutant's fate and by whom, by its line and its replacement."""
    return {(t.mutant.line, t.mutant.replacement): (t.fate, t.by) for t in run.tried}


def said(run: MutationRun, gate: NodeGate) -> str:
    """What a failed assertion on `run` shows: the fates, why the step stopped, and each run of the gate's
    own."""
    return (
        f"fates={fates(run)}\nincomplete={run.incomplete!r} void={run.void!r}\nown={gate.own_process}\n"
        f"confirmed={gate.confirmed}\ncopies={gate.copies}"
    )
