"""SessionEnd: one record in a loop session's decision log, the loop left as it is."""

from __future__ import annotations

from pathlib import Path

from testing.loopproject import a_project, decisions, payload, with_loop

from tiergate.handlers import session_end
from tiergate.loop import store


def test_the_end_of_a_loop_session_is_logged_and_the_loop_kept(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    loop = with_loop(project)
    assert session_end.handle(payload("SessionEnd", reason="logout"), project) is None
    assert [r["event"] for r in decisions(project)] == ["SessionEnd"]
    assert "logout" in " ".join(decisions(project)[0]["reasons"])
    assert store.read(project, "s1") == loop
