"""What the loop decides on and what it answers: the events the adapters build from the hook inputs
(with the facts they measured), and the `Outcome` of one decision."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.frozen import frozen
from tiergate.loop.state import LIMITS, POLICIES, Limits, LoopState, Policies

if TYPE_CHECKING:
    from tiergate.loop.claims import ClaimCheck
    from tiergate.loop.goal import GoalAtStop
    from tiergate.loop.verdict import Judgement
    from tiergate.workspace.manifest import Changes


@frozen
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
    marks: tuple[str, ...] = ()  # git's A/M/D/R for each of `paths`, in order
    test_files: tuple[str, ...] = ()  # the changed test files, each "<mark> <path>"
    test_changes: str = ""  # their changed lines, quoted, for the packet (`tiergate.tier.testchanges`)
    mutants: str = ""  # the changed lines' mutants and their survivors, quoted (`tiergate.tier.mutation`)


@frozen
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
    failing_then: tuple[str, ...] = ()  # checks failing as when the loop began, with their failing tests
    lead: tuple[str, ...] = ()  # what leads the evidence packet: those checks (`GateResult.lead_lines`)
    tests: tuple[str, ...] = ()  # the TESTS section of the evidence packet (`GateResult.tests_lines`)


@frozen
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
    # The claim's checks still run in the background (`tiergate.gate.atclaim`): where they stand.
    checks_running: str | None = None
    gate: GateFacts | None = None
    dirty: bool | None = None  # the workspace differs from the last green point (None: unknown)
    policies: Policies = POLICIES
    # An adopted loop's foreign loop still runs for this session and sends Claude back itself at this stop;
    # when it does not, why (its file is gone, its limit is reached).
    foreign_alive: bool = False
    foreign_gone: str = ""
    log: str | None = None  # where the decision log is, for a message that sends the user there
    # An adopted goal loop's goal, as the transcript records it at this Stop (None: not a goal loop, or
    # its transcript could not be read).
    goal: GoalAtStop | None = None


@frozen
class Moment:
    """The moment a Stop is decided at: the Stop, the time (seconds since the epoch), the loop's limits."""

    stop: Stop
    now: float
    limits: Limits = LIMITS


@frozen
class StopFailure:
    error: str
    prompt_id: str | None = None  # the turn the error ended, when the CLI says


@frozen
class SubagentStart:
    agent_id: str
    agent_type: str
    fingerprint: str | None = None


@frozen
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


@frozen
class UserPrompt:
    """A prompt from the user (not a tiergate command): the user is back, so nothing is idle. An adopted
    goal loop's goal comes with it, as the transcript records it now (Claude Code runs no hook for
    `/goal clear`: the next prompt is where its end is seen first)."""

    goal: GoalAtStop | None = None


@frozen
class TaskNotification:
    """A background task (a verifier launched in the background) reporting back through a prompt that
    starts `<task-notification>`: a new turn, but not the user speaking."""


@frozen
class Compaction:
    trigger: str  # "manual" (/compact) or "auto"


@frozen
class SessionEnd:
    reason: str


@frozen
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


@frozen
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
