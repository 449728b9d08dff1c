"""`tiergate ralph start "<task>"` and `tiergate ralph reload`: a loop from a shell, and new rules for it.

A started loop waits in `<state_dir>/pending.json` for the next Claude Code session here; its base is
HEAD, or the dirty workspace as it is now. `reload` reads the configuration again into every active loop
(docs/configuration.md, "A loop keeps the rules it started with").
"""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path

from tiergate.config.settings import load_config
from tiergate.errors import UserError
from tiergate.log import decision_log
from tiergate.loop import slash as loopcommands
from tiergate.loop import store as state
from tiergate.loop.claims import promise_tag
from tiergate.loop.events import Outcome
from tiergate.loop.features import Feature
from tiergate.loop.logfields import log_fields
from tiergate.loop.start import at_head, base_text, keep_pending_green, rules_reason, start_line
from tiergate.loop.startrequest import Start
from tiergate.loop.state import LoopState
from tiergate.project import Project, locate
from tiergate.text import brief, plural

RELOAD_HELP = "read the configuration again into the active loops of this project (their rules)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", help="start a loop on TASK", description=parser.description)
    start.add_argument("task", metavar="TASK", help="what the loop must get done")
    start.add_argument(
        "--max-iterations", metavar="N", help="iteration cap (default: [loop] max_iterations, 20)"
    )
    start.add_argument(
        "--promise",
        "--completion-promise",
        dest="promise",
        metavar="TEXT",
        help="the completion promise (default: DONE); --completion-promise is ralph-loop's name for it",
    )
    actions.add_parser("reload", help=RELOAD_HELP, description=RELOAD_HELP)


def run(args: argparse.Namespace) -> int:
    if args.action == "reload":
        return reload()

    project = locate(Path.cwd(), os.environ)
    pending = pending_loop(project, args.task, args.max_iterations, args.promise)
    replaced = state.write_pending(project, pending)
    _log(project, pending, replaced)
    dirty = start_line(pending)
    if dirty is not None:
        print(dirty)
    if replaced is not None:
        print(f"tiergate: replaced the loop that was pending ('{brief(replaced.task)}')")
    print(
        f"tiergate: loop pending in {project.root}: the next Claude Code session there takes it up "
        f"(at most {plural(pending.max_iterations, 'iteration')}; it ends when a verifier passes a claim "
        f"ending with {promise_tag(pending.promise)}). `tiergate cancel` drops it."
    )
    return 0


def reload() -> int:
    """Replace the kept configuration of every active loop with the project's as it is now; a broken
    configuration is one line and changes nothing."""
    project = locate(Path.cwd(), os.environ)
    config = load_config(project.root)
    rules, source = config.kept(), config.source

    def renew(current: LoopState | None) -> tuple[LoopState | None, LoopState | None]:
        if current is None or not current.active:
            return None, None
        return replace(current, config=rules, config_source=source), current

    reloaded = 0
    for loop in state.all_loops(project):
        before = state.update(project, loop.session_id, renew) if loop.active else None
        if before is not None:
            reloaded += 1
            _log_reload(project, replace(before, config=rules, config_source=source), before)
    where = source or "the defaults (no configuration)"
    print(f"tiergate: {reloaded} active loop(s) now run with the configuration from {where}")
    return 0


def _log_reload(project: Project, new: LoopState, old: LoopState) -> None:
    reasons: tuple[str, ...] = (
        f"reload: tiergate ralph reload, the rules from {new.config_source or 'the defaults'}",
    )
    if old.config is None:
        reasons += ("the loop kept no configuration before (it read the project's at each decision)",)
    else:
        kept, now = old.config, new.config or {}
        changed = sorted(k for k in {*kept, *now} if kept.get(k) != now.get(k))
        reasons += (f"sections changed: {', '.join(changed) or 'none'}",)
    decision_log(project).info("ralph reload", **log_fields(new.session_id, Outcome(new, "reload", reasons)))


def pending_loop(
    project: Project,
    task: str,
    max_iterations: str | None,
    promise: str | None,
    feature_list: tuple[Feature, ...] = (),
) -> LoopState:
    """The loop to wait for a session, beginning at HEAD: on `task`, or with `feature_list` an autopilot;
    UserError for bad arguments or no git."""
    if not feature_list and not task.strip():
        raise UserError("the task is empty; say what the loop must get done")
    try:
        cap = None if max_iterations is None else loopcommands.check_max_iterations(max_iterations)
        word = None if promise is None else loopcommands.check_promise(promise)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    loop = at_head(project, "", Start(task.strip(), feature_list, word, cap))
    keep_pending_green(project, loop)
    return loop


def _log(project: Project, pending: LoopState, replaced: LoopState | None) -> None:
    reasons: tuple[str, ...] = (
        f"start: tiergate ralph start, base {base_text(pending)}; waits for a session",
        rules_reason(pending),
    )
    if replaced is not None:
        reasons += ("replaces the loop that was pending",)
    decision_log(project).info("ralph start", **log_fields("", Outcome(pending, "pending", reasons)))
