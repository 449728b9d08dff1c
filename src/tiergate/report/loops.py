"""The loops of the decision log as the report shows them (pure: records in, dataclasses out).

A loop is one session's records from a `start` (or an `adopt`) to the next; each record is one step of
its timeline, and the verifications its snapshots name are merged as `tiergate history` does. Strings
are kept as the log has them (much of it the agent wrote): `render` escapes all of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import Any

from tiergate.frozen import frozen

# The verdicts of a verifier that ran (the ones its cost counts for), as in `tiergate history`.
RAN = frozenset({"PASS", "FAIL", "INCOMPLETE", "DISQUALIFIED"})
# Decisions that say nothing happened to a loop (an event of another agent, say): not steps.
_SILENT = frozenset({"ignore"})
_STARTS = frozenset({"start", "adopt", "bind"})
# Of a claim's reasons, those that are not about its tier.
_NOT_TIER_REASONS = ("claim: ", "claim-type: ", "gate: ", "iteration ", "spawn: ")
# What a decision was, for the timeline: its kind (the marker's shape) and a short label.
_KINDS: dict[str, tuple[str, str]] = {
    "start": ("start", "loop started"),
    "adopt": ("start", "loop adopted"),
    "bind": ("start", "loop started from a shell, bound to the session"),
    "gate-refuted": ("refuted", "claim refuted by the checks"),
    "refuted-again": ("refuted", "claim refuted again (same workspace)"),
    "spawn": ("claim", "claim: verifier requested"),
    "request-again": ("claim", "verifier requested again"),
    "claim-error": ("error", "the claim could not be checked"),
    "verifier-started": ("verifier", "verifier started"),
    "redo": ("redo", "verifier sent back (redo)"),
    "verdict": ("verdict", "verdict"),
    "halt": ("halt", "loop halted"),
    "loop_halted": ("halt", "loop halted"),
    "finalize": ("finish", "loop finished"),
    "cancel": ("cancel", "loop cancelled"),
    # Claude Code's /goal, adopted: its end other than met, the PASS it holds open, a new goal of the model's.
    "goal-cleared": ("cancel", "loop ended: the goal was cleared"),
    "goal-pending": ("note", "the PASS stands; Claude Code's goal still runs"),
    "goal-changed": ("note", "the model set a new goal: the task changed, the base did not"),
    # A completed task of Claude Code's task list: a step claim, judged for regressions only, no verifier.
    "task-accepted": ("task", "task completed: nothing that worked when the loop began is broken"),
    "task-refused": ("task-refused", "task completion refused: it broke what worked when the loop began"),
    "task-unchecked": ("error", "task completed unchecked: tiergate could not check it"),
}
# The kinds of a completed task's steps: their gate is read for regressions only.
TASK_KINDS = frozenset({"task", "task-refused"})


@frozen
class Check:
    """One check of one gate run."""

    name: str
    command: str
    status: str  # passed, failed, ...
    standing: str  # new (not failing when the loop began), pre-existing, passed, ...
    why: str
    duration: float | None
    exit_code: int | None
    failed_tests: tuple[str, ...]
    new_tests: tuple[str, ...]
    output_lines: tuple[str, ...]

    @property
    def new_failure(self) -> bool:
        return self.status != "passed" and self.standing == "new"


@frozen
class Gate:
    refuted: bool
    reused: bool
    checks: tuple[Check, ...]
    mutants: str = ""  # the changed lines' mutation score ("" when none ran)
    survivors: tuple[str, ...] = ()  # each surviving mutant, described

    @property
    def duration(self) -> float:
        return sum(c.duration or 0.0 for c in self.checks)


@frozen
class Rollback:
    to: str
    backup: str
    backup_ref: str


@frozen
class Verifier:
    """One verification of a loop, as its last snapshot left it."""

    id: str
    tier: str
    agent: str
    model: str
    verdict: str  # requested, PASS, FAIL, INCOMPLETE, DISQUALIFIED, VOID
    duration_s: float | None
    redos: int
    relative_cost: float
    thorough_cost: float
    files_changed: int | None
    lines_changed: int | None
    why: str  # a disqualification's or a void's reason

    @property
    def ran(self) -> bool:
        return self.verdict in RAN


@frozen
class Step:
    """One decision of a loop: what happened, when, at which iteration, and why."""

    kind: str  # start, refuted, claim, verifier, redo, verdict, halt, finish, cancel, error, note, task, ...
    label: str
    event: str
    decision: str
    timestamp: str
    iteration: int | None
    reasons: tuple[str, ...]
    tier: str | None = None
    verdict: str | None = None
    verifier: str | None = None  # the verification's id
    agent: str | None = None  # the verifier's agent and model, for a claim and a verdict
    model: str | None = None
    intervention: str | None = None
    rollback: Rollback | None = None
    halt_reason: str | None = None
    gate: Gate | None = None
    error: str | None = None

    @property
    def claim(self) -> bool:
        """Whether this step answers a completion claim (a Stop whose message ends with the promise)."""
        return self.kind in ("refuted", "claim") or any(r.startswith("claim: ") for r in self.reasons)

    @property
    def tier_reasons(self) -> tuple[str, ...]:
        """Of a claim sent to a verifier, the reasons that chose its tier (not the claim's or the gate's)."""
        if self.kind != "claim":
            return ()
        return tuple(r for r in self.reasons if not r.startswith(_NOT_TIER_REASONS))


@frozen
class Loop:
    session_id: str
    task: str | None
    steps: tuple[Step, ...]
    verifiers: tuple[Verifier, ...]

    @property
    def started(self) -> str:
        return self.steps[0].timestamp if self.steps else ""

    @property
    def ended(self) -> str:
        return self.steps[-1].timestamp if self.steps else ""

    @property
    def iterations(self) -> int:
        return max((s.iteration or 0 for s in self.steps), default=0)

    @property
    def outcome(self) -> str:
        """finished, halted, cancelled, or running (the log says nothing of an end yet)."""
        ends = {"finish": "finished", "halt": "halted", "cancel": "cancelled"}
        for step in reversed(self.steps):
            if step.kind in ends:
                return ends[step.kind]
            if step.kind == "start":
                break
        return "running"

    @property
    def end_reason(self) -> str | None:
        last = self.steps[-1] if self.steps else None
        if last is None or last.kind not in ("halt", "cancel", "finish"):
            return None
        return last.halt_reason or (last.reasons[0] if last.reasons else None)

    @property
    def claims(self) -> int:
        return sum(1 for s in self.steps if s.claim)

    @property
    def gate_runs(self) -> int:
        return sum(1 for s in self.steps if s.gate is not None and not s.gate.reused)

    @property
    def cost(self) -> float:
        return sum(v.relative_cost for v in self.verifiers if v.ran)

    @property
    def thorough_cost(self) -> float:
        return sum(v.thorough_cost for v in self.verifiers if v.ran)


@frozen
class Report:
    """The page: the loops shown (newest last), how many older ones were left off, what the log held."""

    loops: tuple[Loop, ...]
    total_loops: int
    records: int
    damaged: int = 0  # lines of the log that are not whole records
    foreign: int = 0  # records whose seal is missing or wrong: not tiergate's, left out
    unattached: int = 0  # sealed records of no loop (a crash record without a session, say)
    limits: Mapping[str, int] = field(default_factory=dict)

    @property
    def omitted_loops(self) -> int:
        return self.total_loops - len(self.loops)

    @property
    def cost(self) -> float:
        return sum(loop.cost for loop in self.loops)

    @property
    def thorough_cost(self) -> float:
        return sum(loop.thorough_cost for loop in self.loops)


def build(records: Iterable[Mapping[str, Any]], *, max_loops: int = 20) -> Report:
    """The report of the last `max_loops` loops of `records` (the log, oldest first)."""
    loops: list[_Building] = []
    current: dict[str, _Building] = {}
    count = unattached = 0
    for record in records:
        count += 1
        session = _text(record.get("session_id"))
        decision = _text(record.get("decision"))
        if not session or decision in _SILENT or (not decision and record.get("level") != "error"):
            unattached += not session
            continue
        building = current.get(session)
        if building is None or decision in _STARTS:
            building = current[session] = _Building(session)
            loops.append(building)
        building.add(record)
    shown = [b.loop() for b in loops[-max_loops:]] if max_loops > 0 else []
    return Report(
        tuple(shown),
        total_loops=len(loops),
        records=count,
        unattached=unattached,
        limits={"loops": max_loops},
    )


class _Building:
    """A loop while its records are read."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.task: str | None = None
        self.steps: list[Step] = []
        self.verifiers: dict[str, dict[str, Any]] = {}

    def add(self, record: Mapping[str, Any]) -> None:
        if self.task is None and isinstance(record.get("task"), str):
            self.task = record["task"]
        snapshots = [s for s in _list(record.get("verifications")) if isinstance(s, dict) and "id" in s]
        for snap in snapshots:
            self.verifiers.setdefault(_text(snap["id"]), {}).update(snap)
            if snap.get("status") == "DISQUALIFIED" and not snap.get("why"):
                # Why it was disqualified is the decision's first reason (the snapshot has none).
                first = _text(_list(record.get("reasons"))[0]) if _list(record.get("reasons")) else ""
                self.verifiers[_text(snap["id"])]["why"] = first.partition(": ")[2] or first
        self.steps.append(step(record, snapshots))

    def loop(self) -> Loop:
        verifiers = tuple(_verifier(key, snap) for key, snap in self.verifiers.items())
        return Loop(self.session_id, self.task, tuple(self.steps), verifiers)


