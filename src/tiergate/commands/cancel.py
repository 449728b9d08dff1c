"""`tiergate cancel [--session ID]`: end the loops of this project (or one session's), and drop a loop
still waiting for a session. A cancelled loop's next Stop goes through.

Cancel always works: a loop file that does not read as tiergate wrote it is kept aside (`put_aside`),
its loop recorded as ended on purpose, and logged."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from tiergate.errors import UserError
from tiergate.gate import background
from tiergate.log import decision_log
from tiergate.loop import ledger
from tiergate.loop import store as state
from tiergate.loop.decision import decide
from tiergate.loop.events import Cancel, Outcome
from tiergate.loop.logfields import log_fields
from tiergate.loop.state import LoopState
from tiergate.loop.store import Damaged
from tiergate.project import Project, is_valid_session_id, locate
from tiergate.text import brief


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", metavar="ID", help="cancel only this session's loop")


def run(args: argparse.Namespace) -> int:
    project = locate(Path.cwd(), os.environ)
    if args.session is not None and not is_valid_session_id(args.session):
        raise UserError(f"not a session id: {args.session!r}")
    loops, damaged = state.survey(project)
    if args.session is not None:
        sessions = [s.session_id for s in loops if s.session_id == args.session]
        damaged = [d for d in damaged if d.session_id == args.session]
    else:
        sessions = [s.session_id for s in loops if s.active]
    event = Cancel("tiergate cancel")
    log = decision_log(project)
    cancelled = 0
    for session_id in sessions:
        now = time.time()

        def cancel(current: LoopState | None, now: float = now) -> tuple[LoopState | None, Outcome]:
            outcome = decide(current, event, now)
            return outcome.state, outcome

        try:
            outcome = state.update(project, session_id, cancel)
        except state.StateError as exc:  # damaged since the survey
            damaged.append(state.Damaged(state.loop_path(project, session_id), str(exc), session_id))
            continue
        if outcome.decision == "cancel" and outcome.state is not None:
            log.info("cancel", **log_fields(session_id, outcome))
            cancelled += 1
            print(
                f"tiergate: cancelled the loop of session {session_id} "
                f"(iteration {outcome.state.iteration}/{outcome.state.max_iterations})"
            )
    for found in damaged:
        put_aside(project, found)
    stopped = _stop_background(project, args.session)
    dropped = _drop_pending(project) if args.session is None else None
    if dropped is not None:
        dropped_outcome = Outcome(None, "cancel", ("dropped the pending loop",))
        log.info("cancel", **log_fields("", dropped_outcome))
        print(f"tiergate: dropped the pending loop ('{brief(dropped.task)}')")
    if not cancelled and dropped is None and not damaged and not stopped:
        where = f"session {args.session}" if args.session else str(project.root)
        print(f"tiergate: no active loop in {where}; nothing to cancel")
    return 0


def _stop_background(project: Project, session_id: str | None) -> bool:
    """End the project's background gate (only the session's, when one is named), its checks with it."""
    job = background.cancel(project, session_id)
    if job is not None:
        print(f"tiergate: stopped the checks running in the background for session {job.session_id}")
    return job is not None


def _drop_pending(project: Project) -> LoopState | None:
    try:
        return state.drop_pending(project)
    except state.StateError as exc:  # damaged since the survey
        put_aside(project, state.Damaged(state.pending_path(project), str(exc), None))
        return None


def put_aside(project: Project, found: Damaged) -> None:
    """Keep a damaged loop file aside and end its loop: a session's is marked as ended on purpose in the
    ledger (its next Stop goes through), and the cancel is logged with where the file went."""
    aside = state.set_aside(found.path)
    whose = "the pending loop" if found.session_id is None else f"the loop of session {found.session_id}"
    problem = f"its state file was damaged ({found.problem})"
    if found.session_id is not None:
        state_dir = os.fspath(project.state_dir)
        token = ledger.started(state_dir, found.session_id)
        if token is not None:
            # The tombstone a fail-closed halt writes: this loop's state is gone on purpose.
            tombstone = {"stage": "halted", "token": token, "at": time.time(), "kept": os.fspath(aside)}
            ledger.write_marker(state_dir, found.session_id, {**tombstone, "problem": problem})
    fields = {"session_id": found.session_id or "", "decision": "cancel", "phase": "cancelled"}
    fields["kept"] = os.fspath(aside)
    decision_log(project).info("cancel", **fields, reasons=[f"cancel: {whose}: {problem}"])
    print(f"tiergate: ended {whose}: its state file could not be read; kept it aside as {aside}")
