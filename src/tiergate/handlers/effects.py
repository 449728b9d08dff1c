"""What the loop's decisions ask of the outside world, done here: the gate run for a claim, the
workspace's dirtiness against the last green point, the rollback, the green mark, the halt's alert.

Imported only on the paths that need it (a claim, a verifier's verdict, a loop's start): it pulls in
git, the backups and the gate.
"""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.handlers.loopgate import gate_request
from tiergate.handlers.looprules import loop_config
from tiergate.loop.events import Outcome
from tiergate.loop.refutation import after_rollback
from tiergate.loop.state import LoopState

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tiergate.config.settings import Config
    from tiergate.gate.atclaim import Pending
    from tiergate.gate.ruling import GateResult
    from tiergate.project import Project
    from tiergate.tier.change import ChangeMeasurement


def begin_baseline(project: Project, current: LoopState) -> None:
    """The loop's checks at its base, begun in the background as the loop begins (`tiergate.gate.job`),
    the environment they run with recorded first (`record_environment`). Nothing when the base holds them
    all, a job runs already, or TIERGATE_BASELINE_AT_START is "0" (a machine that should run nothing the
    agent has not claimed). Never raised: a baseline not begun is run by the first claim."""
    import os

    from tiergate.handlers.environment import record_environment

    # Before any code of the agent's exists: no run at the base ever runs beside it, its first claim finds
    # each test's outcome and each check's time there, and no run has written to the environment yet.
    record_environment(project, current)
    if os.environ.get("TIERGATE_BASELINE_AT_START") == "0":
        return
    try:
        from tiergate.gate import background
        from tiergate.gate import cache as evidencecache
        from tiergate.gate.baseline import base_commit
        from tiergate.gate.job import main
        from tiergate.project import git_top_level

        if git_top_level(str(project.root)) is None:
            return
        request = gate_request(project, current, loop_config(project, current))
        commit = base_commit(project.root, request.base) if request.checks else None
        if commit is None:
            return
        known = evidencecache.load_baseline(project, commit)
        if all(c.key in known or c.key in request.strict for c in request.checks):
            return
        running = background.status(project)
        if running is not None and running.running:
            return
        spec = {
            "key": f"baseline:{commit}",
            "kind": "baseline",
            "session_id": current.session_id,
            "request": request.to_record(),
        }
        background.start(project, spec, main)
    except Exception as exc:
        _error(project, current.session_id, "baseline_start_error", exc)


def claim_gate(
    project: Project,
    current: LoopState,
    config: Config,
    measure: Sequence[str] | None = None,
    change: ChangeMeasurement | None = None,
    *,
    time_left: float | None = None,
) -> GateResult | Pending:
    """The gate's verdict on the claimed workspace against the loop's base, silently (stdout is the
    protocol's channel), or `Pending`: the checks run in the background (`tiergate.gate.atclaim`), and the
    Stop waits for them within `time_left` (the hook's time still free; None: not bounded here), never
    long. The test checks measure the line coverage of `measure` (the change's code files) as they run;
    `change` is the change from the loop's base, measured with nothing run since."""
    from tiergate.gate.atclaim import HOLD, at_claim

    hold = HOLD if time_left is None else max(0.0, min(HOLD, time_left))
    request = gate_request(project, current, config)
    return at_claim(project, current.session_id, request, measure=measure, change=change, hold=hold)


def task_gate(
    project: Project,
    current: LoopState,
    config: Config,
    measure: Sequence[str] | None,
    change: ChangeMeasurement,
    *,
    time_left: float | None = None,
) -> GateResult:
    """The gate on a completed task's workspace (`tiergate.handlers.task_completed`), run in its hook
    within `time_left` (None: the hook's limit, less what answering needs: `tiergate.hook.limits`; a hook
    killed at its limit decides nothing): it reuses what a claim kept for the same workspace;
    a claim never reuses a task's run (`tiergate.gate.run.run_gate`)."""
    from tiergate.gate.run import run_gate
    from tiergate.gate.runrequest import RunRequest
    from tiergate.hook.limits import time_for_waiting

    request = gate_request(project, current, config)
    budget = time_for_waiting("TaskCompleted") if time_left is None else max(0.0, time_left)
    task = RunRequest(request, budget=budget, measure=measure, change=change, for_task=True)
    return run_gate(project, task)


