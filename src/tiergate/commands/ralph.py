"""`tiergate ralph start "<task>"`: start a loop from a shell.

No session exists yet, so the loop waits in `<state_dir>/pending.json` and is bound to the next Claude
Code session that reaches a tiergate hook in this project (one that has no active loop of its own). Its
base, the commit its changes are measured from, is HEAD now; its clock starts when it is bound.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tiergate.loop.features import Feature
    from tiergate.loop.records import LoopState
    from tiergate.project import Project

HELP = "start a ralph loop from a shell; the next Claude Code session in this project takes it up"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", help="start a loop on TASK", description=HELP)
    start.add_argument("task", metavar="TASK", help="what the loop must get done")
    start.add_argument(
        "--max-iterations", metavar="N", help="iteration cap (default: [loop] max_iterations, 20)"
    )
    start.add_argument("--promise", metavar="TEXT", help="the completion promise (default: DONE)")


def run(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from tiergate.loop import store as state
    from tiergate.loop.claims import promise_tag
    from tiergate.project import locate

    project = locate(Path.cwd(), os.environ)
    pending = pending_loop(project, args.task, args.max_iterations, args.promise)
    replaced = state.write_pending(project, pending)
    _log(project, pending, replaced)
    if replaced is not None:
        print(f"tiergate: replaced the loop that was pending ({replaced.task[:60]!r})")
    print(
        f"tiergate: loop pending in {project.root}: the next Claude Code session there takes it up "
        f"(at most {pending.max_iterations} iterations; it ends when a verifier passes a claim ending with "
        f"{promise_tag(pending.promise)}). `tiergate cancel` drops it."
    )
    return 0


def pending_loop(
    project: Project,
    task: str,
    max_iterations: str | None,
    promise: str | None,
    feature_list: tuple[Feature, ...] = (),
) -> LoopState:
    """The loop to wait for a session, beginning at HEAD: on `task`, or with `feature_list` an autopilot;
    UserError for bad arguments or no git."""
    from tiergate.errors import UserError
    from tiergate.loop import slash as loopcommands
    from tiergate.loop.launch import at_head
    from tiergate.loop.start import Start

    if not feature_list and not task.strip():
        raise UserError("the task is empty; say what the loop must get done")
    try:
        cap = None if max_iterations is None else loopcommands.check_max_iterations(max_iterations)
        word = None if promise is None else loopcommands.check_promise(promise)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return at_head(project, "", Start(task.strip(), feature_list, word, cap))


def _log(project: Project, pending: LoopState, replaced: LoopState | None) -> None:
    from tiergate.log import decision_log
    from tiergate.loop.events import Outcome
    from tiergate.loop.logrecord import log_fields

    reasons: tuple[str, ...] = (f"start: tiergate ralph start, base {pending.base}; waits for a session",)
    if replaced is not None:
        reasons += ("replaces the loop that was pending",)
    decision_log(project).info("ralph start", **log_fields("", Outcome(pending, "pending", reasons)))
