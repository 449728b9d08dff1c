"""Stop: the main agent wants to end its turn. A claim is measured here (the costly part), once."""

from __future__ import annotations

import time

from tiergate import foreign
from tiergate.frozen import frozen
from tiergate.handlers import common
from tiergate.loop import store as state
from tiergate.loop.claims import ClaimCheck, check_claim
from tiergate.loop.decision import empty_turn, wants_claim_facts
from tiergate.loop.events import ClaimFacts, GateFacts, Stop
from tiergate.loop.refutation import may_stand_refuted, refutation_for
from tiergate.loop.state import POLICIES, LoopState, Policies
from tiergate.workspace import fingerprint, loopbase

# Not `from typing import TYPE_CHECKING`: importing typing alone costs a hook several milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from tiergate.config.settings import Config
    from tiergate.foreign import Exclusions
    from tiergate.hook.inputs import StopInput
    from tiergate.hook.protocol import HookReply
    from tiergate.loop.goal import GoalAtStop
    from tiergate.offload import Staged
    from tiergate.project import Project
    from tiergate.tier.assess import Assessment
    from tiergate.tier.change import ChangeMeasurement
    from tiergate.tier.changedlines import ContentScan

# stop_reason values of a turn that ended normally; any other one (an API error, a context or output
# limit, a refusal) is a stop tiergate never blocks.
NORMAL_STOP_REASONS = frozenset({"end_turn", "stop_sequence", "tool_use", "pause_turn"})
PATHS_KEPT = 30
# What a Stop keeps of its limit (hooks/hooks.json, `tiergate.hook.limits`) beyond what it waits for (the
# goal evaluator's answer): the answer's time to be written.
ANSWER_MARGIN = 30.0
# What a Stop keeps, of that, for judging and answering once a run at the base is done.
BASE_RUN_MARGIN = 30.0


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    """The Stop's answer. An active loop whose state cannot be trusted (not tiergate's writing, gone,
    unwritable) or whose decision fails unexpectedly fails closed (`tiergate.handlers.failclosed`):
    the one exception to the hook's fail-open rule, so that no claim ever goes through unchecked."""
    started = time.monotonic()
    # Begun before the rest of the start-up, which then costs the claim no time (see `_begin`).
    early = _begin(payload, project)
    try:
        return _handle(payload, project, early, started)
    finally:
        if early is not None:
            early.cancel()  # nothing once its answers were read


def _handle(
    payload: dict[str, Any], project: Project, early: Early | None, started: float
) -> HookReply | None:
    from tiergate.handlers import failclosed
    from tiergate.hook.inputs import parse_input

    stop = parse_input("Stop", payload)
    try:
        current = state.read(project, stop.session_id)
    except state.StateError as exc:
        return failclosed.stop(project, stop.session_id, f"is not trustworthy ({exc})", damaged=True)
    if current is None:
        lost = failclosed.lost(project, stop.session_id)
        return None if lost is None else failclosed.stop(project, stop.session_id, lost)
    if not current.active or failclosed.halted_before(project, stop.session_id, current):
        return None
    try:
        reply = decide_stop(payload, project, stop, current, early, started)
    except Exception as exc:
        problem = _unexpected(project, current, exc)
        return failclosed.stop(project, stop.session_id, problem, current)
    failclosed.sound(project, stop.session_id)
    return reply


@frozen
class Early:
    """A claim's measurement begun at the Stop's start (`_begin`), in a child (`tiergate.offload`): the
    change, then the built-in content rules' judgement of it (none when the patch was not asked for, or
    the kept configuration adds rules of its own: `built_in` False)."""

    base: str
    with_patch: bool
    built_in: bool
    work: Staged[ChangeMeasurement, ContentScan]

    def cancel(self) -> None:
        self.work.cancel()


def _begin(payload: dict[str, Any], project: Project) -> Early | None:
    """The claim's measurement, begun in a child before the input is validated in full and the
    configuration loaded (pydantic's import, most of the Stop's start-up, runs meanwhile): only when the
    raw input already shows a claim that `decide_stop` will measure, by the same rules, and with what the
    loop's state says of the measurement (its base, its exclusions, whether its kept configuration asks
    for the patch). `measure` uses it only where the validated configuration agrees. Measuring changes
    nothing, and any doubt means none: it is only ever time saved."""
    try:
        current = state.read(project, payload["session_id"])
        message = payload.get("last_assistant_message")
        if (
            current is None
            or not current.active
            or current.adopted is not None
            or not isinstance(message, str)
        ):
            return None
        claim = check_claim(message, current.promise)
        if not _measures(current, claim, background_work(payload), api_error(payload)):
            return None
        if may_stand_refuted(current):
            return None
        # A loop begun on a dirty workspace measures from it; when its objects must be copied back
        # first (`loopbase.change_base`), that waits for the input to be known good.
        if current.start is not None:
            loopbase.measure_from_start(current.start)
            if not loopbase.start_present(project, current.start):
                return None
        loopbase.judging(current.started_at)
    except Exception:
        return None
    from tiergate import offload

    base, exclusions = current.change_base or "HEAD", foreign.of_loop(current)
    with_patch, built_in = _content_kept(current)
    root = project.root

    def change() -> ChangeMeasurement:
        from tiergate.tier.change import measure_change

        return measure_change(root, base, exclusions, with_patch)

    content = _built_in_content if built_in else _no_content
    return Early(base, with_patch, built_in, offload.start_staged(change, content))


