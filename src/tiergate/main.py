"""The `tiergate` program: `tiergate hook <Event>` goes to the hook's entry before anything else is
imported, every other command to the command line (`tiergate.commands`).

Every Claude Code hook started as `python -m tiergate hook` pays for this module's imports: its top
imports nothing but `sys` and the hook's entry.
"""

from __future__ import annotations

import sys

from tiergate.hook.entry import main as hook_main


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:
        return hook_main(argv[1:])
    # Here, not at the top: argparse, typing and the rest of the command line are no hook's business.
    from tiergate.commands import run

    return run(argv)
