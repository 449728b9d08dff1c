"""The background gate's process: `python -I -c ... <project root> <state folder>`, started detached by a
claim's Stop (`tiergate.gate.background.start`).

Holding the project's job lock, it runs what its spec asks: a claim's checks by the loop's rules, with no
budget (the whole baseline first), or at the loop's start the checks at its base; and keeps what it found
for the next Stop. SIGTERM (`tiergate cancel`, the session's end, another workspace's claim) ends it.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

from tiergate.gate import background
from tiergate.gate.processes import ProgressEvent
from tiergate.gate.request import GateRequest
from tiergate.gate.standing import BaselineEntry
from tiergate.project import Project

# How often the job's record is rewritten with where it stands, at most.
REPORT_EVERY = 2.0


class _Cancelled(BaseException):
    """SIGTERM: the job is to end, its checks with it."""


def main(argv: list[str]) -> int:
    project = Project(Path(argv[0]), Path(argv[1]))
    # Held until the process ends: the kernel drops it however it ends.
    locked = background.lock(project)
    spec = background.read_spec(project)
    job = background.status(project)
    if job is None or job.key != spec.get("key") or job.state != "starting":
        return 0  # cancelled, or another claim's job started after this one: nothing to run
    if locked is None:
        why = "another process holds gate/job.lock in the state folder and does not let go"
        background.write(project, replace(job, state="failed", note=why))
        return 1
    job = replace(job, pid=os.getpid(), started=time.time(), running=True, state="running")
    background.write(project, job)
    signal.signal(signal.SIGTERM, _cancel)
    reporter = _Reporter(project, job)
    try:
        if job.kind == "baseline":
            _baseline(project, spec, reporter)
        else:
            _run(project, spec, reporter)
    except _Cancelled:
        reporter.finish("cancelled", "cancelled")
        return 143
    except BaseException as exc:
        traceback.print_exc()
        reporter.finish("failed", f"{type(exc).__name__}: {exc}")
        return 1
    return 0


def _cancel(signum: int, frame: FrameType | None) -> None:
    raise _Cancelled


def _request(spec: dict[str, Any]) -> GateRequest:
    """The request the Stop (or the loop's start) wrote, measured from the workspace the loop began on as
    every hook of the loop measures it."""
    from tiergate.git import indexcopy

    request = GateRequest.from_record(spec["request"])
    if spec.get("workspace_base") and request.base is not None:
        indexcopy.measure_from_workspace(request.base)
    since = spec.get("read_again_from")
    if isinstance(since, (int, float)):
        indexcopy.read_again_since(float(since))
    return request


def _baseline(project: Project, spec: dict[str, Any], reporter: _Reporter) -> None:
    """The loop's checks at its base, begun when the loop begins: before the agent's code exists, and
    so never beside it; a claim that comes before it ends ends it and runs what is missing itself."""
    from tiergate.gate import baseline
    from tiergate.gate.processes import Running

    request = _request(spec)
    commit = baseline.base_commit(project.root, request.base)
    if commit is not None:
        unexcused = [c for c in request.checks if c.key not in request.strict]
        running = Running(timeout=request.timeout, progress=reporter.base)
        baseline.ensure_baseline(project, commit, unexcused, running, start=request.start)
    reporter.finish("done", "")


def _run(project: Project, spec: dict[str, Any], reporter: _Reporter) -> None:
    """The claim's gate run, as the Stop that started the job asked for it: the whole baseline first
    where the base lacks some of it, then the claim's checks (`run_gate`'s `whole_base`)."""
    from tiergate.gate import baseline
    from tiergate.gate import cache as evidencecache
    from tiergate.gate.reuse import requested_key
    from tiergate.gate.run import run_gate
    from tiergate.gate.runrequest import RunRequest

    request = _request(spec)
    key = requested_key(project, request)
    if key is None or key != spec["key"]:
        reporter.finish("changed", "the workspace changed before the checks began")
        return
    commit = baseline.base_commit(project.root, request.base)
    reporter.known(evidencecache.load_baseline(project, commit) if commit else {})
    claim = RunRequest(request, progress=reporter.claim, measure=spec.get("measure"), whole_base=True)
    result = run_gate(project, claim)
    if result.workspace_changed:
        reporter.finish("changed", "the workspace changed while the checks ran")
        return
    results = tuple(v.result for v in result.verdicts)
    evidencecache.store_evidence(project, background.job_key(key), results, coverage=result.coverage)
    reporter.finish("done", "")


class _Reporter:
    """Keeps the job's record saying where it stands: its phase, how long its checks have run, what the
    slowest took at the base."""

    def __init__(self, project: Project, job: background.Job) -> None:
        self.project = project
        self.job = job
        self.durations: dict[str, float] = {}  # each check's time at the base, as far as known
        self._written = 0.0
        self._began = time.monotonic()

    def known(self, entries: Mapping[str, BaselineEntry]) -> None:
        self.durations.update({k: e.result.duration for k, e in entries.items()})

    def claim(self, event: ProgressEvent) -> None:
        from tiergate.gate.firstpass import NAME_SUFFIX

        if event.label == "baseline":
            self.base(event)
            return
        phase = "first" if event.check.name.endswith(NAME_SUFFIX) else "suite"
        self._update(phase=phase)

    def base(self, event: ProgressEvent) -> None:
        if event.event == "end" and event.result is not None:
            self.durations[event.check.key] = event.result.duration
        self._update(phase="base")

    def _update(self, **changes: Any) -> None:
        now = time.monotonic()
        moved = changes.get("phase", self.job.phase) != self.job.phase
        self.job = replace(self.job, elapsed=now - self._began, base_seconds=self._base_seconds(), **changes)
        if moved or now - self._written >= REPORT_EVERY:
            self._written = now
            self._write()

    def _base_seconds(self) -> float | None:
        return max(self.durations.values()) if self.durations else self.job.base_seconds

    def finish(self, state: str, note: str) -> None:
        self.job = replace(self.job, state=state, note=note, elapsed=time.monotonic() - self._began)
        self._write()

    def _write(self) -> None:
        try:
            now = background.status(self.project)
            if now is not None and now.state == "cancelled" and self.job.state != "cancelled":
                return  # a cancel's word stands
            background.write(self.project, self.job)
        except Exception:
            print("tiergate: could not write the job's record", file=sys.stderr)
