"""SessionStart: an active loop is restated to the model; a session without one gets nothing."""

from __future__ import annotations

from pathlib import Path

from testing.loopproject import a_project, payload, with_loop

from tiergate.handlers import session_start


def test_after_compaction_the_active_loop_is_restated(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    with_loop(project)
    reply = session_start.handle(payload("SessionStart", source="compact"), project)
    assert reply is not None and reply.additional_context is not None
    assert "Fix the parser" in reply.additional_context and "DONE" in reply.additional_context


def test_no_active_loop_no_context(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    with_loop(project, phase="cancelled", ended_at=1.0)
    assert session_start.handle(payload("SessionStart", source="startup"), project) is None
    assert session_start.handle(payload("SessionStart", "s2", source="startup"), project) is None
