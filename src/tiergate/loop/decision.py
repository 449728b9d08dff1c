"""The loop's decision: a loop's state and one event in; what to answer, the new state and why, out.

A loop runs through the phases `working` -> `verifying` -> `passed`, back to `working` after a FAIL or
INCOMPLETE verdict, and ends `passed` (finalized), `halted` or `cancelled`:

    working    Stop without a claim     -> block: back to work, iteration n+1/max (or halt at the cap)
    working    Stop with a claim        -> verifying; block with the spawn directive for the chosen tier
    verifying  SubagentStart (the requested verifier)  -> the run is recorded; it gets the evidence packet
    verifying  SubagentStop (a recorded run)  -> redo (exit 2, at most twice), or the verdict:
                   PASS -> passed; FAIL / INCOMPLETE -> working with the critique for the next Stop;
                   a verifier that changed the workspace, or ran on a weaker model than its tier asks
                   for, is disqualified and the verification requested again (bounded, then halt)
    verifying  Stop, no verifier ran    -> block: spawn it (reminders are bounded, then halt)
    verifying  Stop, verifier lost      -> the verification is requested again (bounded, then halt)
    passed     Stop                     -> finalized (the stop goes through), unless the workspace changed
                                           since the verifier looked: then back to work
    any        StopFailure              -> the API error is recorded with its turn (below)
    any        UserPromptSubmit         -> a new turn; from the user, the no-progress count starts again
                                           (a `<task-notification>` prompt is not the user)
    any        PreCompact, SessionEnd   -> logged, nothing changes (SessionStart restates the loop)

Whatever the phase, a Stop goes through (never blocked) when it reports an API error itself, while
Claude Code reports background work in flight, once the wall-clock budget is spent (the loop halts), and
when the loop is not active.

API errors. A turn that ends on an API error fires StopFailure instead of Stop (CLI 2.1.332), so the
Stop that comes next usually ends a later, normal turn; letting it through would let a claim in it pass
unverified. The failure is recorded with the turn's `prompt_id`, and only a Stop of that same turn is
let through. A new prompt (UserPromptSubmit, a task notification included) starts another turn and
drops the exemption. When the turn cannot be told (the Stop or the failure carries no `prompt_id`, and
no prompt came in between), the conservative reading: a Stop without a claim goes through (blocking it
could send Claude straight back into the rate limit), a Stop with a claim is checked as usual (an
unverified claim must never pass on a guess).

Every block is counted against a no-progress limit: so many blocks in a row with the workspace
unchanged halt the loop before Claude Code's own cap of 8 consecutive blocks silently ends it.
`stop_hook_active` is recorded but not relied on: the CLI has been seen to reset it
(anthropics/claude-code#54360).

Internal errors (the documented exception to failing open): an error while checking the claim of an
ACTIVE loop blocks that stop once and tells both Claude and the user, because letting an unverified
claim through is exactly what the user asked tiergate to prevent. It never traps the user:
`Limits.claim_errors` errors in a row halt the loop, and every other error in a hook fails open.

Pure: no I/O and no clock. The adapters (`tiergate.handlers`) measure, fingerprint and read transcripts,
and pass the facts in the events.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from tiergate.loop import features, interventions, stalls
from tiergate.loop import packet as evidence
from tiergate.loop import text as looptext
from tiergate.loop.claims import ClaimCheck, claim_evidence, claim_types
from tiergate.loop.features import Feature
from tiergate.loop.interventions import INTERVENTION_POLICY, InterventionPolicy
from tiergate.loop.stalls import STALL_POLICY, StallPolicy
from tiergate.loop.verdict import Judgement
from tiergate.workspace.manifest import Changes

Phase = Literal["working", "verifying", "passed", "halted", "cancelled"]
PHASES: tuple[Phase, ...] = ("working", "verifying", "passed", "halted", "cancelled")
VERIFIER_PREFIX = "tiergate:architect"
DEFAULT_MAX_ITERATIONS = 20
DEFAULT_BUDGET_SECONDS = 4 * 3600.0


@dataclass(frozen=True)
class Limits:
    """The bounds that make every loop end."""

    reminders: int = 2  # Stops while a verification waits for a verifier that never started
    requests: int = 3  # times one claim's verification is requested (lost or disqualified verifiers)
    redos: int = 2  # exit-2 redos of one verifier run before its verdict counts as INCOMPLETE
    idle_blocks: int = 5  # blocks in a row without any change to the workspace
    verifier_timeout: float = 1800.0  # seconds a started verifier may stay silent, when the CLI cannot tell
    runs: int = 4  # verifier runs recorded for one verification
    claim_errors: int = 2  # internal errors in a row while checking claims


LIMITS = Limits()


@dataclass(frozen=True)
class VerifierRun:
    """A verifier that started (SubagentStart) while its verification was pending."""

    agent_id: str
    agent_type: str
    started_at: float
    fingerprint: str | None
    redos: int = 0


@dataclass(frozen=True)
class Verification:
    """One request for a verifier: what it must check, and the runs that answered it so far."""

    id: str
    tier: str
    agent: str  # the subagent_type, e.g. tiergate:architect-low
    model: str
    evidence: tuple[str, ...]  # criteria labels the verdict must name: the tier's, then the claim's
    claim_types: tuple[str, ...]
    reasons: tuple[str, ...]
    relative_cost: float
    thorough_cost: float
    files_changed: int
    lines_changed: int
    paths: tuple[str, ...]  # the first changed paths, for the packet
    requested_at: float
    request: int = 1  # 2, 3, ... when requested again for the same claim
    announced: bool = True  # whether Claude has been given the spawn directive for it
    reminders: int = 0
    runs: tuple[VerifierRun, ...] = ()
    note: str = ""  # why it was requested again
    checks: tuple[str, ...] = ()  # the gate's results for the packet; empty: no gate ran
    fingerprint: str | None = None  # the workspace the claim was made on


@dataclass(frozen=True)
class AttemptRecord:
    """One judged claim: refuted (by the gate or a verifier) or passed, on which approach, and what
    stall detection needs of it (the failure's signature and the workspace it was made on)."""

    item: str
    passed: bool
    reason: str = ""
    signature: str = ""
    fingerprint: str | None = None
    by: str = "verifier"  # "gate", "verifier", or "stall" (empty turns)


@dataclass(frozen=True)
class RefutedWorkspace:
    """A refutation bound to the workspace it judged. A claim on that same workspace, for the same task,
    gets it again at once: no gate run, no verifier (see `BINDING` for which outcomes bind)."""

    fingerprint: str
    task: str
    by: str  # "gate" or "verifier"
    label: str  # who refuted it, for a person: "the gate", "verification v2 (FAIL)"
    text: str  # what Claude was told: the failing checks, or the critique and unmet criteria
    signature: str  # the failure's signature, for stall detection
    reason: str  # one line, for the attempts record
    dirty: bool | None  # the workspace against the last green point when it was refuted


# Which outcomes bind to the workspace they judged, and why:
# - the gate's refutation by failing checks: they are deterministic facts about these files;
# - a verifier's own FAIL or INCOMPLETE: another verifier on the same files is a re-roll, not new evidence.
# Not binding, so that a replacement is allowed (bounded by `Limits.requests`): a check that timed out or
# could not run (the machine, not the files, may be at fault), a disqualified or lost verifier, a verdict
# sent back until it counted as INCOMPLETE (the verifier could not answer; the implementer did nothing
# wrong), an internal error.
REFUTED_KEPT = 8  # refuted workspaces remembered per loop, newest last
REFUTATION_TEXT = 4000


@dataclass(frozen=True)
class LoopState:
    session_id: str
    task: str
    promise: str
    max_iterations: int
    budget: float  # wall-clock seconds from started_at
    base: str | None  # the commit (or empty tree) the loop began at; changes are measured from it
    started_at: float
    phase: Phase = "working"
    iteration: int = 1
    verification: Verification | None = None
    verifications: int = 0  # requested so far; numbers the ids v1, v2, ...
    tier: str | None = None  # of the latest verification
    verdict: str | None = None  # the latest verdict
    feedback: str | None = None  # for Claude at the next Stop (a critique, missing evidence)
    verified_fingerprint: str | None = None  # the workspace the PASS was given for
    last_block_fingerprint: str | None = None
    idle_blocks: int = 0
    empty_turns: int = 0  # turns in a row ended without a claim and without changing the workspace
    interrupted: str | None = None  # the API error that ended the last turn (StopFailure)
    interrupted_turn: str | None = None  # the prompt_id of that turn, when the CLI sent one
    claim_errors: int = 0
    ended_at: float | None = None
    end_reason: str | None = None
    attempts: tuple[AttemptRecord, ...] = ()  # every judged claim, in order: the counts derive from it
    approach: int = 1  # the approach being tried (a change of approach starts the next one)
    # An autopilot's features; the current one is the approach's (`tiergate.loop.features`). Empty: ralph.
    features: tuple[Feature, ...] = ()
    refuted: tuple[RefutedWorkspace, ...] = ()  # refutations bound to their workspace, newest last

    @property
    def active(self) -> bool:
        return self.ended_at is None and self.phase in ("working", "verifying", "passed")

    @property
    def item(self) -> str:
        """The intervention table's item: the current feature, else this loop's current approach."""
        if self.features:
            feature = features.current(self.features, self.approach)
            return feature.id if feature is not None else ""
        return interventions.approach_item(self.task, self.approach)

    @property
    def done(self) -> tuple[str, ...]:
        """The items whose last attempt passed (an autopilot's done features)."""
        plain = tuple(interventions.Attempt(a.item, a.passed, a.reason) for a in self.attempts)
        return interventions.done_items(plain)


@dataclass(frozen=True)
class ClaimFacts:
    """What the Stop adapter measured for a claim: the tier decision and the change behind it."""

    tier: str
    agent: str
    model: str
    tier_evidence: tuple[str, ...]
    reasons: tuple[str, ...]
    relative_cost: float
    thorough_cost: float
    files_changed: int
    lines_changed: int
    paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class GateFacts:
    """What the deterministic gate found for a claim (`gate.ruling.GateResult`, as the loop needs it)."""

    refuted: bool
    report: str  # the failing checks and their trimmed output, for Claude
    packet: tuple[str, ...]  # the CHECKS section of the evidence packet
    failing: tuple[tuple[str, str], ...] = ()  # (check, failure detail) of the new failures
    reasons: tuple[str, ...] = ()
    headline: str = ""
    record: tuple[tuple[str, object], ...] = ()  # the run as the decision log keeps it
    binds: bool = (
        True  # the refutation stands for this workspace (not a timeout, not a check that could not run)
    )
    notice: str = ""  # for the user too (a check that could not run): a systemMessage with the outcome


@dataclass(frozen=True)
class Policies:
    """The configured intervention and stall rules (`[interventions]`, `[stalls]`)."""

    interventions: InterventionPolicy = INTERVENTION_POLICY
    stalls: StallPolicy = STALL_POLICY


POLICIES = Policies()


@dataclass(frozen=True)
class Stop:
    message: str | None
    claim: ClaimCheck
    fingerprint: str | None = None
    prompt_id: str | None = None  # the turn this Stop ends, when the CLI says
    stop_hook_active: bool = False
    # Descriptions of background work in flight; None when the CLI did not say (older versions).
    background: tuple[str, ...] | None = ()
    api_error: str | None = None  # the input itself reports an API error ending the turn
    claim_facts: ClaimFacts | None = None
    claim_error: str | None = None
    gate: GateFacts | None = None
    dirty: bool | None = None  # the workspace differs from the last green point (None: unknown)
    policies: Policies = POLICIES


@dataclass(frozen=True)
class StopFailure:
    error: str
    prompt_id: str | None = None  # the turn the error ended, when the CLI says


@dataclass(frozen=True)
class SubagentStart:
    agent_id: str
    agent_type: str
    fingerprint: str | None = None


@dataclass(frozen=True)
class SubagentStop:
    agent_id: str
    agent_type: str
    judgement: Judgement | None = None
    fingerprint: str | None = None
    model: str | None = None  # the model the verifier ran on, when Claude Code recorded it
    dirty: bool | None = None  # the workspace differs from the last green point (None: unknown)
    policies: Policies = POLICIES
    changes: Changes | None = None  # what changed since the verifier started, when the start is known
    ran_nothing: bool = False  # its own transcript shows no command: it cannot have changed a file


@dataclass(frozen=True)
class UserPrompt:
    """A prompt from the user (not a tiergate command): the user is back, so nothing is idle."""


@dataclass(frozen=True)
class TaskNotification:
    """A background task (a verifier launched in the background) reporting back through a prompt that
    starts `<task-notification>`: a new turn, but not the user speaking."""


@dataclass(frozen=True)
class Compaction:
    trigger: str  # "manual" (/compact) or "auto"


@dataclass(frozen=True)
class SessionEnd:
    reason: str


@dataclass(frozen=True)
class Cancel:
    by: str


Event = (
    Stop
    | StopFailure
    | SubagentStart
    | SubagentStop
    | UserPrompt
    | TaskNotification
    | Compaction
    | SessionEnd
    | Cancel
)


@dataclass(frozen=True)
class Outcome:
    """The answer to one event: the new state (None: no loop), a decision name and its reasons, and
    what to tell whom. `verifications` are snapshots of the verifications this decision requested or
    closed, for the decision log (`tiergate history` is derived from them)."""

    state: LoopState | None
    decision: str
    reasons: tuple[str, ...]
    block: str | None = None  # Stop: block with this reason (it goes to Claude)
    context: str | None = None  # additional context for the model (the verifier's evidence packet)
    message: str | None = None  # a systemMessage for the user
    redo: str | None = None  # SubagentStop: exit 2 with this text (it goes to the verifier)
    verifications: tuple[dict[str, object], ...] = ()
    # Effects for the adapter: roll back to the last green point (why), mark the workspace green,
    # send the user's alert command this text.
    rollback: str | None = None
    green: bool = False
    alert: str | None = None
    intervention: str | None = None  # the intervention chosen after a refutation, for the log
    logged: tuple[tuple[str, object], ...] = ()  # more facts for the decision log (the gate run, a backup)


def new_loop(
    session_id: str,
    task: str,
    *,
    now: float,
    base: str | None,
    promise: str,
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
    budget: float = DEFAULT_BUDGET_SECONDS,
    feature_list: tuple[Feature, ...] = (),
) -> LoopState:
    """A ralph loop on `task`, or with `feature_list` an autopilot (its task is the first feature's)."""
    return LoopState(
        session_id=session_id,
        task=feature_list[0].task if feature_list else task,
        promise=promise,
        max_iterations=max_iterations,
        budget=budget,
        base=base,
        started_at=now,
        features=feature_list,
    )


def _next_approach(state: LoopState) -> LoopState:
    """The next approach; an autopilot's is the next feature, which becomes the task."""
    moved = replace(state, approach=state.approach + 1)
    following = features.current(state.features, moved.approach)
    return replace(moved, task=following.task) if following is not None else moved


def decide(state: LoopState | None, event: Event, now: float, limits: Limits = LIMITS) -> Outcome:
    """The loop's answer to `event` at time `now` (seconds since the epoch)."""
    if isinstance(event, Stop):
        return _on_stop(state, event, now, limits)
    if isinstance(event, SubagentStart):
        return _on_subagent_start(state, event, now, limits)
    if isinstance(event, SubagentStop):
        return _on_subagent_stop(state, event, now, limits)
    if isinstance(event, Cancel):
        return _on_cancel(state, event, now)
    return _on_notice(state, event)


# Stop ---------------------------------------------------------------------------------------------------


def _on_stop(state: LoopState | None, ev: Stop, now: float, limits: Limits) -> Outcome:
    if state is None or not state.active:
        return Outcome(state, "pass", ("no active loop in this session",))
    if state.interrupted is None:
        return _stop_active(state, ev, now, limits)
    # A recorded API error is good for one Stop at most, whatever is decided here.
    error, turn = state.interrupted, state.interrupted_turn
    state = replace(state, interrupted=None, interrupted_turn=None)
    exempt, why = _exempt_after_failure(error, turn, ev)
    if exempt:
        return Outcome(state, "pass", (why,), message=looptext.interrupted_message(state, error))
    outcome = _stop_active(state, ev, now, limits)
    return replace(outcome, reasons=(why, *outcome.reasons))


def _stop_active(state: LoopState, ev: Stop, now: float, limits: Limits) -> Outcome:
    never_blocked = _never_blocked(state, ev, now)
    if never_blocked is not None:
        return never_blocked
    if state.phase == "working":
        return _stop_working(state, ev, now, limits)
    if state.phase == "verifying":
        return _stop_verifying(state, ev, now, limits)
    return _stop_passed(state, ev, now, limits)


def _exempt_after_failure(error: str, turn: str | None, ev: Stop) -> tuple[bool, str]:
    """Whether an API error (`error`, ending the turn `turn`) lets this Stop through, and why. See the
    module's docstring for the turn that cannot be identified."""
    if turn is not None and ev.prompt_id is not None:
        if turn == ev.prompt_id:
            return True, f"api-error: an API error ({error}) ended this turn; such a stop is never blocked"
        return False, (
            f"api-error-later-turn: the API error ({error}) ended an earlier turn, not this one; this stop "
            "is decided as usual"
        )
    if ev.claim.claimed:
        return False, (
            f"api-error-unidentified: an API error ({error}) ended a turn this stop cannot be matched to; "
            "its claim is checked as usual, never let through on a guess"
        )
    return True, (
        f"api-error: an API error ({error}) ended the last turn and no prompt came since; a stop without "
        "a claim goes through"
    )


def _never_blocked(state: LoopState, ev: Stop, now: float) -> Outcome | None:
    """The stops that go through whatever the phase: one reporting an API error itself, past the
    budget, and while background work is in flight."""
    if ev.api_error:
        return Outcome(
            state,
            "pass",
            (f"api-error: the turn ended on an API error ({ev.api_error}); such a stop is never blocked",),
            message=looptext.interrupted_message(state, ev.api_error),
        )
    if now - state.started_at > state.budget:
        return _halt(state, now, looptext.budget_reason(state, now))
    if ev.background:
        work = "; ".join(ev.background)[:300]
        reason = f"background-work: {len(ev.background)} task(s) in flight ({work}); the session is not done"
        return Outcome(state, "pass", (reason,))
    return None


def wants_claim_facts(state: LoopState | None, claim: ClaimCheck) -> bool:
    """Whether a Stop with `claim` needs the change measured (the costly part of a Stop), unless its
    workspace is one already refuted (`refutation_for`)."""
    return state is not None and state.active and state.phase == "working" and claim.claimed


def may_stand_refuted(state: LoopState) -> bool:
    """Whether some refutation is bound to a workspace of this task: then a claim's Stop fingerprints
    the workspace first, and measures nothing if it is that one."""
    return any(r.task == state.task for r in state.refuted)


def refutation_for(state: LoopState, fingerprint: str | None) -> RefutedWorkspace | None:
    """The refutation that stands for this workspace and task, if any (an unknown workspace: none)."""
    if fingerprint is None:
        return None
    matches = (r for r in reversed(state.refuted) if r.fingerprint == fingerprint and r.task == state.task)
    return next(matches, None)


def _bind(state: LoopState, refuted: RefutedWorkspace) -> LoopState:
    """Remember `refuted` for its workspace (the newest replaces an older one of the same workspace)."""
    kept = tuple(r for r in state.refuted if (r.fingerprint, r.task) != (refuted.fingerprint, refuted.task))
    return replace(state, refuted=(*kept, refuted)[-REFUTED_KEPT:])


def _stop_working(state: LoopState, ev: Stop, now: float, limits: Limits) -> Outcome:
    if ev.claim.claimed:
        return _stop_claim(replace(state, empty_turns=0), ev, now, limits)
    reasons: tuple[str, ...]
    if state.feedback:
        reasons = ("feedback: the last verification did not pass; its findings go back to Claude",)
        return _send_back(replace(state, empty_turns=0), ev, now, limits, "feedback", reasons)
    reasons = ("no-claim: the final message does not end with the promise", *ev.claim.notes)
    count = empty_turn(state, ev.claim, ev.fingerprint)
    stall = stalls.empty_turn_stall(count, ev.policies.stalls)
    if stall is not None:
        return _empty_turns(state, ev, stall, now, limits, reasons)
    return _send_back(replace(state, empty_turns=count), ev, now, limits, "continue", reasons)


def _stop_claim(state: LoopState, ev: Stop, now: float, limits: Limits) -> Outcome:
    """A completion claim: refuted again when its workspace already was, refuted by the gate, or sent
    to a verifier."""
    standing = refutation_for(state, ev.fingerprint)
    if standing is not None:
        return _refuted_again(state, ev, standing, now, limits)
    if ev.claim_facts is not None and ev.gate is not None and ev.gate.refuted:
        return _gate_refuted(state, ev, now, limits)
    if ev.claim_facts is not None:
        return _request_verification(state, ev, now, limits)
    return _claim_error(state, ev, now, limits, ev.claim_error or "the change was not measured")


def empty_turn(state: LoopState, claim: ClaimCheck, fingerprint: str | None) -> int:
    """How many empty turns in a row this Stop makes: a working turn that ends without a claim, with no
    feedback pending, on a workspace unchanged since the last Stop (0: this one is not empty)."""
    if not state.active or state.phase != "working" or claim.claimed or state.feedback:
        return 0
    unchanged = fingerprint is not None and fingerprint == state.last_block_fingerprint
    return state.empty_turns + 1 if unchanged else 0


def _empty_turns(
    state: LoopState, ev: Stop, stall: stalls.Stall, now: float, limits: Limits, reasons: tuple[str, ...]
) -> Outcome:
    """Empty turns are a stall of the approach: answered like a refuted attempt (change of approach,
    rolled back first when the workspace is dirty, or halt), so that a loop going nowhere moves on."""
    attempt = AttemptRecord(state.item, False, stall.reason, "empty-turns", ev.fingerprint, "stall")
    head = looptext.empty_turns(stall.reason)
    return _refute_at_stop(
        replace(state, empty_turns=0),
        ev,
        now,
        limits,
        attempt,
        "empty-turns",
        reasons,
        head,
        "",
        ev.dirty,
        stall=stall,
    )


def _send_back(
    state: LoopState, ev: Stop, now: float, limits: Limits, decision: str, reasons: tuple[str, ...]
) -> Outcome:
    """Block the stop and send Claude back to work for one more iteration, unless the cap is reached."""
    if state.iteration >= state.max_iterations:
        return _halt(state, now, f"the iteration cap is reached ({state.iteration}/{state.max_iterations})")
    advanced = replace(state, iteration=state.iteration + 1, feedback=None)
    text = looptext.back_to_work(advanced, state.feedback, ev.claim.notes)
    counted = (*reasons, f"iteration {advanced.iteration}/{state.max_iterations}")
    return _block(advanced, ev, now, limits, Outcome(advanced, decision, counted, block=text))


def _block(state: LoopState, ev: Stop, now: float, limits: Limits, outcome: Outcome) -> Outcome:
    """Every Stop block goes through here, to count the blocks in a row that find the workspace
    unchanged; too many halt the loop instead."""
    unchanged = ev.fingerprint is not None and ev.fingerprint == state.last_block_fingerprint
    idle = state.idle_blocks + 1 if unchanged else 0
    if idle >= limits.idle_blocks:
        return _halt(state, now, looptext.idle_reason(idle + 1))
    return replace(outcome, state=replace(state, idle_blocks=idle, last_block_fingerprint=ev.fingerprint))


def _request_verification(state: LoopState, ev: Stop, now: float, limits: Limits) -> Outcome:
    facts = ev.claim_facts
    assert facts is not None
    kinds = claim_types(state.task, ev.message)
    labels = tuple(dict.fromkeys((*facts.tier_evidence, *(label for label, _ in claim_evidence(kinds)))))
    number = state.verifications + 1
    verification = Verification(
        id=f"v{number}",
        tier=facts.tier,
        agent=facts.agent,
        model=facts.model,
        evidence=labels,
        claim_types=tuple(str(k) for k in kinds),
        reasons=facts.reasons,
        relative_cost=facts.relative_cost,
        thorough_cost=facts.thorough_cost,
        files_changed=facts.files_changed,
        lines_changed=facts.lines_changed,
        paths=facts.paths,
        requested_at=now,
        checks=ev.gate.packet if ev.gate is not None else (),
        fingerprint=ev.fingerprint,
    )
    verifying = replace(
        state,
        phase="verifying",
        verification=verification,
        verifications=number,
        tier=facts.tier,
        verdict=None,
        feedback=None,
        claim_errors=0,
    )
    reasons = (
        f"claim: the final message ends with {looptext.tag(state)}",
        f"claim-type: {', '.join(verification.claim_types)}",
        *facts.reasons,
        *(ev.gate.reasons if ev.gate is not None else ()),
        *ev.claim.notes,
    )
    outcome = Outcome(
        verifying,
        "spawn",
        reasons,
        block=looptext.spawn_directive(verifying, verification, ev.claim.notes),
        verifications=(snapshot(verification, "requested"),),
        logged=_gate_logged(ev.gate),
    )
    return _block(verifying, ev, now, limits, outcome)


def _claim_error(state: LoopState, ev: Stop, now: float, limits: Limits, error: str) -> Outcome:
    errors = state.claim_errors + 1
    if errors >= limits.claim_errors:
        return _halt(
            state, now, f"tiergate could not check the claim {errors} times in a row (last: {error})"
        )
    failed = replace(state, claim_errors=errors)
    reasons = (f"claim-check-error: {error}; an active loop blocks rather than pass an unchecked claim",)
    outcome = Outcome(
        failed,
        "claim-error",
        reasons,
        block=looptext.claim_error(failed, error),
        message=looptext.claim_error_message(error),
    )
    return _block(failed, ev, now, limits, outcome)


# Refutations and interventions ---------------------------------------------------------------------------


def _gate_refuted(state: LoopState, ev: Stop, now: float, limits: Limits) -> Outcome:
    """The checks refute the claim: no verifier is spent; Claude gets the failures and the intervention."""
    gate = ev.gate
    assert gate is not None
    failing = dict(gate.failing)
    why = f"the gate: {gate.headline}" + (f" Failing: {', '.join(failing)}." if failing else "")
    broke = features.broken(state.features, state.done, tuple(failing))
    if broke:
        done = "features already done" if len(broke) > 1 else "a feature already done"
        why = f"{why} It breaks {done}: {', '.join(broke)}."
    attempt = AttemptRecord(
        state.item, False, looptext.cut(why, 500), stalls.signature(checks=failing), ev.fingerprint, "gate"
    )
    reasons = (
        f"claim: the final message ends with {looptext.tag(state)}",
        "gate-refuted: the project's checks refute the claim; no verifier is spawned",
        *(("regression: breaks " + ", ".join(broke),) if broke else ()),
        *gate.reasons,
    )
    regression = f"\nThis change breaks {', '.join(broke)}, already done: fix that first." if broke else ""
    bound = state
    if gate.binds and ev.fingerprint is not None:
        text = looptext.cut(f"{regression.strip()}\n\n{gate.report}".strip(), REFUTATION_TEXT)
        refuted = RefutedWorkspace(
            ev.fingerprint, state.task, "gate", "the gate", text, attempt.signature, attempt.reason, ev.dirty
        )
        bound = _bind(state, refuted)
    head = f"{looptext.GATE_REFUTED}{regression}"
    outcome = _refute_at_stop(
        bound, ev, now, limits, attempt, "gate-refuted", reasons, head, gate.report, ev.dirty
    )
    return _told(replace(outcome, logged=_gate_logged(gate)), gate.notice)


def _told(outcome: Outcome, notice: str) -> Outcome:
    """`outcome`, with `notice` added to what the user is told (if there is one)."""
    if not notice:
        return outcome
    return replace(outcome, message=f"{outcome.message}\n{notice}" if outcome.message else notice)


def _refuted_again(
    state: LoopState, ev: Stop, standing: RefutedWorkspace, now: float, limits: Limits
) -> Outcome:
    """A claim on a workspace already refuted: the same refutation at once, without a gate run or a
    verifier. It counts as another refuted attempt, so the interventions (the unchanged-claim stall
    among them) end a loop that keeps claiming on the same files."""
    attempt = AttemptRecord(
        state.item, False, standing.reason, standing.signature, standing.fingerprint, standing.by
    )
    reasons = (
        f"claim: the final message ends with {looptext.tag(state)}",
        f"refuted-again: the workspace is unchanged since {standing.label} refuted it; no checks run, "
        "no verifier spawned",
    )
    head = looptext.refuted_again(standing)
    return _refute_at_stop(
        state, ev, now, limits, attempt, "refuted-again", reasons, head, standing.text, standing.dirty
    )


def _refute_at_stop(
    state: LoopState,
    ev: Stop,
    now: float,
    limits: Limits,
    attempt: AttemptRecord,
    decision: str,
    reasons: tuple[str, ...],
    head: str,
    body: str,
    dirty: bool | None,
    stall: stalls.Stall | None = None,
) -> Outcome:
    """A claim refuted at its Stop (or a stalled approach): the attempt recorded, the intervention
    chosen, and Claude sent back with `head`, the intervention's message and `body` (or the loop halted)."""
    chosen, choice, why_chosen = _intervene(state, attempt, dirty, ev.policies, stall)
    if isinstance(choice, interventions.Halt):
        halted = _halt(chosen, now, choice.reason, choice.message)
        return replace(halted, reasons=(*reasons, *why_chosen, *halted.reasons), intervention="halt")
    feedback = f"{head}\n{choice.message}" + (f"\n\n{body}" if body else "")
    outcome = _send_back(
        replace(chosen, feedback=feedback), ev, now, limits, decision, (*reasons, *why_chosen)
    )
    if outcome.decision == "halt":
        return outcome
    return replace(outcome, rollback=_rollback_why(choice), intervention=_name(choice))


def _gate_logged(gate: GateFacts | None) -> tuple[tuple[str, object], ...]:
    return () if gate is None else (("gate", dict(gate.record)),)


def _refuted(
    state: LoopState,
    attempt: AttemptRecord,
    feedback: str,
    dirty: bool | None,
    policies: Policies,
    now: float,
    reasons: tuple[str, ...],
    message: str,
    closed: tuple[dict[str, object], ...],
) -> Outcome:
    """A verifier refuted the claim: the intervention's message goes to Claude at the next Stop."""
    chosen, choice, why_chosen = _intervene(state, attempt, dirty, policies)
    if isinstance(choice, interventions.Halt):
        halted = _halt(chosen, now, choice.reason, choice.message)
        return replace(
            halted,
            reasons=(*reasons, *why_chosen, *halted.reasons),
            verifications=closed,
            intervention="halt",
        )
    reopened = replace(chosen, feedback=f"{choice.message}\n\n{feedback}")
    return Outcome(
        reopened,
        "verdict",
        (*reasons, *why_chosen),
        message=message,
        verifications=closed,
        rollback=_rollback_why(choice),
        intervention=_name(choice),
    )


def _intervene(
    state: LoopState,
    attempt: AttemptRecord,
    dirty: bool | None,
    policies: Policies,
    stall: stalls.Stall | None = None,
) -> tuple[LoopState, interventions.Intervention, tuple[str, ...]]:
    """Record the refuted attempt and choose the intervention (the seed's table) with the stalls it
    sees; `stall` is one the caller found (empty turns), which is what the attempt is."""
    earlier = _refutations(state.attempts)
    record = (*state.attempts, attempt)
    found = stalls.detect(
        stalls.Signals(
            refutations=_refutations(record),
            iteration=state.iteration,
            max_iterations=state.max_iterations,
        ),
        policies.stalls,
    )
    unchanged = None if stall is not None else stalls.unchanged_claim(attempt.fingerprint, earlier)
    found = (*found, *(s for s in (unchanged, stall) if s is not None))
    plain = tuple(interventions.Attempt(a.item, a.passed, a.reason) for a in record)
    choice = interventions.decide(plain, attempt.item, bool(dirty), found, policies.interventions)
    recorded = replace(state, attempts=record)
    if isinstance(choice, interventions.ChangeApproach | interventions.RollbackThenChangeApproach):
        recorded = _next_approach(recorded)
        if state.features and not recorded.item:
            choice = _no_feature_left(choice, plain, bool(dirty))
    why = (*(s.reason for s in found), f"intervention: {_name(choice)}", *choice.reasons)
    if dirty is None:
        why = (*why, "dirty: unknown (no green point could be read); treated as clean")
    return recorded, choice, tuple(dict.fromkeys(why))


def _no_feature_left(
    choice: interventions.ChangeApproach | interventions.RollbackThenChangeApproach,
    record: tuple[interventions.Attempt, ...],
    dirty: bool,
) -> interventions.Halt:
    """An autopilot that gives up its last feature has nothing to change to: it halts."""
    why = f"no feature left: {choice.item}, the last one, was given up"
    skipped = (*interventions.skipped_items(record), choice.item)
    done = interventions.done_items(record)
    message = (
        f"tiergate halted the autopilot: {why}. Given up: {', '.join(skipped)}."
        + (f" Done: {', '.join(done)}." if done else "")
        + " The workspace is left as it is; `tiergate backups` lists any saved work."
    )
    return interventions.Halt(why, skipped, dirty, message, (*choice.reasons, why))


def _refutations(record: tuple[AttemptRecord, ...]) -> tuple[stalls.Refutation, ...]:
    """The refuted claims since the last pass, as stall detection reads them."""
    since: list[stalls.Refutation] = []
    for a in record:
        since = [] if a.passed else [*since, stalls.Refutation(a.signature, a.fingerprint, a.reason)]
    return tuple(since)


def _name(choice: interventions.Intervention) -> str:
    names = {
        interventions.Retry: "retry",
        interventions.ChangeApproach: "change-approach",
        interventions.RollbackThenChangeApproach: "rollback-then-change-approach",
        interventions.Halt: "halt",
    }
    return names[type(choice)]


def _rollback_why(choice: interventions.Intervention) -> str | None:
    if isinstance(choice, interventions.RollbackThenChangeApproach):
        return f"{choice.item} refuted {choice.attempts} times on a dirty workspace; changing approach"
    if isinstance(choice, interventions.Retry) and choice.rollback_first:
        return f"retry {choice.attempt} of {choice.item} from the last green point (rollback_on_retry)"
    return None


def after_rollback(
    outcome: Outcome,
    now: float,
    *,
    backup: str | None,
    point: str,
    ref: str | None = None,
    error: str | None = None,
) -> Outcome:
    """The outcome once the adapter rolled back (or failed to): the backup is named to Claude and in
    the reasons; a rollback that could not be made halts the loop, the workspace left as it is."""
    state = outcome.state
    assert state is not None
    if error is not None:
        why = f"the rollback to the last green point ({point}) failed: {error}"
        halted = _halt(replace(state, feedback=None), now, why)
        return replace(
            halted, reasons=(*outcome.reasons, *halted.reasons), verifications=outcome.verifications
        )
    if backup is None:
        note = f"Nothing to roll back: the workspace already is the last green point ({point})."
        reason = f"rollback: the workspace already is the last green point ({point}); nothing saved"
    else:
        note = (
            f"tiergate rolled the workspace back to the last green point ({point}). Your changes are saved "
            f"as backup {backup}: `tiergate restore {backup}` brings them back."
        )
        reason = f"rollback: to {point}; the work is saved as backup {backup}"
    reasons = (*outcome.reasons, reason)
    rolled = (("rollback", {"to": point, "backup": backup, "backup_ref": ref}),)
    outcome = replace(outcome, logged=(*outcome.logged, *rolled))
    if outcome.block is not None:
        return replace(outcome, block=f"{note}\n\n{outcome.block}", reasons=reasons, rollback=None)
    feedback = f"{note}\n\n{state.feedback}" if state.feedback else note
    return replace(outcome, state=replace(state, feedback=feedback), reasons=reasons, rollback=None)


def _stop_verifying(state: LoopState, ev: Stop, now: float, limits: Limits) -> Outcome:
    verification = state.verification
    assert verification is not None
    if verification.runs:
        youngest = max(run.started_at for run in verification.runs)
        if ev.background is None and now - youngest < limits.verifier_timeout:
            return Outcome(state, "pass", ("verifier-running: a verifier started and may still be running",))
        ids = ", ".join(run.agent_id for run in verification.runs)
        note = looptext.lost_note(verification, ids)
        return _request_again(state, ev, now, limits, note, snapshot(verification, "VOID", why=note))
    if not verification.announced:
        announced = replace(state, verification=replace(verification, announced=True))
        outcome = Outcome(
            announced,
            "spawn",
            (f"spawn: verification {verification.id} requested again: {verification.note}",),
            block=looptext.spawn_directive(announced, verification, ()),
        )
        return _block(announced, ev, now, limits, outcome)
    if verification.reminders >= limits.reminders:
        why = (
            f"no verifier started for verification {verification.id} after {verification.reminders} reminders"
        )
        return _halt(state, now, why)
    reminded = replace(state, verification=replace(verification, reminders=verification.reminders + 1))
    reasons = (
        f"remind: verification {verification.id} is pending and no verifier started "
        f"(reminder {verification.reminders + 1}/{limits.reminders})",
    )
    outcome = Outcome(reminded, "remind", reasons, block=looptext.reminder(reminded, limits.reminders))
    return _block(reminded, ev, now, limits, outcome)


def _request_again(
    state: LoopState, ev: Stop | None, now: float, limits: Limits, note: str, closed: dict[str, object]
) -> Outcome:
    """Request the pending verification again (a new id, no runs), or halt when that was done enough.

    `closed` is the log's snapshot of the verification that ends here. From a Stop the directive goes
    out at once; from a SubagentStop it goes out at the next Stop."""
    old = state.verification
    assert old is not None
    if old.request >= limits.requests:
        why = f"verification was requested {old.request} times without a usable verdict ({note})"
        return replace(_halt(replace(state, verification=None), now, why), verifications=(closed,))
    number = state.verifications + 1
    renewed = replace(
        old,
        id=f"v{number}",
        request=old.request + 1,
        runs=(),
        reminders=0,
        requested_at=now,
        note=note,
        announced=ev is not None,
    )
    requeued = replace(state, verification=renewed, verifications=number)
    reasons = (
        f"request-again: {note}",
        f"verification {renewed.id} replaces {old.id} (request {renewed.request}/{limits.requests})",
    )
    snapshots = (closed, snapshot(renewed, "requested"))
    if ev is None:
        return Outcome(requeued, "request-again", reasons, verifications=snapshots)
    block = looptext.spawn_directive(requeued, renewed, ())
    return _block(
        requeued, ev, now, limits, Outcome(requeued, "spawn", reasons, block=block, verifications=snapshots)
    )


def _stop_passed(state: LoopState, ev: Stop, now: float, limits: Limits) -> Outcome:
    known = ev.fingerprint is not None and state.verified_fingerprint is not None
    if known and ev.fingerprint != state.verified_fingerprint:
        reopened = replace(state, phase="working", feedback=looptext.changed_after_pass(state))
        reasons = ("changed-after-pass: the workspace is not the one the verifier passed",)
        return _send_back(reopened, ev, now, limits, "feedback", reasons)
    if state.features and state.approach < len(state.features):
        return _next_feature(state, ev, now, limits)
    done = replace(state, ended_at=now, end_reason="verified: PASS")
    reasons = ("passed: the verifier's PASS stands for this workspace",)
    # The workspace is the one the verifier passed: it becomes the last green point.
    return Outcome(done, "finalize", reasons, message=looptext.finished_message(state), green=True)


def _next_feature(state: LoopState, ev: Stop, now: float, limits: Limits) -> Outcome:
    """An autopilot's feature is done: its workspace becomes the green point and the next feature
    the task, instead of finalizing."""
    finished = state.item
    moved = _next_approach(replace(state, phase="working", verdict=None, verified_fingerprint=None))
    note = f"{finished} is done: its checks and the regression suite passed and its verifier said PASS."
    reasons = (f"feature-done: {finished}; next feature {moved.item}",)
    outcome = _send_back(replace(moved, feedback=note), ev, now, limits, "next-feature", reasons)
    if outcome.decision == "halt":
        return outcome
    return replace(outcome, green=True, message=f"tiergate autopilot: {finished} done; now {moved.item}")


def _halt(state: LoopState, now: float, why: str, detail: str | None = None) -> Outcome:
    """End the loop with the reason; the stop goes through and the user is told why and what to do,
    in Claude Code and through the alert command."""
    halted = replace(state, phase="halted", ended_at=now, end_reason=why, verification=None)
    open_ = () if state.verification is None else (snapshot(state.verification, "VOID", why=why),)
    message = looptext.halted_message(halted, why)
    if detail:
        message = f"{message}\n{detail}"
    return Outcome(halted, "halt", (f"halt: {why}",), message=message, verifications=open_, alert=message)


# Subagents ----------------------------------------------------------------------------------------------


def is_verifier(agent_type: str) -> bool:
    return agent_type.startswith(VERIFIER_PREFIX)


def _pending(state: LoopState | None) -> Verification | None:
    if state is None or not state.active or state.phase != "verifying":
        return None
    return state.verification


def would_record(state: LoopState | None, agent_type: str) -> bool:
    """Whether a SubagentStart of `agent_type` would be recorded (and so needs a fingerprint)."""
    verification = _pending(state)
    return verification is not None and verification.agent == agent_type


def _on_subagent_start(state: LoopState | None, ev: SubagentStart, now: float, limits: Limits) -> Outcome:
    if not is_verifier(ev.agent_type):
        return Outcome(state, "ignore", (f"not a tiergate verifier: {ev.agent_type!r}",))
    verification = _pending(state)
    if state is None or verification is None:
        reasons = ("unrequested: no verification pending in this session",)
        return Outcome(state, "unrequested", reasons, context=looptext.UNREQUESTED)
    if ev.agent_type != verification.agent:
        reasons = (f"wrong-verifier: {ev.agent_type} started, {verification.agent} was requested",)
        context = looptext.wrong_verifier(verification, ev.agent_type)
        return Outcome(state, "wrong-verifier", reasons, context=context)
    if any(run.agent_id == ev.agent_id for run in verification.runs):
        reasons = (f"verifier-started: {ev.agent_id} again",)
        return Outcome(state, "verifier-started", reasons, context=evidence.packet(state, verification))
    if len(verification.runs) >= limits.runs:
        reasons = (f"unrequested: {len(verification.runs)} verifiers already started for {verification.id}",)
        return Outcome(state, "unrequested", reasons, context=looptext.UNREQUESTED)
    run = VerifierRun(ev.agent_id, ev.agent_type, now, ev.fingerprint)
    runs = (*verification.runs, run)
    recorded = replace(state, verification=replace(verification, runs=runs, announced=True))
    reasons = (f"verifier-started: {ev.agent_type} ({ev.agent_id}) for verification {verification.id}",)
    return Outcome(recorded, "verifier-started", reasons, context=evidence.packet(recorded, verification))


def run_for(state: LoopState | None, agent_id: str) -> VerifierRun | None:
    """The recorded run of `agent_id` in the pending verification, if there is one."""
    verification = _pending(state)
    if verification is None:
        return None
    return next((run for run in verification.runs if run.agent_id == agent_id), None)


def _on_subagent_stop(state: LoopState | None, ev: SubagentStop, now: float, limits: Limits) -> Outcome:
    if not ev.agent_type.strip():
        return Outcome(
            state, "ignore", ("phantom: a SubagentStop with an empty agent_type (an internal fork)",)
        )
    run = run_for(state, ev.agent_id)
    if state is None or run is None:
        reasons = (f"unmatched: no SubagentStart of {ev.agent_id} while a verification was pending",)
        return Outcome(state, "ignore", reasons)
    verification = state.verification
    assert verification is not None
    disqualified = _disqualification(verification, run, ev)
    if disqualified is not None:
        closed = snapshot(verification, "DISQUALIFIED", **_run_facts(run, now, ev.model))
        outcome = _request_again(state, None, now, limits, disqualified, closed)
        return replace(outcome, message=looptext.disqualified_message(run, disqualified))
    judgement = ev.judgement or Judgement(None, ("tiergate could not read your final message",))
    moved = _moved_by_others(run, ev)
    if not judgement.accepted:
        if run.redos < limits.redos:
            # Sent back, it verifies the workspace as it is now: what others changed is not its doing.
            rerun = run if moved is None else replace(run, fingerprint=ev.fingerprint)
            return _noted(_redo(state, verification, rerun, judgement, limits), moved)
        outcome = _record_verdict(
            state,
            run,
            judgement,
            now,
            None,
            forced=True,
            model=ev.model,
            ev_dirty=ev.dirty,
            ev_policies=ev.policies,
        )
        return _noted(outcome, moved)
    # A verdict stands for the workspace its verifier was given: a PASS on a workspace others changed
    # since does not finalize the new one (the next Stop sees the difference).
    judged = ev.fingerprint if moved is None else run.fingerprint
    outcome = _record_verdict(
        state, run, judgement, now, judged, model=ev.model, ev_dirty=ev.dirty, ev_policies=ev.policies
    )
    return _noted(outcome, moved)


def _workspace_moved(run: VerifierRun, ev: SubagentStop) -> bool:
    return ev.fingerprint is not None and run.fingerprint is not None and ev.fingerprint != run.fingerprint


def _moved_by_others(run: VerifierRun, ev: SubagentStop) -> str | None:
    """Why the workspace changed under a verifier that cannot have changed it, or None."""
    return looptext.moved_note(run, ev.changes) if _workspace_moved(run, ev) and ev.ran_nothing else None


def _noted(outcome: Outcome, note: str | None) -> Outcome:
    if note is None:
        return outcome
    return replace(outcome, reasons=(f"workspace-moved: {note}", *outcome.reasons))


def _disqualification(verification: Verification, run: VerifierRun, ev: SubagentStop) -> str | None:
    """Why this verifier's verdict cannot count whatever it says, or None. A changed workspace is held
    against the verifier only when it could have changed it: when its transcript shows no command, the
    change was someone else's (the main agent while a background verifier runs, the user, a watcher)."""
    if _workspace_moved(run, ev) and not ev.ran_nothing:
        return looptext.disqualified_note(run, ev.changes)
    if ev.model is not None and weaker_model(ev.model, verification.model):
        return looptext.weaker_model_note(run, ev.model, verification.model)
    return None


# Model families by strength: a verifier on a weaker model than its tier asks for does not count.
_MODEL_RANK = {"haiku": 1, "sonnet": 2, "opus": 3}


def weaker_model(model: str, requested: str) -> bool:
    """Whether `model` (a model id such as claude-haiku-5-5) is of a weaker family than `requested`.
    A model of no known family is given the benefit of the doubt."""
    ran = next((rank for family, rank in _MODEL_RANK.items() if family in model.lower()), None)
    wanted = _MODEL_RANK.get(requested.lower())
    return ran is not None and wanted is not None and ran < wanted


def _redo(
    state: LoopState, verification: Verification, run: VerifierRun, judgement: Judgement, limits: Limits
) -> Outcome:
    again = replace(run, redos=run.redos + 1)
    runs = tuple(again if r.agent_id == run.agent_id else r for r in verification.runs)
    updated = replace(state, verification=replace(verification, runs=runs))
    reasons = tuple(f"redo: {problem}" for problem in judgement.problems)
    text = looptext.redo(verification, judgement.problems, again.redos, limits.redos)
    return Outcome(updated, "redo", reasons, redo=text)


def _record_verdict(
    state: LoopState,
    run: VerifierRun,
    judgement: Judgement,
    now: float,
    fingerprint: str | None,
    *,
    forced: bool = False,
    model: str | None = None,
    ev_dirty: bool | None = None,
    ev_policies: Policies = POLICIES,
) -> Outcome:
    """The verification is over: PASS ends the work; FAIL and INCOMPLETE reopen it with feedback."""
    verification = state.verification
    assert verification is not None
    verdict = "INCOMPLETE" if forced or judgement.verdict is None else judgement.verdict.verdict
    closed = (snapshot(verification, verdict, **_run_facts(run, now, model)),)
    message = looptext.verdict_message(verification, verdict, forced)
    reasons: tuple[str, ...] = (f"verdict: {verdict} from {run.agent_type} ({run.agent_id})",)
    if forced:
        reasons += tuple(f"unaccepted: {problem}" for problem in judgement.problems)
    if verdict == "PASS":
        attempt = AttemptRecord(state.item, True, f"{verification.id}: PASS", fingerprint=fingerprint)
        passed = replace(
            state,
            phase="passed",
            verification=None,
            verdict=verdict,
            verified_fingerprint=fingerprint,
            attempts=(*state.attempts, attempt),
        )
        return Outcome(passed, "verdict", reasons, message=message, verifications=closed)
    feedback = looptext.verdict_feedback(verification, judgement, forced)
    critique = judgement.verdict.critique if judgement.verdict is not None else ""
    why = f"{verification.id} {verdict}: {critique or '; '.join(judgement.problems) or 'no critique'}"
    attempt = AttemptRecord(
        state.item,
        False,
        looptext.cut(why, 500),
        stalls.signature(critique=f"{verdict} {critique}"),
        fingerprint,
        "verifier",
    )
    reopened = replace(state, phase="working", verification=None, verdict=verdict)
    judged = fingerprint or verification.fingerprint
    if not forced and judged is not None:
        label = f"verification {verification.id} ({verdict})"
        text = looptext.cut(feedback, REFUTATION_TEXT)
        refuted = RefutedWorkspace(
            judged, state.task, "verifier", label, text, attempt.signature, attempt.reason, ev_dirty
        )
        reopened = _bind(reopened, refuted)
    return _refuted(reopened, attempt, feedback, ev_dirty, ev_policies, now, reasons, message, closed)


def snapshot(verification: Verification, status: str, **extra: object) -> dict[str, object]:
    """What the decision log keeps of a verification at one point of its life, for `tiergate history`.

    `status` is "requested", a verdict (PASS, FAIL, INCOMPLETE), DISQUALIFIED, or VOID (it ended
    without a verdict: its verifier was lost, never started, or the loop ended first)."""
    return {
        "id": verification.id,
        "status": status,
        "tier": verification.tier,
        "agent": verification.agent,
        "model": verification.model,
        "claim_types": list(verification.claim_types),
        "files_changed": verification.files_changed,
        "lines_changed": verification.lines_changed,
        "relative_cost": verification.relative_cost,
        "thorough_cost": verification.thorough_cost,
        "requested_at": verification.requested_at,
        "request": verification.request,
        **extra,
    }


def log_fields(session_id: str, outcome: Outcome) -> dict[str, object]:
    """What the decision log keeps of a decision (`tiergate.log.decision_record` adds the event, the
    level and the time): the session, the decision and its reasons, where the loop stands, and the
    verifications it requested or closed."""
    fields: dict[str, object] = {
        "session_id": session_id,
        "decision": outcome.decision,
        "reasons": list(outcome.reasons),
    }
    if outcome.state is not None:
        fields.update(phase=outcome.state.phase, iteration=outcome.state.iteration)
    if outcome.verifications:
        fields["verifications"] = list(outcome.verifications)
    if outcome.intervention is not None:
        fields["intervention"] = outcome.intervention
    fields.update(outcome.logged)
    if outcome.state is not None and outcome.state.phase == "halted" and outcome.decision == "halt":
        fields["halt_reason"] = outcome.state.end_reason
    return fields


def _run_facts(run: VerifierRun, now: float, model: str | None) -> dict[str, object]:
    duration = round(now - run.started_at, 3)
    return {"agent_id": run.agent_id, "duration_s": duration, "redos": run.redos, "ran_on": model}


# Other events -------------------------------------------------------------------------------------------


def _on_notice(
    state: LoopState | None, ev: StopFailure | UserPrompt | TaskNotification | Compaction | SessionEnd
) -> Outcome:
    """The events that only tell the loop something: none blocks, none ends it."""
    if state is None or not state.active:
        return Outcome(state, "ignore", ("no active loop in this session",))
    if isinstance(ev, StopFailure):
        return _on_stop_failure(state, ev)
    if isinstance(ev, UserPrompt | TaskNotification):
        return _on_prompt(state, ev)
    return _on_session_event(state, ev)


def _on_stop_failure(state: LoopState, ev: StopFailure) -> Outcome:
    turn = f"turn {ev.prompt_id}" if ev.prompt_id else "a turn the CLI did not identify"
    reasons = (f"api-error: {ev.error} ended {turn}; a stop of that turn goes through",)
    return Outcome(replace(state, interrupted=ev.error, interrupted_turn=ev.prompt_id), "recorded", reasons)


def _on_prompt(state: LoopState, ev: UserPrompt | TaskNotification) -> Outcome:
    """A new turn starts: an API error that ended an earlier one exempts none of its stops. Only the
    user speaking counts as activity for the no-progress limit."""
    fresh = replace(state, interrupted=None, interrupted_turn=None)
    dropped = (
        (f"api-error-dropped: the exemption for the API error ({state.interrupted}) ends with its turn",)
        if state.interrupted is not None
        else ()
    )
    if isinstance(ev, TaskNotification):
        reasons = ("task-notification: a background task reported back; not the user, so not activity",)
        return Outcome(fresh, "task-notification", (*reasons, *dropped))
    fresh = replace(fresh, idle_blocks=0, empty_turns=0, last_block_fingerprint=None)
    reasons = ("the user spoke: the no-progress count starts again",)
    return Outcome(fresh, "user-prompt", (*reasons, *dropped))


def _on_session_event(state: LoopState, ev: Compaction | SessionEnd) -> Outcome:
    """Nothing changes; the decision log shows that the loop saw it."""
    where = f"phase {state.phase}, iteration {state.iteration}/{state.max_iterations}"
    if isinstance(ev, Compaction):
        reason = (
            f"compaction ({ev.trigger}) at {where}: the loop is restated to Claude at the SessionStart "
            "that follows"
        )
        return Outcome(state, "compaction", (reason,))
    reason = f"session-end ({ev.reason}) at {where}: the loop stays as it is; resuming the session resumes it"
    return Outcome(state, "session-end", (reason,))


def _on_cancel(state: LoopState | None, ev: Cancel, now: float) -> Outcome:
    if state is None or not state.active:
        return Outcome(state, "ignore", ("no active loop to cancel",))
    why = f"cancelled by {ev.by}"
    cancelled = replace(state, phase="cancelled", ended_at=now, end_reason=why, verification=None)
    open_ = () if state.verification is None else (snapshot(state.verification, "VOID", why=why),)
    return Outcome(cancelled, "cancel", (why,), verifications=open_)