def step(record: Mapping[str, Any], snapshots: list[dict[str, Any]]) -> Step:
    """The timeline's step for one record (`snapshots`: its verifications)."""
    decision = _text(record.get("decision"))
    kind, label = _KINDS.get(decision, ("note", decision.replace("-", " ").replace("_", " ")))
    if decision == "adopt" and _text(record.get("adopted_from")):
        label = f"loop adopted from {_text(record.get('adopted_from'))}"
    error = _text(record.get("error")) or None
    if record.get("level") == "error" and kind == "note":
        kind, label = "error", label or _text(record.get("event"))
    # A record closes at most one verification (its verdict, a disqualification) and may request the
    # next one (a verifier disqualified: another is requested at once).
    closed = next((s for s in snapshots if s.get("status") not in (None, "requested")), None)
    snap = closed or (snapshots[-1] if snapshots else {})
    verdict = None
    if kind == "claim" and not snapshots:  # the Stop that passes on a request made at a SubagentStop
        label = "verifier requested again"
    if closed is not None and kind in ("verdict", "claim"):
        kind, verdict = "verdict", _text(closed.get("status"))
        label = f"verdict {verdict}"
    return Step(
        kind=kind,
        label=label or "record",
        event=_text(record.get("event")),
        decision=decision,
        timestamp=_text(record.get("timestamp")),
        iteration=_int(record.get("iteration")),
        reasons=tuple(_text(r) for r in _list(record.get("reasons"))),
        tier=(_text(snap.get("tier")) or None) if kind == "claim" else None,
        verdict=verdict,
        verifier=_text(snap.get("id")) or None,
        agent=_text(snap.get("agent")) or None,
        model=_text(snap.get("model")) or None,
        intervention=_text(record.get("intervention")) or None,
        rollback=_rollback(record.get("rollback")),
        halt_reason=_text(record.get("halt_reason")) or None,
        gate=_gate(record.get("gate")),
        error=error,
    )


