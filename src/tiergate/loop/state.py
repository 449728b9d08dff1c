"""The loop's records: its state and what it remembers (verifications, verifier runs, judged claims,
refuted workspaces), the limits that end every loop, and the one constructor of a loop.

Plain frozen dataclasses: `tiergate.loop.store` writes and rebuilds them by their field types.
"""

from __future__ import annotations

from dataclasses import replace

from tiergate import TYPE_CHECKING
from tiergate.frozen import frozen
from tiergate.loop import features, interventions
from tiergate.loop.features import Feature
from tiergate.loop.interventions import INTERVENTION_POLICY, InterventionPolicy
from tiergate.loop.stalls import STALL_POLICY, StallPolicy

if TYPE_CHECKING:
    from typing import Any, Literal

    Phase = Literal["working", "verifying", "passed", "halted", "cancelled"]

PHASES: tuple[Phase, ...] = ("working", "verifying", "passed", "halted", "cancelled")
VERIFIER_PREFIX = "tiergate:architect"
DEFAULT_MAX_ITERATIONS = 20
DEFAULT_BUDGET_SECONDS = 4 * 3600.0


@frozen
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


@frozen
class VerifierRun:
    """A verifier that started (SubagentStart) while its verification was pending."""

    agent_id: str
    agent_type: str
    started_at: float
    fingerprint: str | None
    redos: int = 0


@frozen
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
    marks: tuple[str, ...] = ()  # git's A/M/D/R for each of `paths` (empty: stored before they were kept)
    lead: tuple[str, ...] = ()  # checks still failing as when the loop began: the packet starts with them
    tests: tuple[str, ...] = ()  # the gate's tests story, per test check
    test_files: tuple[str, ...] = ()  # the changed test files, each "<mark> <path>"
    test_changes: str = ""  # their changed lines, quoted (`tiergate.tier.testchanges`); "": none
    mutants: str = ""  # the changed lines' mutants, survivors named (`tiergate.tier.mutation`); "": none


@frozen
class AttemptRecord:
    """One judged claim: refuted (by the gate or a verifier) or passed, on which approach, and what
    stall detection needs of it (the failure's signature and the workspace it was made on)."""

    item: str
    passed: bool
    reason: str = ""
    signature: str = ""
    fingerprint: str | None = None
    by: str = "verifier"  # "gate", "verifier", or "stall" (empty turns)


@frozen
class RefutedWorkspace:
    """A refutation bound to the workspace it judged. A claim on that same workspace, for the same task,
    gets it again at once: no gate run, no verifier (which outcomes bind: the note above `REFUTED_KEPT`)."""

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


@frozen
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
    # The configuration the loop started with, validated, in its JSON form, and the file it came from
    # (None: the defaults). Every decision of the loop uses it, never the file as the agent may have
    # edited it since. `config` None: a loop stored before the configuration was kept (read as before).
    config: dict[str, Any] | None = None
    config_source: str | None = None
    # The user's own loop this one adopted ("ralph-loop", "omc-ralph", "omc-autopilot", "goal"; None:
    # tiergate's own): its claims are verified, its non-claim stops left to it while it runs
    # (`tiergate.loop.adoption`).
    adopted: str | None = None
    # An adopted goal loop has seen its goal running in the transcript (`tiergate.loop.goalloop`): a
    # transcript that later records no goal at all was rewritten, not refused by Claude Code.
    goal_seen: bool = False
    # The workspace the loop began on, as tiergate's own commit (`tiergate.workspace.loopbase`), when it
    # was not `base` (the user's uncommitted or untracked work): the loop's change is measured from it.
    start: str | None = None
    # The digest of the record of the environment the checks run with, kept as the loop began
    # (`tiergate.gate.environment.keptrecord`): a claim finds it as it was, or is THOROUGH. None: none was
    # kept (a loop stored before such records were), and a claim compares nothing.
    environment: str | None = None

    @property
    def change_base(self) -> str | None:
        """What the loop's change is measured from: the workspace it began on, else its base commit."""
        return self.start or self.base

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


@frozen
class Policies:
    """The configured intervention and stall rules (`[interventions]`, `[stalls]`)."""

    interventions: InterventionPolicy = INTERVENTION_POLICY
    stalls: StallPolicy = STALL_POLICY


POLICIES = Policies()


def new_loop(
    session_id: str,
    task: str,
    *,
    now: float,
    base: str | None,
    promise: str,
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
) -> LoopState:
    """A ralph loop on `task` (`with_features` makes it an autopilot), with the default budget and no
    configuration kept (`tiergate.loop.startrequest.begin` sets them)."""
    return LoopState(
        session_id=session_id,
        task=task,
        promise=promise,
        max_iterations=max_iterations,
        budget=DEFAULT_BUDGET_SECONDS,
        base=base,
        started_at=now,
    )


def with_features(state: LoopState, feature_list: tuple[Feature, ...]) -> LoopState:
    """`state` as an autopilot of `feature_list`: its task is the first feature's."""
    if not feature_list:
        return state
    return replace(state, task=feature_list[0].task, features=feature_list)


def next_approach(state: LoopState) -> LoopState:
    """The next approach; an autopilot's is the next feature, which becomes the task."""
    moved = replace(state, approach=state.approach + 1)
    following = features.current(state.features, moved.approach)
    return replace(moved, task=following.task) if following is not None else moved
