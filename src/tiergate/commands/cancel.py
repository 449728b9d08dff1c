"""`tiergate cancel [--session ID]`: end the loops of this project (or one session's), and drop a loop
still waiting for a session. A cancelled loop's next Stop goes through."""

from __future__ import annotations

import argparse

from tiergate.text import brief

HELP = "cancel the active loops of this project (or of one session) and any pending loop"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", metavar="ID", help="cancel only this session's loop")


def run(args: argparse.Namespace) -> int:
    import os
    import time
    from pathlib import Path

    from tiergate.errors import UserError
    from tiergate.log import decision_log
    from tiergate.loop import store as state
    from tiergate.loop.decision import decide
    from tiergate.loop.events import Cancel, Outcome
    from tiergate.loop.logrecord import log_fields
    from tiergate.loop.records import LoopState
    from tiergate.project import is_valid_session_id, locate

    project = locate(Path.cwd(), os.environ)
    if args.session is not None and not is_valid_session_id(args.session):
        raise UserError(f"not a session id: {args.session!r}")
    if args.session is not None:
        sessions = [args.session] if state.read(project, args.session) is not None else []
    else:
        sessions = [s.session_id for s in state.all_loops(project) if s.active]
    event = Cancel("tiergate cancel")
    log = decision_log(project)
    cancelled = 0
    for session_id in sessions:
        now = time.time()

        def cancel(current: LoopState | None, now: float = now) -> tuple[LoopState | None, Outcome]:
            outcome = decide(current, event, now)
            return outcome.state, outcome

        outcome = state.update(project, session_id, cancel)
        if outcome.decision == "cancel" and outcome.state is not None:
            log.info("cancel", **log_fields(session_id, outcome))
            cancelled += 1
            print(
                f"tiergate: cancelled the loop of session {session_id} "
                f"(iteration {outcome.state.iteration}/{outcome.state.max_iterations})"
            )
    dropped = state.drop_pending(project) if args.session is None else None
    if dropped is not None:
        dropped_outcome = Outcome(None, "cancel", ("dropped the pending loop",))
        log.info("cancel", **log_fields("", dropped_outcome))
        print(f"tiergate: dropped the pending loop ('{brief(dropped.task)}')")
    if not cancelled and dropped is None:
        where = f"session {args.session}" if args.session else str(project.root)
        print(f"tiergate: no active loop in {where}; nothing to cancel")
    return 0
