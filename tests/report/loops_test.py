"""The loops of a report (report/loops.py), built from a real night's decision log (testing/reportnight.py
drives the real hooks): a long night bounded to its newest loops."""

from __future__ import annotations

from typing import Any

import pytest
from testing import reportnight as tonight
from testing.reportfixtures import Logged, logged_fixture, long_night  # noqa: F401  (the `logged` fixture)

from tiergate.report import loops, render

# The night is logged once for the session (`logged`).
pytestmark = pytest.mark.long


def test_a_long_night_is_bounded_to_its_newest_loops(logged: Logged) -> None:
    # A hundred loops: the night's, again and again under new session ids.
    report = loops.build(long_night(logged.records), max_loops=20)

    assert (len(report.loops), report.total_loops, report.omitted_loops) == (20, 100, 80)
    assert report.loops[-1].session_id == f"0049-{tonight.SECOND}"  # the newest ones


def test_a_completed_tasks_decisions_are_steps_of_their_own_never_claims() -> None:
    gate = {
        "refuted": True,
        "reused": False,
        "checks": [{"name": "tests", "status": "failed", "standing": "new"}],
    }
    step = {"session_id": "s", "event": "TaskCompleted", "iteration": 1, "task_id": "1", "gate": gate}
    records: list[dict[str, Any]] = [
        {
            "session_id": "s",
            "event": "UserPromptSubmit",
            "decision": "start",
            "task": "fix it",
            "iteration": 1,
        },
        {**step, "decision": "task-refused", "reasons": ["task-refused: 1 regression since the loop began"]},
        {**step, "decision": "task-accepted", "reasons": ["task-accepted: nothing ... is broken"]},
        {"session_id": "s", "event": "TaskCompleted", "decision": "task-unchecked", "reasons": ["..."]},
    ]

    [loop] = loops.build(records).loops

    assert [(s.kind, s.label) for s in loop.steps[1:]] == [
        ("task-refused", "task completion refused: it broke what worked when the loop began"),
        ("task", "task completed: nothing that worked when the loop began is broken"),
        ("error", "task completed unchecked: tiergate could not check it"),
    ]
    assert (loop.task, loop.claims, loop.outcome) == ("fix it", 0, "running")
    page = render.page(loops.build(records), project="p", generated="2026-01-01T00:00:00Z")
    assert "they were read for regressions only (the task's step claim)" in page
    assert "they refute the claim" not in page


def test_an_adopted_goals_loop_says_where_it_came_from_and_how_its_goal_ended() -> None:
    first = {"session_id": "s", "iteration": 1}
    records: list[dict[str, Any]] = [
        {
            **first,
            "event": "UserPromptSubmit",
            "decision": "adopt",
            "task": "every test passes",
            "adopted_from": "Claude Code's /goal",
            "reasons": ["adopt: Claude Code's /goal on 'every test passes', ..."],
        },
        {**first, "event": "Stop", "decision": "goal-pending", "reasons": ["goal-pending: ..."]},
        {**first, "event": "UserPromptSubmit", "decision": "goal-cleared", "reasons": ["goal-cleared: ..."]},
    ]

    [loop] = loops.build(records).loops

    assert [(s.kind, s.label) for s in loop.steps] == [
        ("start", "loop adopted from Claude Code's /goal"),
        ("note", "the PASS stands; Claude Code's goal still runs"),
        ("cancel", "loop ended: the goal was cleared"),
    ]
    page = render.page(loops.build(records), project="p", generated="2026-01-01T00:00:00Z")
    assert "loop adopted from Claude Code&#x27;s /goal" in page
