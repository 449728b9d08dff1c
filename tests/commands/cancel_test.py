"""`tiergate cancel`: every active loop of the project, or one session's, and the pending loop."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from testing.gitrepo import init_repo
from testing.hooksession import HookSession
from testing.statefolder import state_dir
from testing.tiergatecli import tiergate

from tiergate.log import read_log
from tiergate.loop import store as state
from tiergate.loop.state import new_loop
from tiergate.project import Project

T0 = 1_800_000_000.0


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = init_repo(tmp_path / "repo", {"README.md": "hi\n"})
    return Project(root=root, state_dir=state_dir(root))


def put(project: Project, session_id: str, **changes: object) -> None:
    new = replace(new_loop(session_id, "task", now=T0, base=None, promise="DONE"), **changes)  # type: ignore[arg-type]
    state.update(project, session_id, lambda _: (new, None))


def phases(project: Project) -> dict[str, str]:
    return {s.session_id: s.phase for s in state.all_loops(project)}


def test_it_cancels_every_active_loop_and_the_pending_one(project: Project) -> None:
    put(project, "s1")
    put(project, "s2", phase="verifying")
    put(project, "s3", phase="halted", ended_at=T0)
    state.write_pending(project, new_loop("", "later", now=T0, base=None, promise="DONE"))
    result = tiergate(project.root, "cancel")
    assert result.returncode == 0
    assert "cancelled the loop of session s1" in result.stdout and "session s2" in result.stdout
    assert "dropped the pending loop ('later')" in result.stdout
    assert phases(project) == {"s1": "cancelled", "s2": "cancelled", "s3": "halted"}
    assert state.read_pending(project) is None
    cancels = [r for r in read_log(project) if r.get("decision") == "cancel"]
    assert sorted(r["session_id"] for r in cancels) == ["", "s1", "s2"]


def test_one_session_only(project: Project) -> None:
    put(project, "s1")
    put(project, "s2")
    state.write_pending(project, new_loop("", "later", now=T0, base=None, promise="DONE"))
    result = tiergate(project.root, "cancel", "--session", "s2")
    assert result.returncode == 0 and "session s2" in result.stdout and "s1" not in result.stdout
    assert phases(project) == {"s1": "working", "s2": "cancelled"}
    assert state.read_pending(project) is not None


def test_nothing_to_cancel_is_said_and_changes_nothing(project: Project) -> None:
    result = tiergate(project.root, "cancel")
    assert result.returncode == 0 and "nothing to cancel" in result.stdout
    assert not project.state_dir.exists()
    assert "no active loop in session nope" in tiergate(project.root, "cancel", "--session", "nope").stdout


def test_a_bad_session_id_is_refused(project: Project) -> None:
    result = tiergate(project.root, "cancel", "--session", "../x")
    assert result.returncode == 2 and "not a session id" in result.stderr


def test_a_dropped_task_over_several_lines_is_shown_on_one_line_cut_at_a_word(project: Project) -> None:
    task = "Fix the bug\nand add a test\n" + "then tidy the surrounding module thoroughly " * 3
    assert tiergate(project.root, "ralph", "start", task).returncode == 0
    listed = tiergate(project.root, "status").stdout.splitlines()
    assert listed[0].endswith("task: Fix the bug and add a test then tidy the surrounding module…")
    dropped = tiergate(project.root, "cancel")
    assert dropped.stdout.splitlines() == [
        "tiergate: dropped the pending loop ('Fix the bug and add a test then tidy the surrounding module…')"
    ]
    assert "\\n" not in dropped.stdout


DAMAGES = {
    "not JSON": lambda data: b"{not json",
    "a broken seal": lambda data: data.replace(b'"phase": "working"', b'"phase": "passed"'),
}


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_damaged_loop_file_is_kept_aside_and_its_loop_ended(
    project: Project, tmp_path: Path, damage: Callable[[bytes], bytes]
) -> None:
    put(project, "s1")  # an active loop bound to its session: the ledger names it
    put(project, "s2")
    path = project.state_dir / "loops" / "s1.json"
    path.write_bytes(damaged := damage(path.read_bytes()))
    status = tiergate(project.root, "status")
    assert status.returncode == 0, status.stderr
    [line] = [s for s in status.stdout.splitlines() if "damaged" in s]
    assert line.startswith("session s1  damaged: ") and "run `tiergate cancel`" in line

    result = tiergate(project.root, "cancel")

    assert result.returncode == 0, result.stderr
    [aside] = path.parent.glob("s1.json.damaged-*")
    assert aside.read_bytes() == damaged and not path.exists()
    assert f"ended the loop of session s1: its state file could not be read; kept it aside as {aside}" in (
        result.stdout
    )
    assert "cancelled the loop of session s2" in result.stdout
    [record] = [r for r in read_log(project) if r.get("decision") == "cancel" and r["session_id"] == "s1"]
    assert record["kept"] == str(aside)
    # The session's next Stop goes through: its loop ended on purpose, its file is not taken as deleted.
    session = HookSession(tmp_path, project.root, "s1")
    assert session.hook("Stop", last_assistant_message="<promise>DONE</promise>") == {}
    assert "damaged" not in tiergate(project.root, "status").stdout


def test_a_damaged_pending_loop_is_kept_aside_and_dropped(project: Project) -> None:
    state.write_pending(project, new_loop("", "later", now=T0, base=None, promise="DONE"))
    path = project.state_dir / "pending.json"
    path.write_bytes(b"\x00garbage")
    listed = json.loads(tiergate(project.root, "status", "--json").stdout)
    assert [(e["pending"], e["phase"], e["file"]) for e in listed] == [(True, "damaged", str(path))]
    assert "run `tiergate cancel`" in listed[0]["problem"]

    result = tiergate(project.root, "cancel")

    assert result.returncode == 0, result.stderr
    [aside] = project.state_dir.glob("pending.json.damaged-*")
    said = f"ended the pending loop: its state file could not be read; kept it aside as {aside}"
    assert said in result.stdout
    assert state.read_pending(project) is None
    assert "nothing to cancel" in tiergate(project.root, "cancel").stdout
