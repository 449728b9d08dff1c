"""The command line's table and parser (`tiergate.commands`): the command is found before any command
module is imported, and only its arguments are built."""

from __future__ import annotations

import pytest

from tiergate.commands import COMMANDS, build_parser, command_name


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        ([], None),
        (["--help"], None),
        (["-V"], None),
        (["status", "--json"], "status"),
        (["--bogus", "ralph", "start", "a task"], "ralph"),
        (["nope"], "nope"),
    ],
)
def test_the_command_is_the_first_word_that_is_not_an_option(argv: list[str], name: str | None) -> None:
    assert command_name(argv) == name


def test_only_the_chosen_command_has_its_arguments() -> None:
    args = build_parser("wait").parse_args(["wait", "--timeout", "3"])
    assert (args.command, args.timeout) == ("wait", 3.0)
    with pytest.raises(SystemExit):
        build_parser("status").parse_args(["wait", "--timeout", "3"])


def test_every_command_names_a_module_of_its_own() -> None:
    assert len({command.module for command in COMMANDS.values()}) == len(COMMANDS)
