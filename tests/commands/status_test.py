"""`tiergate status [--json]`: where each loop of the project stands."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from testing.gitrepo import init_repo
from testing.statefolder import state_dir
from testing.tiergatecli import tiergate

from tiergate.loop import store as state
from tiergate.loop.claims import check_claim
from tiergate.loop.decision import decide
from tiergate.loop.events import ClaimFacts, Stop
from tiergate.loop.state import new_loop
from tiergate.project import Project

T0 = 1_800_000_000.0
FACTS = ClaimFacts(
    "STANDARD", "tiergate:architect-medium", "sonnet", ("build pass",), ("default",), 5, 20, 3, 40
)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = init_repo(tmp_path / "repo", {"README.md": "hi\n"})
    return Project(root=root, state_dir=state_dir(root))


def test_no_loops(project: Project) -> None:
    assert "no loops" in tiergate(project.root, "status").stdout
    assert json.loads(tiergate(project.root, "status", "--json").stdout) == []


def test_each_loop_with_the_contract_fields(project: Project) -> None:
    working = new_loop("s1", "Add CSV export", now=T0, base="b" * 40, promise="DONE", max_iterations=8)
    message = "x <promise>DONE</promise>"
    claimed = decide(working, Stop(message, check_claim(message), "fp", claim_facts=FACTS), T0 + 1).state
    assert claimed is not None
    halted = replace(
        working, session_id="s2", phase="halted", ended_at=T0 + 9, end_reason="the cap", started_at=T0 + 2
    )
    state.update(project, "s1", lambda _: (claimed, None))
    state.update(project, "s2", lambda _: (halted, None))
    state.write_pending(project, replace(working, session_id="", task="Later"))
    entries = json.loads(tiergate(project.root, "status", "--json").stdout)
    contract = ("session_id", "phase", "iteration", "max_iterations", "tier", "verdict")
    assert [tuple(e[k] for k in contract) for e in entries] == [
        ("s1", "verifying", 1, 8, "STANDARD", None),
        ("s2", "halted", 1, 8, None, None),
        (None, "working", 1, 8, None, None),
    ]
    assert entries[0]["verification"] == {
        "id": "v1",
        "tier": "STANDARD",
        "agent": "tiergate:architect-medium",
        "model": "sonnet",
        "verifiers_started": 0,
    }
    assert entries[2]["pending"] is True
    lines = tiergate(project.root, "status").stdout.splitlines()
    assert lines[0].startswith(
        "session s1  verifying  iteration 1/8  tier STANDARD  waiting for tiergate:architect-medium"
    )
    assert "halted" in lines[1] and "the cap" in lines[1]
    assert lines[2].startswith("pending (next session)") and lines[2].endswith("task: Later")


def test_a_damaged_loop_file_is_reported_with_what_to_do_beside_the_others(project: Project) -> None:
    working = new_loop("s1", "Add CSV export", now=T0, base="b" * 40, promise="DONE")
    state.update(project, "s1", lambda _: (working, None))
    state.update(project, "s2", lambda _: (replace(working, session_id="s2"), None))
    path = project.state_dir / "loops" / "s2.json"
    path.write_bytes(path.read_bytes().replace(b"Add CSV export", b"Add XML export"))  # the seal fails

    text = tiergate(project.root, "status")
    listed = tiergate(project.root, "status", "--json")

    assert text.returncode == 0 and listed.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].startswith("session s1  working  iteration 1/")
    assert lines[1].startswith(f"session s2  damaged: loop state {path} is not as tiergate wrote it: ")
    assert "seal does not match" in lines[1]
    assert lines[1].endswith("; run `tiergate cancel`: it keeps the file aside and ends that loop")
    entries = json.loads(listed.stdout)
    assert [(e["session_id"], e["phase"]) for e in entries] == [("s1", "working"), ("s2", "damaged")]
    assert entries[1]["file"] == str(path) and "tiergate cancel" in entries[1]["problem"]
    assert path.exists()  # status only reports: cancel is what sets it aside
