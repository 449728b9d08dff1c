"""`tiergate autopilot start <features.json>`: start an autopilot from a shell.

Like `tiergate ralph start`, the loop waits in `<state_dir>/pending.json` for the next Claude Code session
in this project; it works through the file's features one at a time (`tiergate.loop.features`).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tiergate.commands.ralph import pending_loop
from tiergate.log import decision_log
from tiergate.loop import store as state
from tiergate.loop.events import Outcome
from tiergate.loop.logfields import log_fields
from tiergate.loop.start import base_text, read_features, start_line
from tiergate.project import locate
from tiergate.text import brief, plural


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", help="start an autopilot on FEATURES", description=parser.description)
    start.add_argument("features", metavar="FEATURES", help="the features file (JSON)")
    start.add_argument(
        "--max-iterations", metavar="N", help="iteration cap (default: [loop] max_iterations, 20)"
    )


def run(args: argparse.Namespace) -> int:
    project = locate(Path.cwd(), os.environ)
    listed = read_features(Path(args.features))
    pending = pending_loop(project, "", args.max_iterations, None, listed)
    replaced = state.write_pending(project, pending)
    reasons = (
        f"start: tiergate autopilot start, {plural(len(listed), 'feature')}, base {base_text(pending)}; "
        "waits for a session",
    )
    decision_log(project).info("autopilot start", **log_fields("", Outcome(pending, "pending", reasons)))
    dirty = start_line(pending)
    if dirty is not None:
        print(dirty)
    if replaced is not None:
        print(f"tiergate: replaced the loop that was pending ('{brief(replaced.task)}')")
    ids = ", ".join(f.id for f in listed)
    print(
        f"tiergate: autopilot pending in {project.root} with {plural(len(listed), 'feature')} ({ids}): "
        "the next Claude Code session there takes it up "
        f"(at most {plural(pending.max_iterations, 'iteration')}). "
        "`tiergate cancel` drops it."
    )
    return 0
