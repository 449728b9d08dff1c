"""TaskCompleted: a task of Claude Code's task list marked completed (exit 2 keeps it open). Inside an
active loop it is a step claim (docs/judging.md, "A completed task is a step claim"): the gate runs as
at a claim's Stop (each reuses what the other kept for the same workspace) and is read for regressions
only, one refusing the completion; no verifier, nothing of the loop changes, the decision is logged.
Outside a loop the event passes, as does a task tiergate could not check: it says so in one line.
"""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.loop import store as state

if TYPE_CHECKING:
    from typing import Any

    from tiergate.gate.ruling import GateResult
    from tiergate.hook.inputs import TaskCompletedInput
    from tiergate.hook.protocol import HookReply
    from tiergate.loop.state import LoopState
    from tiergate.project import Project

EVENT = "TaskCompleted"
SUBJECT_KEPT = 200  # characters of the task's subject kept in the decision log


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    from tiergate.hook.inputs import parse_input

    task = parse_input("TaskCompleted", payload)
    try:
        current = state.read(project, task.session_id)
    except state.StateError as exc:
        return _unchecked(project, task, None, f"the loop's state is not trustworthy ({exc})")
    if current is None or not current.active:
        return None
    try:
        result = step_gate(project, current)
    except Exception as exc:
        from tiergate.log import record_error

        record_error(project, "task_check_error", task.session_id, exc)
        return _unchecked(
            project, task, current, f"its checks could not be run ({type(exc).__name__}: {exc})"
        )
    return _decide(project, task, current, result)


def step_gate(project: Project, current: LoopState) -> GateResult:
    """The gate on the workspace as a claim's Stop runs it (`handlers.claimmeasure.measure`): the loop's
    kept configuration and exclusions, its base, the change's code files for the coverage its tests take;
    the same evidence key, so that a task reuses what a claim kept; its own run is kept apart (a claim
    never stands on a task's run: a flaky test may pass once for a task marked completed again and again)."""
    from tiergate import foreign
    from tiergate.handlers import effects, looprules
    from tiergate.tier.change import measure_change
    from tiergate.tier.coverage.judgement import measurable_files
    from tiergate.workspace import loopbase

    config = looprules.loop_config(project, current)  # the rules it started with, not the file now
    exclusions = foreign.of_loop(current)
    # The workspace the loop began on (its objects copied back when something pruned them), else its base.
    loopbase.judging(current.started_at)
    base = loopbase.change_base(project, current.start, current.base) or "HEAD"
    change = measure_change(project.root, base, exclusions)  # no patch: no content rule reads it here
    return effects.task_gate(project, current, config, measurable_files(change), change)


def _decide(
    project: Project, task: TaskCompletedInput, current: LoopState, result: GateResult
) -> HookReply | None:
    """Refuse the completion when the gate shows a regression, else let it through; logged either way
    with the gate's run, the loop as it was."""
    from tiergate.gate.regressions import judge_step, refusal, unfinished_notice
    from tiergate.handlers import common
    from tiergate.loop.events import Outcome

    held, remaining = acceptance_checks(current)
    ruling = judge_step(result, held=held, remaining=remaining)
    refused = ruling.refused
    outcome = Outcome(
        current,
        "task-refused" if refused else "task-accepted",
        ruling.reasons,
        message=None if refused else unfinished_notice(task.task_id, ruling) or None,
        redo=refusal(task.task_id, task.task_subject, ruling) if refused else None,
        logged=(*_task_fields(task), ("gate", result.to_dict())),
    )
    common.log_outcome(project, EVENT, task.session_id, outcome)
    return common.reply(outcome)


def acceptance_checks(current: LoopState) -> tuple[frozenset[str], frozenset[str]]:
    """An autopilot's acceptance checks among the gate's, by key: the done features' (they passed when
    their feature was accepted, and must keep passing) and the current feature's (the loop's work)."""
    if not current.features:
        return frozenset(), frozenset()
    from tiergate.gate.checks import check_key
    from tiergate.loop import features

    chosen = features.current(current.features, current.approach)
    remaining = frozenset(check_key(n, c) for n, c in (chosen.check_names() if chosen else ()))
    every = features.gate_checks(current.features, current.approach, current.done)
    return frozenset(check_key(n, c) for n, c in every) - remaining, remaining


def _unchecked(
    project: Project, task: TaskCompletedInput, current: LoopState | None, problem: str
) -> HookReply:
    """A task tiergate could not check goes through: logged, and the user told in one line."""
    from tiergate.handlers import common
    from tiergate.loop.events import Outcome
    from tiergate.text import quote_inline

    said = (
        f"tiergate: task #{quote_inline(task.task_id)} was marked completed unchecked: {problem}. "
        "tiergate never refuses a task for its own failure."
    )
    reasons = (f"task-unchecked: {problem}: the completion goes through",)
    outcome = Outcome(current, "task-unchecked", reasons, message=said, logged=_task_fields(task))
    common.log_outcome(project, EVENT, task.session_id, outcome)
    reply = common.reply(outcome)
    assert reply is not None
    return reply


def _task_fields(task: TaskCompletedInput) -> tuple[tuple[str, object], ...]:
    return (("task_id", task.task_id), ("task_subject", task.task_subject[:SUBJECT_KEPT]))
