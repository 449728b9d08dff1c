"""The gate as a claim's Stop runs it: results kept for this very workspace are judged at once; else the
checks run in the background (`tiergate.gate.background`), bound to the workspace's evidence key, and the
Stop waits for them a while. What is not over by then is a `Pending`: the Stop blocks, saying where the
checks stand, and the next Stop reads the result. A claim is never judged on checks that have not
finished, nor refuted for tiergate's lack of time. See docs/judging.md, "A suite longer than a Stop".
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from tiergate.frozen import frozen
from tiergate.gate import background
from tiergate.gate import cache as evidencecache
from tiergate.gate.checks import CheckResult
from tiergate.gate.request import GateRequest
from tiergate.gate.reuse import requested_key
from tiergate.gate.ruling import GateResult
from tiergate.gate.run import run_gate
from tiergate.gate.runrequest import RunRequest
from tiergate.git import indexcopy
from tiergate.project import Project
from tiergate.text import duration
from tiergate.tier.change import ChangeMeasurement
from tiergate.tier.coverage.lines import GateCoverage

# The longest a Stop waits for the checks: none holds its agent for two minutes.
HOLD = 110.0
# A job that is expected to take longer than the Stop's hold is waited for only while it runs the tests
# the change affects (they may refute at once), and never for more than this.
FIRST_LOOK = 60.0
_POLL = 0.2
# How long a claim waits for the loop's baseline, begun at its start, before it ends it: a short suite's
# is about to finish, a long one's is not worth holding a wrong change's refutation for.
BASE_WAIT = 15.0
WAIT_COMMAND = "tiergate wait"


@frozen
class Pending:
    """The claim's checks still running in the background: what the Stop says instead of a verdict."""

    key: str
    text: str


def at_claim(
    project: Project,
    session_id: str,
    request: GateRequest,
    *,
    measure: Sequence[str] | None,
    change: ChangeMeasurement | None,
    hold: float,
) -> GateResult | Pending:
    """The gate's verdict on the workspace, or where its background run stands after `hold` seconds at
    most (the Stop's time left, within `HOLD`)."""
    key = requested_key(project, request, change)
    claim = RunRequest(request, measure=measure, change=change)
    until = time.monotonic() + hold  # all this Stop waits for, together
    if key is None:  # outside git: no workspace to bind a background run to; the checks run here
        return _judge(project, claim, None, budget=max(hold, 1.0))
    job = background.status(project)
    if job is not None and job.key == key and job.done:
        taken = take(project, key)
        if taken is not None:
            return _judge(project, claim, taken, ran_now=True)
    kept = evidencecache.load_evidence_and_coverage(project, key)
    if kept is not None:
        return _judge(project, claim, kept)
    if job is not None and job.key == key and job.died:
        _raise_if_failed(project, job)
    if job is None or job.key != key or job.over:
        if job is not None and job.kind == "baseline" and not job.over:
            job = background.wait(project, job.key, min(BASE_WAIT, _left(until)))
        if job is not None and job.running:
            # Another workspace's run (not this claim's evidence), or the loop's baseline still running:
            # ended first, so that nothing runs at the base beside the claim's code (what the baseline
            # lacks, the claim's job runs before its own checks).
            background.cancel(project)
        spec = {
            "key": key,
            "session_id": session_id,
            "measure": None if measure is None else list(measure),
            "request": request.to_record(),
            "workspace_base": request.base is not None and request.base in indexcopy.workspace_bases(),
            # The loop's start, from which index entries are read again (`indexcopy.read_again_since`).
            "read_again_from": indexcopy.read_again_from(),
        }
        from tiergate.gate.job import main

        background.start(project, spec, main)
    job = _wait(project, key, _left(until))
    if job is not None and job.done:
        taken = take(project, key)
        if taken is not None:
            return _judge(project, claim, taken, ran_now=True)
    if job is not None and job.key == key:
        _raise_if_failed(project, job)
    return Pending(key, running_text(job))