def dirty(project: Project, current: LoopState) -> bool | None:
    """Whether the workspace's files differ from the loop's last green point; None when that cannot
    be told (outside git, a damaged ref): the loop then treats it as clean and rolls nothing back."""
    from tiergate.workspace import greenpoint

    try:
        point = greenpoint.last_green(project, current.session_id, start=current.base)
        return greenpoint.is_dirty(project.root, point)
    except Exception as exc:
        _error(project, current.session_id, "dirty_check_error", exc)
        return None


def roll_back(project: Project, outcome: Outcome, now: float) -> Outcome:
    """Roll the workspace back to the last green point, the dirty state saved first as a backup."""
    from tiergate.errors import UserError
    from tiergate.workspace import greenpoint, putback

    current = outcome.state
    assert current is not None and outcome.rollback is not None
    point_text = "the last green point"
    try:
        point = greenpoint.last_green(project, current.session_id, start=current.base)
        point_text = point.describe()
        saved = putback.rollback(project, point.workspace, outcome.rollback)
    except UserError as exc:
        return after_rollback(outcome, now, backup=None, point=point_text, error=str(exc))
    except Exception as exc:
        _error(project, current.session_id, "rollback_error", exc)
        return after_rollback(
            outcome, now, backup=None, point=point_text, error=f"{type(exc).__name__}: {exc}"
        )
    return after_rollback(
        outcome,
        now,
        backup=saved.name if saved else None,
        point=point_text,
        ref=saved.ref if saved else None,
    )


def follow_up(project: Project, session_id: str, outcome: Outcome) -> Outcome:
    """After the state is stored: mark a passed workspace green, send a halt's alert; what happened
    goes into the decision's log record."""
    from dataclasses import replace

    logged: list[tuple[str, object]] = []
    if outcome.green:
        logged.append(("green", mark_green(project, session_id, "verification passed")))
    if outcome.alert is not None:
        sent = alert(project, session_id, outcome.alert, outcome.state)
        if sent is not None:
            logged.append(("alert", sent))
    return replace(outcome, logged=(*outcome.logged, *logged))


def alert(project: Project, session_id: str, message: str, current: LoopState | None) -> str | None:
    """Run the `[alerts] command` of the loop's rules (`current`'s; the project's without a loop) with
    the halt's message; what happened, in one line (None: no command configured)."""
    from tiergate.alerts import notify
    from tiergate.config.settings import load_config

    try:
        settings = (load_config(project.root) if current is None else loop_config(project, current)).alerts
    except Exception as exc:
        _error(project, session_id, "alert_error", exc)
        return f"not sent: {type(exc).__name__}: {exc}"
    sent = notify(settings.command, message, cwd=project.root, timeout=settings.timeout_seconds)
    return None if sent is None else f"{settings.command}: {sent.detail}"


def mark_start(project: Project, session_id: str, base: str | None, differs: bool | None = None) -> None:
    """A loop's first green point, when the workspace it starts on is not its base commit (the user's
    uncommitted or untracked work): a rollback then never goes behind it. A clean start writes nothing:
    its base already is the green point (`greenpoint.last_green` falls back to it). `differs`: whether
    any path differed from `base`, as the loop's start just measured it (None: asked of git now)."""
    from tiergate.git import changes, repository, untracked

    try:
        if differs is None:
            root = repository.repo_root(project.root)
            differs = base is None or bool(
                changes.changed_paths(root, base) or untracked.untracked_files(root, base)
            )
        if base is not None and not differs:
            return
    except Exception as exc:
        _error(project, session_id, "green_mark_error", exc)
        return
    mark_green(project, session_id, "loop start")


def mark_green(project: Project, session_id: str, why: str) -> str:
    """Record the workspace as the loop's green point; returns its snapshot, or what went wrong (never
    raised: the loop then falls back to its start commit)."""
    from tiergate.workspace import greenpoint

    try:
        return greenpoint.mark(project, session_id, why)
    except Exception as exc:
        _error(project, session_id, "green_mark_error", exc)
        return f"not marked: {type(exc).__name__}: {exc}"


def _error(project: Project, session_id: str, event: str, exc: Exception) -> None:
    from tiergate.log import record_error

    record_error(project, event, session_id, exc)
