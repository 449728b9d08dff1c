"""The command line: parse arguments, dispatch to one module per command, turn errors into one line.

`tiergate hook <Event>` is routed before anything else is imported: every Claude Code hook pays for this
module's imports, so its top level imports nothing but `sys`.
"""

from __future__ import annotations

import sys

# Not `from typing import TYPE_CHECKING`: importing typing alone costs a hook several milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Protocol

    class CommandModule(Protocol):
        HELP: str

        def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

        def run(self, args: argparse.Namespace) -> int: ...


# name -> module under tiergate.commands. Each module has `HELP`, `add_arguments(parser)` and
# `run(args) -> int`, and keeps its top level light (heavy imports go inside `run`).
COMMANDS: dict[str, str] = {
    "tier": "tier",
    "ralph": "ralph",
    "autopilot": "autopilot",
    "cancel": "cancel",
    "status": "status",
    "history": "history",
    "report": "report",
    "doctor": "doctor",
    "demo": "demo",
    "backups": "backups",
    "restore": "restore",
    "checks": "checks",
    "wait": "wait",
    "replay": "replay",
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:
        from tiergate.hook.entry import main as hook_main

        return hook_main(argv[1:])
    return _run_command(argv)


def _run_command(argv: list[str]) -> int:
    from tiergate.errors import UserError

    args = build_parser().parse_args(argv)
    try:
        return _command(args.command).run(args)
    except UserError as exc:
        print(f"tiergate: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tiergate: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`tiergate history | head`): not an error worth a traceback. Point stdout at
        # /dev/null so that the interpreter's final flush does not raise again.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from tiergate import __version__

    parser = argparse.ArgumentParser(
        prog="tiergate",
        description="Verify an autonomous coding loop's completion claims, scaled to the risk of the change.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"tiergate {__version__}")
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_command_parser_class()
    )
    for name in COMMANDS:
        module = _command(name)
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.HELP))
    return parser


def _command_parser_class() -> type[argparse.ArgumentParser]:
    """A command's parser that refuses what it does not know itself, with its own usage.

    argparse hands a subcommand's unknown arguments back to the top-level parser, which then shows
    `usage: tiergate [-h] [--version] COMMAND ...`: no help to someone who mistyped `tiergate demo --bogus`.
    Nested commands (`ralph start`) get the same class, so each error names the parser that failed.
    """
    import argparse

    class CommandParser(argparse.ArgumentParser):
        def parse_known_args(  # type: ignore[override]
            self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
        ) -> tuple[argparse.Namespace, list[str]]:
            parsed, unknown = super().parse_known_args(args, namespace)
            if unknown:
                self.error(f"unrecognized arguments: {' '.join(unknown)}")
            return parsed, unknown

    return CommandParser


def _command(name: str) -> CommandModule:
    import importlib

    module: CommandModule = importlib.import_module(f"tiergate.commands.{COMMANDS[name]}")
    return module
