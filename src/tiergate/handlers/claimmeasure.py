"""What a claim's Stop measures: the change and its tier, the gate's verdict on the workspace, the
environment's changes since the loop began; or what an empty turn needs to know."""

from __future__ import annotations

import time

from tiergate import TYPE_CHECKING, foreign
from tiergate.frozen import frozen
from tiergate.loop.events import ClaimFacts, GateFacts
from tiergate.loop.state import POLICIES, Policies
from tiergate.workspace import fingerprint

if TYPE_CHECKING:
    from collections.abc import Callable

    from tiergate.config.settings import Config
    from tiergate.handlers.earlymeasure import Early
    from tiergate.loop.state import LoopState
    from tiergate.project import Project
    from tiergate.tier.assess import Assessment
    from tiergate.tier.change import ChangeMeasurement
    from tiergate.tier.changedlines import ContentScan

PATHS_KEPT = 30
# What a Stop keeps of its limit (hooks/hooks.json, `tiergate.hook.limits`) beyond what it waits for (the
# goal evaluator's answer): the answer's time to be written.
ANSWER_MARGIN = 30.0
# What a Stop keeps, of that, for judging and answering once a run at the base is done.
BASE_RUN_MARGIN = 30.0


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
    from tiergate.handlers.earlymeasure import change_and_content

    try:
        from tiergate.gate.atclaim import Pending
        from tiergate.handlers import effects, looprules, thorough
        from tiergate.handlers.environment import environment_reasons
        from tiergate.handlers.loopgate import gate_facts
        from tiergate.tier.assess import Given, assess_change
        from tiergate.tier.coverage.judgement import measurable_files

        config = looprules.loop_config(project, current)  # the rules it started with, not the file now
        exclusions = foreign.of_loop(current)  # the rules every hook of this loop uses
        base = current.change_base or "HEAD"  # the workspace as the loop began, when it was dirty
        change, content = change_and_content(project, config, exclusions, base, early)
        # The gate first: its tests measure the change's coverage, and the tier is judged on that.
        code = measurable_files(change)
        ran = effects.claim_gate(project, current, config, code, change, time_left=_time_left(started))
        if isinstance(ran, Pending):
            return Measured(workspace=fingerprint.of_change(change), pending=ran.text)
        gate, coverage, raised = gate_facts(ran)
        # After the checks ran: what changed in their environment since the loop began, up to now.
        raised = (
            *raised,
            *thorough.links_out_reasons(project, change),
            *thorough.compiled_reasons(change),
            *thorough.declared_reasons(project, current, config),
            *environment_reasons(project, current, change.paths),
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

        log_claim_error(project, current.session_id, exc)
        # A configuration error (an empty check command) is one line that says it all; others name their type.
        return Measured(problem=str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}")
    facts = thorough.made_thorough(claim_facts(assessment, config), config, raised)
    return Measured(facts, None, workspace, gate, dirty, looprules.policies(config))


def answer_by() -> float:
    """How many seconds into the Stop its answer must be ready by."""
    from tiergate.hook.limits import hook_limit

    return hook_limit("Stop") - ANSWER_MARGIN


def _time_left(started: float | None) -> float | None:
    """Seconds left for more runs at the base before the Stop must answer (None: not bounded here)."""
    return None if started is None else answer_by() - BASE_RUN_MARGIN - (time.monotonic() - started)


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
    from tiergate.handlers import effects, looprules

    try:
        rules = looprules.policies(looprules.loop_config(project, current))
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


def log_claim_error(project: Project, session_id: str, exc: Exception) -> None:
    from tiergate.log import record_error

    record_error(project, "claim_check_error", session_id, exc)
