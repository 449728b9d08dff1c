"""An active loop's Stop when its state cannot be trusted: block once, then halt (`tiergate.loop.failclosed`
decides which; this adapter reads and writes the marker, sets the damaged file aside, halts, logs).

Every write here is best effort and each one on its own: the state folder may be full or read-only,
which may be the very problem, and the answer (a block, or a halt that lets the stop go) must still
reach Claude Code.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import replace

from tiergate import TYPE_CHECKING
from tiergate.hook.protocol import HookReply
from tiergate.loop import failclosed, ledger
from tiergate.loop import store as state

if TYPE_CHECKING:
    from tiergate.loop.state import LoopState
    from tiergate.project import Project


def stop(
    project: Project,
    session_id: str,
    problem: str,
    current: LoopState | None = None,
    *,
    damaged: bool = False,
) -> HookReply:
    """The Stop's answer for a loop whose state has `problem` (`current`: the loop when its file still
    reads; `damaged`: the file is there but is not tiergate's writing, so it is set aside at the halt)."""
    state_dir = os.fspath(project.state_dir)
    token = ledger.loop_token(current.started_at) if current else ledger.started(state_dir, session_id)
    marker = ledger.read_marker(state_dir, session_id)
    blocked_before = marker is not None and marker.get("token") == token
    kept = False
    if not blocked_before:
        record = {"stage": "blocked", "token": token, "problem": problem, "at": time.time()}
        kept = ledger.write_marker(state_dir, session_id, record) is not None
    choice = failclosed.choose(blocked_before=blocked_before, marker_kept=kept)
    if choice.action == "block":
        _log(project, session_id, "fail_closed", [f"block once: {problem}", choice.why])
        reason, message = failclosed.block_reason(problem), failclosed.block_message(problem)
        return HookReply(block_reason=reason, system_message=message)
    kept_at = _set_aside(project, session_id) if damaged else None
    if current is not None:
        _halt_state(project, session_id, current, problem)
    reasons = [f"halt: the loop's state {problem}", choice.why]
    logged = _log(project, session_id, "loop_halted", reasons, kept_at)
    halted: dict[str, object] = {"stage": "halted", "token": token, "problem": problem, "kept": kept_at}
    halted["at"] = time.time()
    if not logged:  # a full disk: the record is written when the halt is settled (`halted_before`)
        halted["owed"] = reasons
    ledger.write_marker(state_dir, session_id, halted)  # the tombstone: this loop's state is gone on purpose
    return HookReply(system_message=failclosed.halt_message(problem, choice.why, kept_at))


def lost(project: Project, session_id: str) -> str | None:
    """The problem of a session whose loop file is gone mid-loop, or None."""
    if not ledger.lost_loop(os.fspath(project.state_dir), session_id):
        return None
    return f"is gone (its loop file loops/{session_id}.json was deleted while the loop ran)"


def halted_before(project: Project, session_id: str, current: LoopState) -> bool:
    """Whether this loop was halted already by failing closed while its halt could not be written (a
    full disk): the halt is recorded now, and the stop goes ahead (the user was told then)."""
    marker = ledger.read_marker(os.fspath(project.state_dir), session_id)
    if marker is None or marker.get("stage") != "halted":
        return False
    if marker.get("token") != ledger.loop_token(current.started_at):
        return False
    _halt_state(project, session_id, current, str(marker.get("problem")))
    owed = marker.get("owed")
    if isinstance(owed, list) and _log(project, session_id, "loop_halted", [str(r) for r in owed]):
        ledger.write_marker(os.fspath(project.state_dir), session_id, {**marker, "owed": None})
    return True


def sound(project: Project, session_id: str) -> None:
    """A stop decided normally: an earlier marker of this session no longer applies."""
    state_dir = os.fspath(project.state_dir)
    if any(os.path.exists(path) for path in ledger.marker_paths(state_dir, session_id)):  # noqa: PTH110
        ledger.clear_marker(state_dir, session_id)


def _set_aside(project: Project, session_id: str) -> str | None:
    """Move the damaged loop file out of the way (kept for a post-mortem); where it went, or None."""
    try:
        return os.fspath(state.set_aside(state.loop_path(project, session_id)))
    except OSError:
        return None


def _halt_state(project: Project, session_id: str, current: LoopState, problem: str) -> None:
    """Record the halt in the loop's own state when it can still be written (it is often the problem)."""

    def halt(now: LoopState | None) -> tuple[LoopState | None, None]:
        if now is None or now.started_at != current.started_at or not now.active:
            return None, None
        why = f"the loop's state {problem}"
        return replace(now, phase="halted", ended_at=time.time(), end_reason=why, verification=None), None

    with contextlib.suppress(Exception):
        state.update(project, session_id, halt)


def _log(
    project: Project, session_id: str, decision: str, reasons: list[str], kept_at: str | None = None
) -> bool:
    from tiergate.log import write_decision

    fields: dict[str, object] = {"session_id": session_id, "decision": decision, "reasons": reasons}
    if decision == "loop_halted":
        fields.update(phase="halted", halt_reason=reasons[0], kept=kept_at)
    try:
        write_decision(project, "Stop", fields, level="error")
    except Exception:  # the answer must reach Claude Code even with the log unwritable
        return False
    return True