DIED = "its process ended before its checks did (killed, or the machine restarted)"


def _raise_if_failed(project: Project, job: background.Job) -> None:
    """A job that failed, or died without a word, is an error the loop reports (`claim_error`: blocked
    once, halted the second time in a row), never a claim left waiting: the checks that should judge it
    could not run. A job that died is recorded as failed, so that the next claim runs it afresh."""
    if job.died:
        background.write(project, replace(job, state="failed", note=DIED))
        raise RuntimeError(f"the background gate failed: {DIED}")
    if job.over and job.state == "failed":
        why = job.note or "see gate/job.log in the state folder"
        raise RuntimeError(f"the background gate failed: {why}")


def _left(until: float) -> float:
    return max(0.0, until - time.monotonic())


def take(project: Project, key: str) -> tuple[tuple[CheckResult, ...], GateCoverage | None] | None:
    """The results a background job kept for the workspace `key` names, removed as they are read: a
    check that timed out or could not run is shown once, never kept as the workspace's evidence."""
    kept = evidencecache.load_evidence_and_coverage(project, background.job_key(key))
    evidencecache.evidence_path(project, background.job_key(key)).unlink(missing_ok=True)
    return kept


def _wait(project: Project, key: str, hold: float) -> background.Job | None:
    """The job once over, or after `hold` seconds; a job expected to outlast the hold is waited for only
    while it runs its first pass (the tests the change affects), at most `FIRST_LOOK` seconds."""
    started = time.monotonic()
    while True:
        job = background.wait(project, key, min(1.0, hold))
        spent = time.monotonic() - started
        if job is None or job.key != key or job.over or spent >= hold:
            return job
        if _outlasts(job, hold - spent) and (job.phase != "first" or spent >= FIRST_LOOK):
            return job
        if spent + _POLL >= hold:
            return job


def _outlasts(job: background.Job, left: float) -> bool:
    """Whether the job is expected to run longer than `left` seconds more (its base time known)."""
    if job.base_seconds is None:
        return False
    return job.base_seconds - job.elapsed > left


def running_text(job: background.Job | None) -> str:
    """Where the checks stand, and what to do meanwhile, for the agent."""
    if job is not None and job.kind == "baseline":
        return "tiergate is running the loop's checks at its base in the background (once per loop)."
    where = "tiergate is running your checks in the background"
    if job is not None and job.state not in ("starting", "cancelled"):
        ran = duration(max(job.elapsed, time.time() - job.started))
        stages = {
            "first": "the tests your change affects, first",
            "base": "the checks at the loop's base, first",
        }
        stage = stages.get(job.phase, "the checks")
        where += f" ({stage}: {ran} so far"
        if job.base_seconds is not None:
            left = max(0.0, job.base_seconds - job.elapsed)
            where += (
                f"; they took {duration(job.base_seconds)} when the loop began, about {duration(left)} left"
            )
        where += ")"
    elif job is not None and job.state == "starting":
        where += " (starting: the run before it is finishing)"
    return (
        f"{where}. Your claim is not judged yet: neither refuted nor passed. Wait for them with "
        f"`{WAIT_COMMAND}` (it returns when they are done; give the command a timeout of 10 minutes), then "
        "end your turn again with your claim; or keep working: a workspace changed meanwhile gets a fresh "
        "run."
    )


def _judge(
    project: Project,
    claim: RunRequest,
    kept: tuple[tuple[CheckResult, ...], GateCoverage | None] | None,
    *,
    budget: float | None = None,
    ran_now: bool = False,
) -> GateResult:
    """The verdict on `kept` results (None: the checks run here, within `budget`); `ran_now`: they were
    run for this claim, by its background job, not kept from an earlier run."""
    # Judging what ran: nothing is run at the base now.
    result = run_gate(project, replace(claim, budget=budget if kept is None else 0.0, kept=kept))
    return replace(result, reused=False) if ran_now else result
