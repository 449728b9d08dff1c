"""The gate run on a repository's working tree as a claim runs it, measuring the change: one test check,
its coverage taken and, when asked, the changed lines' mutants run."""

from __future__ import annotations

from pathlib import Path

from testing.gaterun import gate_run
from testing.pytestcheck import PYTEST
from testing.statefolder import state_dir
from tiergate.gate.checks import make_check
from tiergate.gate.processes import DEFAULT_TIMEOUT
from tiergate.gate.request import MutantBounds
from tiergate.gate.ruling import GateResult
from tiergate.project import Project
from tiergate.tier.change import measure_change
from tiergate.tier.coverage.judgement import measurable_files


def measured_gate(
    repo: Path,
    command: str = PYTEST,
    *,
    mutants: MutantBounds | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> GateResult:
    """The gate on `repo`'s change with the test check `command`, within `timeout` a check."""
    change = measure_change(repo)
    return gate_run(
        Project(repo, state_dir(repo)),
        None,
        [make_check("tests", command, "test")],
        timeout=timeout,
        measure=measurable_files(change),
        change=change,
        mutants=mutants,
    )
