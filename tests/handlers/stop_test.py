"""The Stop handler (handlers/stop.py): no answer without an active loop."""

from __future__ import annotations

from pathlib import Path

from testing.loopproject import a_project, decisions, payload, with_loop

from tiergate.handlers import stop


def test_without_an_active_loop_a_stop_gets_no_answer_and_nothing_is_logged(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    claim = payload("Stop", last_assistant_message="done <promise>DONE</promise>")

    assert stop.handle(claim, project) is None
    with_loop(project, phase="cancelled", ended_at=1.0)  # a loop that ended
    assert stop.handle(claim, project) is None
    assert decisions(project) == []
