"""`tiergate checks [--json] [--base REV] [--timeout SECONDS] [--rerun]`: the gate, run now.

Runs the project's checks as a completion claim would and prints what the gate would tell Claude. Exit 0
when the checks do not refute a claim, 1 when they do (a check that could not run always does); a
configuration error is one line, and nothing runs. On a terminal, progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TextIO

from tiergate.config.settings import load_config
from tiergate.gate.baseline import base_commit
from tiergate.gate.detection.projectchecks import checks_at_base
from tiergate.gate.processes import ProgressEvent
from tiergate.gate.request import GateRequest
from tiergate.gate.run import run_gate
from tiergate.gate.runrequest import RunRequest
from tiergate.gate.timeouts import TimeLimits
from tiergate.gate.verdicttext import Against
from tiergate.loop import store as state
from tiergate.project import git_top_level, locate
from tiergate.workspace.loopbase import change_base, judging

TEXT_LIMIT = 20_000
SHORT_SHA = 12


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base", metavar="REV", help="compare with the checks at REV (default: the loop's start, else HEAD)"
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help=(
            "per check, before its process group is ended (default: [gate] timeout_seconds, else a "
            "multiple of the check's time at the base)"
        ),
    )
    parser.add_argument("--rerun", action="store_true", help="run again even if this workspace has results")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds: {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    project = locate(Path.cwd(), os.environ)
    config = load_config(project.root)
    loop = None if args.base else state.latest_active(project)
    if loop is not None:
        judging(loop.started_at)
    base = args.base or (change_base(project, loop.start, loop.base) if loop else None)
    # In a loop, the checks its gate runs: as declared at its base. Otherwise the files as they are now.
    checks = checks_at_base(project.root, config, base_commit(project.root, base) if loop and base else None)
    if base is not None and not args.base and not args.json:
        print(f"tiergate: compared with the workspace as it was when the loop began ({base[:12]})")
    progress = TerminalProgress(sys.stderr) if sys.stderr.isatty() else None
    limits = TimeLimits(args.timeout or config.gate.timeout_seconds)
    refute = config.gate.base_tests == "refute"
    request = GateRequest(base, tuple(checks), limits=limits, refute_regressions=refute)
    result = run_gate(project, RunRequest(request, progress=progress, reuse=not args.rerun))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(result.report_text(TEXT_LIMIT, against(project.root, args.base, base)))
    return 1 if result.refuted else 0


def against(root: Path, given: str | None, base: str | None) -> Against:
    """What the checks were compared with, as the person reads it: the revision they gave, the active
    loop's base, or HEAD; nothing outside git or before the first commit."""
    if git_top_level(str(root)) is None:
        return Against("", "not a git repository")
    commit = base_commit(root, base)
    if commit is None:
        return Against("", "the repository has no commits yet")
    name = given or ("the loop's base" if base else "HEAD")
    return Against(f"{name} ({commit[:SHORT_SHA]})")


class TerminalProgress:
    """One line per check start and end, and one per heartbeat of a long check."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def __call__(self, event: ProgressEvent) -> None:
        prefix = f"tiergate: [{event.label}] " if event.label else "tiergate: "
        name = event.check.name
        if event.event == "start":
            line = f"{name} started: {event.check.command}"
        elif event.event == "running":
            line = f"{name} still running ({event.elapsed:.0f} s)"
        else:
            result = event.result
            reason = result.reason if result else "done"
            status = "done" if result is None else result.status.replace("_", " ")
            if result is not None and result.could_not_run:
                line = f"{name}: {reason}"  # the reason says "could not run" and why
            else:
                line = f"{name} {status} in {event.elapsed:.1f} s ({reason})"
        print(prefix + line, file=self.stream, flush=True)