def _gate(value: object) -> Gate | None:
    if not isinstance(value, dict):
        return None
    checks = tuple(_check(c) for c in _list(value.get("checks")) if isinstance(c, dict))
    coverage = value.get("coverage")
    mutation = coverage.get("mutation") if isinstance(coverage, dict) else None
    mutation = mutation if isinstance(mutation, dict) else {}
    return Gate(
        refuted=value.get("refuted") is True,
        reused=value.get("reused") is True,
        checks=checks,
        mutants=_text(mutation.get("score")),
        survivors=_texts(mutation.get("survivors")),
    )


def _check(value: Mapping[str, Any]) -> Check:
    return Check(
        name=_text(value.get("name")),
        command=_text(value.get("command")),
        status=_text(value.get("status")),
        standing=_text(value.get("standing")),
        why=_text(value.get("why")),
        duration=_float(value.get("duration")),
        exit_code=_int(value.get("exit_code")),
        failed_tests=_texts(value.get("failed_tests")),
        new_tests=_texts(value.get("new_tests")),
        output_lines=_texts(value.get("output_lines")),
    )


def _rollback(value: object) -> Rollback | None:
    if not isinstance(value, dict):
        return None
    return Rollback(_text(value.get("to")), _text(value.get("backup")), _text(value.get("backup_ref")))


def _verifier(key: str, snap: Mapping[str, Any]) -> Verifier:
    return Verifier(
        id=key,
        tier=_text(snap.get("tier")),
        agent=_text(snap.get("agent")),
        model=_text(snap.get("model")),
        verdict=_text(snap.get("status")) or "requested",
        duration_s=_float(snap.get("duration_s")),
        redos=_int(snap.get("redos")) or 0,
        relative_cost=_float(snap.get("relative_cost")) or 0.0,
        thorough_cost=_float(snap.get("thorough_cost")) or 0.0,
        files_changed=_int(snap.get("files_changed")),
        lines_changed=_int(snap.get("lines_changed")),
        why=_text(snap.get("why")),
    )


# The log is tiergate's (sealed), but its fields are read defensively all the same: a record of an older
# version, or a field that is not what this version writes, must not break the page.
def _text(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _texts(value: object) -> tuple[str, ...]:
    return tuple(_text(v) for v in _list(value))


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
