"""One module per command (`add_arguments(parser)`, `run(args) -> int`), and the command line that reads
them: the table of commands, a parser that imports only the command given, and a problem turned into one
line on stderr and an exit code."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from tiergate import __version__
from tiergate.errors import UserError


class Command(NamedTuple):
    module: str  # under tiergate.commands
    help: str  # one line: `tiergate --help` lists it, `tiergate <command> --help` begins with it


class CommandModule(Protocol):
    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


# Each command's module is imported only when it is the command given: `tiergate --help` reads this table.
COMMANDS: dict[str, Command] = {
    "tier": Command(
        "tier", "show the verification tier of the current change (or classify a JSON Lines batch)"
    ),
    "ralph": Command(
        "ralph", "start a ralph loop from a shell; the next Claude Code session in this project takes it up"
    ),
    "autopilot": Command(
        "autopilot",
        "start an autopilot on a features file; the next Claude Code session in this project takes it up",
    ),
    "cancel": Command(
        "cancel", "cancel the active loops of this project (or of one session) and any pending loop"
    ),
    "status": Command("status", "show where each loop of this project stands"),
    "history": Command(
        "history",
        "list every verification with its tier, verdict, duration and cost, against always THOROUGH",
    ),
    "report": Command(
        "report", "write an HTML page of the project's loops (timeline, gate runs, tiers, verdicts, costs)"
    ),
    "doctor": Command(
        "doctor", "check tiergate's installation, its Claude Code plugin and this project's setup"
    ),
    "demo": Command(
        "demo",
        "show what tiergate does, on an embedded example with a scripted session (offline, a few seconds)",
    ),
    "backups": Command("backups", "list the workspaces saved before a rollback, newest first"),
    "restore": Command(
        "restore",
        "bring back a backup's files (tracked and untracked), index and HEAD; "
        "the current state is saved first",
    ),
    "checks": Command(
        "checks", "run the project's checks now, as tiergate's gate does at a completion claim"
    ),
    "wait": Command("wait", "wait for the checks tiergate runs in the background, then say how they ended"),
    "replay": Command(
        "replay", "replay past commits through the tier rules: each commit's tier, the tier mix and its cost"
    ),
}


def run(argv: list[str]) -> int:
    """Parse `argv` (without the program's name), run its command, and return the exit code."""
    args = build_parser(command_name(argv)).parse_args(argv)
    try:
        return command_module(args.command).run(args)
    except UserError as exc:
        print(f"tiergate: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tiergate: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`tiergate history | head`): not an error worth a traceback. Point stdout at
        # /dev/null so that the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def command_name(argv: Sequence[str]) -> str | None:
    """The command `argv` gives: its first word that is not an option (tiergate's own take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command's name and help; only the `chosen` command's arguments are added."""
    parser = argparse.ArgumentParser(
        prog="tiergate",
        description="Verify an autonomous coding loop's completion claims, scaled to the risk of the change.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"tiergate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=CommandParser)
    for name, command in COMMANDS.items():
        subparser = sub.add_parser(name, help=command.help, description=command.help)
        if name == chosen:
            command_module(name).add_arguments(subparser)
    return parser


class CommandParser(argparse.ArgumentParser):
    """A command's parser that refuses what it does not know itself, with its own usage."""

    # argparse hands a subcommand's unknown arguments back to the top-level parser, which then shows
    # `usage: tiergate [-h] [--version] COMMAND ...`: no help to someone who mistyped `tiergate demo --bogus`.
    # Nested commands (`ralph start`) get the same class, so each error names the parser that failed.
    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, unknown = super().parse_known_args(args, namespace)
        if unknown:
            self.error(f"unrecognized arguments: {' '.join(unknown)}")
        return parsed, unknown


def command_module(name: str) -> CommandModule:
    module: CommandModule = importlib.import_module(f"tiergate.commands.{COMMANDS[name].module}")
    return module
