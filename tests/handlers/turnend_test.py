"""How the turn a Stop ends ended (handlers/turnend.py): what is in flight and what error ended the turn,
read from the input."""

from __future__ import annotations

from typing import Any

import pytest

from tiergate.handlers import turnend


@pytest.mark.parametrize(
    ("tasks", "described"),
    [
        (None, None),  # not reported
        ("one task", None),
        ([], ()),  # reported: nothing in flight
        (
            [
                {"description": "run the tests", "command": "pytest"},
                {"description": "", "command": "npm test"},
                {"agent_type": "verifier", "id": "t1"},
                {"id": 7, "type": "shell"},
                {"id": 7},
                "x" * 150,
                {"command": "y" * 150},
            ],
            ("run the tests", "npm test", "verifier", "shell", "unnamed task", "x" * 100, "y" * 100),
        ),
    ],
)
def test_the_work_in_flight_is_each_task_by_its_first_name_clipped(
    tasks: object, described: tuple[str, ...] | None
) -> None:
    assert turnend.background_work({"background_tasks": tasks}) == described


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({}, None),
        ({"stop_reason": "end_turn"}, None),
        ({"stop_reason": "tool_use", "error": ""}, None),
        ({"stop_reason": "max_tokens"}, "max_tokens"),
        ({"stop_reason": "refusal"}, "refusal"),
        ({"error": "overloaded_error", "stop_reason": "end_turn"}, "overloaded_error"),
        ({"error": 529, "stop_reason": ""}, None),
    ],
)
def test_an_api_error_is_the_error_reported_or_a_stop_reason_of_a_turn_that_did_not_end_normally(
    fields: dict[str, Any], error: str | None
) -> None:
    assert turnend.api_error(fields) == error
