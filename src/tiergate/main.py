"""The command line: parse arguments, dispatch to one module per command, turn errors into one line.

`tiergate hook <Event>` bypasses argparse entirely: every Claude Code hook pays for this module's imports.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Protocol

from tiergate import __version__
from tiergate.errors import UserError

# name -> module under tiergate.commands. Each module has `add_arguments(parser)` and `run(args) -> int`,
# and keeps its top level light (heavy imports go inside `run`).
COMMANDS: dict[str, str] = {
    "tier": "tier",
}


class CommandModule(Protocol):
    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _command(name: str) -> CommandModule:
    module: CommandModule = importlib.import_module(f"tiergate.commands.{COMMANDS[name]}")  # type: ignore[assignment]
    return module


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tiergate",
        description="Verify an autonomous coding loop's completion claims, scaled to the risk of the change.",
    )
    parser.add_argument("--version", action="version", version=f"tiergate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = _command(name)
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.HELP))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:
        from tiergate.hook import main as hook_main

        return hook_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return _command(args.command).run(args)
    except UserError as exc:
        print(f"tiergate: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tiergate: interrupted", file=sys.stderr)
        return 130
