"""A project whose state folder holds a session's loop, for in-process tests of the hook handlers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from testing.statefolder import state_dir
from tiergate.log import read_log
from tiergate.loop import store
from tiergate.loop.state import LoopState, new_loop
from tiergate.project import Project

SESSION = "s1"


def a_project(tmp_path: Path) -> Project:
    return Project(root=tmp_path, state_dir=state_dir(tmp_path))


def with_loop(project: Project, session_id: str = SESSION, **changes: object) -> LoopState:
    """Store a working ralph loop of `session_id` (with `changes`) and return it."""
    loop = replace(new_loop(session_id, "Fix the parser", now=0.0, base=None, promise="DONE"), **changes)  # type: ignore[arg-type]
    store.update(project, session_id, lambda _: (loop, None))
    return loop


def payload(event: str, session_id: str = SESSION, **fields: object) -> dict[str, Any]:
    """The JSON Claude Code sends to the `event` hook, with `fields`."""
    return {"session_id": session_id, "cwd": "/tmp", "hook_event_name": event, **fields}


def decisions(project: Project, session_id: str = SESSION) -> list[dict[str, Any]]:
    """The session's records in the decision log, oldest first."""
    return [r for r in read_log(project) if r.get("session_id") == session_id and "decision" in r]
