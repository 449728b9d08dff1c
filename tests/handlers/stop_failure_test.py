"""StopFailure: an active loop records the API error with its turn; no loop, nothing recorded."""

from __future__ import annotations

from pathlib import Path

from testing.loopproject import a_project, decisions, payload, with_loop

from tiergate.handlers import stop_failure


def test_an_api_error_in_an_active_loop_is_recorded(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    with_loop(project)
    assert stop_failure.handle(payload("StopFailure", error="rate_limit", prompt_id="p1"), project) is None
    assert [r["event"] for r in decisions(project)] == ["StopFailure"]


def test_an_api_error_without_an_active_loop_records_nothing(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    with_loop(project, phase="cancelled", ended_at=1.0)
    assert stop_failure.handle(payload("StopFailure", error="rate_limit"), project) is None
    assert stop_failure.handle(payload("StopFailure", "s2", error="rate_limit"), project) is None
    assert decisions(project) == []