def _content_kept(current: LoopState) -> tuple[bool, bool]:
    """Whether the loop's kept configuration has content rules on, and whether they are the built-in
    ones alone (no `[[risk.rules]]`), as far as its raw data says (the default is on, with none);
    `measure` checks both against the validated configuration."""
    risk = current.config.get("risk") if current.config is not None else None
    risk = risk if isinstance(risk, dict) else {}
    on = risk.get("content") is not False
    return on, on and not risk.get("rules")


def _built_in_content(change: ChangeMeasurement) -> ContentScan:
    from tiergate.tier.changedlines import judge_change
    from tiergate.tier.content import DEFAULT

    return judge_change(change, DEFAULT)


def _no_content(change: ChangeMeasurement) -> ContentScan:
    from tiergate.tier.changedlines import ContentScan

    return ContentScan(())


def _unexpected(project: Project, current: LoopState, exc: Exception) -> str:
    """What went wrong while the loop decided a claim, said as a problem of its state; logged if it can be."""
    import contextlib

    with contextlib.suppress(Exception):
        _log_error(project, current.session_id, exc)
    if isinstance(exc, OSError):
        return f"could not be written ({type(exc).__name__}: {exc})"
    return f"could not be decided (internal error {type(exc).__name__}: {exc})"


def decide_stop(
    payload: dict[str, Any],
    project: Project,
    stop: StopInput,
    current: LoopState,
    early: Early | None = None,
    started: float | None = None,
) -> HookReply | None:
    """An active loop's Stop, its state sound: measure the claim if there is one, decide, store, log.
    `started`: when the hook began (`time.monotonic`), which bounds what it may still wait for."""
    message = stop.last_assistant_message
    if message is None:  # a CLI too old to send it: read from the transcript
        from tiergate import transcript

        message = transcript.last_assistant_text(stop.transcript_path)
    claim, alive, gone = _claim(payload, project, current, message)
    background = background_work(payload)
    error = api_error(payload)
    measured = Measured()
    workspace: str | None = None
    # The workspace the loop began on (the user's own edits are not the loop's), or its base commit.
    loopbase.judging(current.started_at)
    base = loopbase.change_base(project, current.start, current.base)
    watches_goal = current.adopted == "goal" and not background and error is None
    if watches_goal and current.phase == "passed":
        # Under a goal a stop on a workspace changed since the PASS is a claim again: fingerprint first.
        workspace = fingerprint.fingerprint(project.root, base, foreign.of_loop(current))
    if _measures(current, claim, background, error, workspace):
        # A claim on a workspace already refuted is answered from the state alone: fingerprint first.
        if may_stand_refuted(current) and workspace is None:
            workspace = fingerprint.fingerprint(project.root, base, foreign.of_loop(current))
        if refutation_for(current, workspace) is None:
            measured = measure(project, current, early, started)
            workspace = measured.workspace
    if workspace is None:
        workspace = fingerprint.fingerprint(project.root, base, foreign.of_loop(current))
    empty = empty_turn(current, claim, workspace) if measured.facts is None else 0
    if empty > 0:
        measured = stalled_approach(project, current, empty)
    from tiergate.log import log_path

    event = Stop(
        message=message,
        claim=claim,
        fingerprint=workspace,
        prompt_id=stop.prompt_id,
        stop_hook_active=stop.stop_hook_active,
        background=background,
        api_error=error,
        claim_facts=measured.facts,
        claim_error=measured.problem,
        checks_running=measured.pending,
        gate=measured.gate,
        dirty=measured.dirty,
        policies=measured.policies,
        foreign_alive=alive,
        foreign_gone=gone,
        log=str(log_path(project)),
        goal=_goal(stop, message, started) if watches_goal else None,
    )
    return common.reply(common.apply(project, "Stop", stop.session_id, event))


