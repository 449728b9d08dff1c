"""`tiergate report [--output FILE] [--open] [--loops N]`: the project's loops as one HTML page.

Made from the decision log alone (records whose seal fails are left out, and the page says how many) by
the pure `tiergate.report`. Written to `<state dir>/report.html` unless `--output` names a file; `--open`
shows it in the user's browser.
"""

from __future__ import annotations

import argparse
import os
import sys
import webbrowser
from dataclasses import replace
from pathlib import Path

from tiergate.errors import UserError
from tiergate.log import read_log, utc_timestamp
from tiergate.project import Project, locate, write_atomic
from tiergate.report import loops, render

REPORT_NAME = "report.html"
DEFAULT_LOOPS = 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--output",
        metavar="FILE",
        help=f"where to write the page (default: {REPORT_NAME} in the state folder)",
    )
    parser.add_argument("--open", action="store_true", help="open the page in your web browser")
    parser.add_argument(
        "--loops",
        metavar="N",
        type=_positive,
        default=DEFAULT_LOOPS,
        help=f"show the last N loops (default {DEFAULT_LOOPS})",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"not a positive number: {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    project = locate(Path.cwd(), os.environ)
    target = Path(args.output).absolute() if args.output else project.state_dir / REPORT_NAME
    if args.output and not target.parent.is_dir():
        raise UserError(f"cannot write the report to {target}: there is no folder {target.parent}")
    held, left_out = write(project, target, max_loops=args.loops)
    if left_out:
        print(left_out, file=sys.stderr)
    print(f"tiergate: report of {held} written to {target}")
    if args.open and not webbrowser.open(target.as_uri()):
        print(f"tiergate: no browser to open it with; open {target} yourself", file=sys.stderr)
    return 0


def write(project: Project, target: Path, *, max_loops: int = DEFAULT_LOOPS) -> tuple[str, str]:
    """Write the report of `project`'s log to `target`; what it holds ("3 loops", "the last 20 of 31
    loops") and the line saying what the log's reader left out ("" if nothing). UserError when the file
    cannot be written."""
    records = read_log(project)
    built = loops.build(records, max_loops=max_loops)
    # The reader counts what it left out while it is iterated: read once above, its counts are final now.
    report = replace(built, damaged=records.damaged, foreign=records.foreign)
    text = render.page(report, project=project.root.name or str(project.root), generated=utc_timestamp())
    if target.is_dir():
        raise UserError(f"cannot write the report to {target}: it is a directory")
    try:
        write_atomic(target, text.encode("utf-8"))
    except OSError as exc:
        raise UserError(f"cannot write the report to {target}: {exc.strerror or exc}") from exc
    shown = len(report.loops)
    held = f"{shown} loop{'s' if shown != 1 else ''}"
    if report.omitted_loops:
        held = f"the last {held} of {report.total_loops}"
    return held, records.left_out()
