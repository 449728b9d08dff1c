"""The loop's slash commands as UserPromptSubmit receives them: only the exact commands count."""

from __future__ import annotations

import pytest

from tiergate.loop.slash import CancelLoop, CommandError, StartLoop, parse


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("/tiergate:ralph fix the parser", StartLoop("fix the parser", None, None)),
        (
            '/tiergate:ralph fix the "parser" bug --max-iterations 5',
            StartLoop('fix the "parser" bug', 5, None),
        ),
        ("/tiergate:ralph --max-iterations=3 fix it", StartLoop("fix it", 3, None)),
        ('/tiergate:ralph --promise "ALL GREEN" ship it', StartLoop("ship it", None, "ALL GREEN")),
        ("/tiergate:ralph 'add CSV export' --promise SHIPPED", StartLoop("add CSV export", None, "SHIPPED")),
        # ralph-loop's spelling of the option is the same option, never part of the task
        ("/tiergate:ralph fix it --completion-promise DONE", StartLoop("fix it", None, "DONE")),
        (
            '/tiergate:ralph --completion-promise="ALL GREEN" --max-iterations 4 ship it',
            StartLoop("ship it", 4, "ALL GREEN"),
        ),
        (
            "  /tiergate:ralph don't stop until the tests pass\n",
            StartLoop("don't stop until the tests pass", None, None),
        ),
        (
            "/tiergate:ralph\nfix the parser\nand the lexer",
            StartLoop("fix the parser\nand the lexer", None, None),
        ),
        ("/tiergate:cancel", CancelLoop()),
        ("/tiergate:cancel now please", CancelLoop()),
    ],
)
def test_the_commands(prompt: str, expected: object) -> None:
    assert parse(prompt) == expected


@pytest.mark.parametrize(
    "prompt",
    [
        "please run /tiergate:ralph fix it",
        "ralph: fix the parser",
        "/ralph fix the parser",
        "/tiergate:ralphy fix it",
        "/tiergate:tier",
        "Let's discuss the tiergate loop and /tiergate:cancel later",
        "",
    ],
)
def test_a_mention_is_never_a_command(prompt: str) -> None:
    assert parse(prompt) is None


@pytest.mark.parametrize(
    ("prompt", "says"),
    [
        ("/tiergate:ralph", "no task given"),
        ("/tiergate:ralph --max-iterations 5", "no task given"),
        ("/tiergate:ralph fix it --max-iterations five", "whole number"),
        ("/tiergate:ralph fix it --max-iterations 0", "between 1 and 1000"),
        ("/tiergate:ralph fix it --promise '<b>'", "without < or >"),
    ],
)
def test_bad_arguments_say_what_is_wrong_and_show_the_usage(prompt: str, says: str) -> None:
    command = parse(prompt)
    assert isinstance(command, CommandError)
    assert says in command.message and "usage: /tiergate:ralph <task>" in command.message