def _measures(
    current: LoopState,
    claim: ClaimCheck,
    background: tuple[str, ...] | None,
    error: str | None,
    workspace: str | None = None,
) -> bool:
    """Whether a Stop measures its claim (unless a refutation of the same workspace stands): the loop
    wants its facts (`workspace`: the fingerprint, when already taken), nothing is in flight
    (`background`), and no API error ended the turn. `_begin` asks it too, of the raw input."""
    return wants_claim_facts(current, claim, workspace) and not background and error is None


def _goal(stop: StopInput, message: str | None, started: float | None) -> GoalAtStop | None:
    """The adopted goal at this Stop, with the evaluator's answer to it (waited for: `handlers.goal`),
    never past `_answer_by()` seconds into the hook: one Claude Code kills at its timeout decides nothing."""
    from tiergate.handlers import goal

    spent = 0.0 if started is None else time.monotonic() - started
    wait = max(0.0, min(goal.EVALUATION_WAIT, _answer_by() - spent))
    return goal.at_stop(stop.transcript_path, message, wait)


def _claim(
    payload: dict[str, Any], project: Project, current: LoopState, message: str | None
) -> tuple[ClaimCheck, bool, str]:
    """The Stop's claim, and for an adopted loop whether its own plugin still runs (and if not, why)."""
    if current.adopted is None:
        return check_claim(message, current.promise), False, ""
    from tiergate.handlers import adoption

    claim = adoption.claim(payload, project, current, message)
    alive, gone = (False, "") if claim.claimed else adoption.foreign_at_stop(payload, project, current)
    return claim, alive, gone


def background_work(payload: dict[str, Any]) -> tuple[str, ...] | None:
    """What Claude Code reports in flight ("Empty array when nothing is in flight"); None if not reported."""
    tasks = payload.get("background_tasks")
    if not isinstance(tasks, list):
        return None
    return tuple(_describe(task) for task in tasks)


def _describe(task: object) -> str:
    if not isinstance(task, dict):
        return str(task)[:100]
    for key in ("description", "command", "agent_type", "type", "id"):
        if isinstance(task.get(key), str) and task[key]:
            return str(task[key])[:100]
    return "unnamed task"


def api_error(payload: dict[str, Any]) -> str | None:
    """The API error the input reports as ending the turn, if any."""
    error = payload.get("error")
    if isinstance(error, str) and error:
        return error
    reason = payload.get("stop_reason")
    if isinstance(reason, str) and reason and reason not in NORMAL_STOP_REASONS:
        return reason
    return None


@frozen
class Measured:
    """What a claim's Stop measured: the tier and change, the gate, dirtiness (only when the gate
    refutes: it decides the intervention), or why the claim could not be checked."""

    facts: ClaimFacts | None = None
    problem: str | None = None
    workspace: str | None = None  # the fingerprint, from the same measurement
    gate: GateFacts | None = None
    dirty: bool | None = None
    policies: Policies = POLICIES
    pending: str | None = None  # the checks still run in the background: where they stand


def measure(
    project: Project, current: LoopState, early: Early | None = None, started: float | None = None
) -> Measured:
    """The claim's tier and change, and the gate's verdict on the workspace, or why they could not
    be had (`started`: when the hook began, which bounds the runs at the base the tier may still ask for).

    Any error is caught here on purpose: the loop decides what an unchecked claim means (see
    `tiergate.loop.decision`), and the traceback goes to the log."""
    try:
        from tiergate.gate.atclaim import Pending
        from tiergate.handlers import effects
        from tiergate.tier.assess import Given, assess_change
        from tiergate.tier.coverage.judgement import measurable_files

        config = effects.loop_config(project, current)  # the rules it started with, not the file now
        exclusions = foreign.of_loop(current)  # the rules every hook of this loop uses
        base = current.change_base or "HEAD"  # the workspace as the loop began, when it was dirty
        change, content = _change_and_content(project, config, exclusions, base, early)
        # The gate first: its tests measure the change's coverage, and the tier is judged on that.
        code = measurable_files(change)
        ran = effects.claim_gate(project, current, config, code, change, time_left=_time_left(started))
        if isinstance(ran, Pending):
            return Measured(workspace=fingerprint.of_change(change), pending=ran.text)
        gate, coverage, thorough = effects.gate_facts(ran)
        # After the checks ran: what changed in their environment since the loop began, up to now.
        thorough = (
            *thorough,
            *effects.links_out_reasons(project, change),
            *effects.compiled_reasons(change),
            *effects.declared_reasons(project, current, config),
            *effects.environment_reasons(project, current, change.paths),
        )
        if not gate.refuted:
            content = _with_answers(content, project, config, base, change, _time_to_hold(started))
        workspace = fingerprint.of_change(change)
        given = Given(
            exclusions=exclusions,
            change=change,
            gate_coverage=coverage,
            content=content,
            failing_then=gate.failing_then,
        )
        assessment = assess_change(project.root, base=base, prompt=current.task, config=config, given=given)
        dirty = effects.dirty(project, current) if gate.refuted else None
    except Exception as exc:
        from tiergate.errors import UserError

        _log_error(project, current.session_id, exc)
        # A configuration error (an empty check command) is one line that says it all; others name their type.
        return Measured(problem=str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}")
    facts = effects.made_thorough(claim_facts(assessment, config), config, thorough)
    return Measured(facts, None, workspace, gate, dirty, effects.policies(config))


