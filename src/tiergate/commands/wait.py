"""`tiergate wait [--timeout SECONDS]`: wait for the checks tiergate runs in the background for a claim
(`tiergate.gate.background`), then say how they ended. What the agent runs when a Stop said its checks
are still running: it returns as soon as they are done, and the next Stop reads their result.

Exit 0 once no check runs in the background (or none did), 1 when the timeout came first."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tiergate.errors import UserError
from tiergate.gate import background
from tiergate.gate.atclaim import running_text
from tiergate.gate.background import Job
from tiergate.project import locate

DEFAULT_TIMEOUT = 570.0  # under the ten minutes a Bash tool call may take at most


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"return after this long even if they still run (default {DEFAULT_TIMEOUT:g})",
    )


def run(args: argparse.Namespace) -> int:
    if args.timeout < 0:
        raise UserError("--timeout must be 0 or more")
    project = locate(Path.cwd(), os.environ)
    job = background.wait(project, None, args.timeout)
    if job is None:
        print("tiergate: no checks run in the background here")
        return 0
    if not job.over:
        print(running_text(job).split(". ")[0] + ". Run `tiergate wait` again, or end your turn.")
        return 1
    print(f"tiergate: the checks are over ({_ended(job)}); end your turn with your claim to read the verdict")
    return 0


def _ended(job: object) -> str:
    assert isinstance(job, Job)
    return {
        "done": "they finished",
        "changed": "the workspace changed while they ran: the next claim runs them again",
        "cancelled": "they were cancelled",
        "failed": f"they could not run: {job.note}",
    }.get(job.state, f"they stopped ({job.state})")
