"""PreCompact: one record in a loop session's decision log; the loop is restated after, not here."""

from __future__ import annotations

from pathlib import Path

from testing.loopproject import a_project, decisions, payload, with_loop

from tiergate.handlers import pre_compact
from tiergate.loop import store


def test_a_compaction_in_a_loop_session_is_logged_and_answered_with_nothing(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    loop = with_loop(project)
    assert pre_compact.handle(payload("PreCompact", trigger="auto"), project) is None
    assert [r["event"] for r in decisions(project)] == ["PreCompact"]
    assert "auto" in " ".join(decisions(project)[0]["reasons"])
    assert store.read(project, "s1") == loop