def _change_and_content(
    project: Project, config: Config, exclusions: Exclusions, base: str, early: Early | None
) -> tuple[ChangeMeasurement, Callable[[], ContentScan]]:
    """The claim's change, and its content judgement as it comes: from the measurement begun early where
    the configuration agrees with what it was begun with (the patch; the built-in rules only), else
    measured now, its changed lines read by a child meanwhile (`tiergate.offload`)."""
    from tiergate import offload
    from tiergate.tier.assess import content_rules, judge_content, measure_for
    from tiergate.tier.content import DEFAULT

    ecosystems = content_rules(config)
    if early is not None and (early.base, early.with_patch) == (base, bool(ecosystems)):
        change = early.work.first()
        if ecosystems == () or (early.built_in and ecosystems == DEFAULT):
            return change, early.work.second
        early.cancel()
    else:
        change = measure_for(project.root, base, config, exclusions)
    return change, offload.start(judge_content, change, config).result


def _answer_by() -> float:
    """How many seconds into the Stop its answer must be ready by."""
    from tiergate.hook.limits import hook_limit

    return hook_limit("Stop") - ANSWER_MARGIN


def _time_left(started: float | None) -> float | None:
    """Seconds left for more runs at the base before the Stop must answer (None: not bounded here)."""
    return None if started is None else _answer_by() - BASE_RUN_MARGIN - (time.monotonic() - started)


def _time_to_hold(started: float | None) -> float | None:
    """Seconds left, within the Stop's time and the most a Stop holds its agent (`atclaim.HOLD`), for a
    run at the base the content rules would want (None: not bounded here)."""
    from tiergate.gate.atclaim import HOLD

    left = _time_left(started)
    return None if left is None or started is None else min(left, HOLD - (time.monotonic() - started))


def _with_answers(
    content: Callable[[], ContentScan],
    project: Project,
    config: Config,
    base: str,
    change: ChangeMeasurement,
    time_left: float | None,
) -> Callable[[], ContentScan]:
    """The content judgement with the tests' answers written into the code added to its hits
    (`tiergate.handlers.testanswers`): architecture hits like the content rules' own."""
    from tiergate.handlers.testanswers import hard_coded_answers

    answers = hard_coded_answers(project, config, base, change, time_left)
    if not answers:
        return content
    return lambda: (scan := content())._replace(hits=(*scan.hits, *answers))


def stalled_approach(project: Project, current: LoopState, empty_turns: int) -> Measured:
    """What an empty turn needs (one that ends without a claim and changes nothing): the configured
    rules (the loop's own), to know whether the approach has stalled, and then whether the workspace is
    dirty, for the intervention. Only such turns pay for validating the configuration."""
    from tiergate.handlers import effects

    try:
        rules = effects.policies(effects.loop_config(project, current))
    except Exception:
        rules = POLICIES  # a broken config is reported at the next claim; defaults meanwhile
    if empty_turns < rules.stalls.empty_turns:
        return Measured(policies=rules)
    return Measured(dirty=effects.dirty(project, current), policies=rules)


def claim_facts(assessment: Assessment, config: Config) -> ClaimFacts:
    from tiergate.tier import testchanges
    from tiergate.tier.assess import changed_tests
    from tiergate.tier.policy import Tier

    decision, change = assessment.decision, assessment.change
    kept = change.files[:PATHS_KEPT]
    return ClaimFacts(
        tier=decision.tier.value,
        agent=decision.verifier.subagent_type,
        model=decision.verifier.model,
        tier_evidence=decision.verifier.evidence_required,
        reasons=decision.reasons,
        relative_cost=decision.relative_cost,
        thorough_cost=config.tier_policy.relative_costs[Tier.THOROUGH],
        files_changed=change.files_changed,
        lines_changed=change.lines_changed,
        paths=tuple(f.path for f in kept),
        marks=tuple(f.mark for f in kept),
        test_files=tuple(f"{f.mark} {f.path}" for f in changed_tests(change)[:PATHS_KEPT]),
        test_changes=testchanges.of_change(change),
        mutants="" if assessment.mutation is None else assessment.mutation.packet_text(),
    )


def _log_error(project: Project, session_id: str, exc: Exception) -> None:
    from tiergate.log import record_error

    record_error(project, "claim_check_error", session_id, exc)
