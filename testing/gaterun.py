"""A gate run as tests and benches ask for one: the checks against a base, with a timeout of the run's
own (no limits following the base), and any other option of the request or of the run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from tiergate.gate.checks import Check
from tiergate.gate.processes import DEFAULT_TIMEOUT
from tiergate.gate.request import GateRequest
from tiergate.gate.ruling import GateResult
from tiergate.gate.run import run_gate
from tiergate.gate.runrequest import RunRequest
from tiergate.project import Project

_OF_REQUEST = {f.name for f in fields(GateRequest)}


def gate_run(
    project: Project,
    base: str | None,
    checks: Sequence[Check],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    **options: Any,
) -> GateResult:
    """`run_gate` of `checks` at `base`; `options`: `GateRequest`'s (strict, mutants...) or `RunRequest`'s."""
    asked = {k: v for k, v in options.items() if k in _OF_REQUEST}
    run = {k: v for k, v in options.items() if k not in _OF_REQUEST}
    request = GateRequest(base, tuple(checks), **asked)
    return run_gate(project, RunRequest(request, timeout=timeout, **run))
