"""The Stop handler (handlers/stop.py): what is in flight and what error ended the turn, read from the
input; no answer without an active loop; on a real repository and a real pytest check, a claim measured
(tier, change, gate, and the workspace's fingerprint from the same measurement) or why it could not be,
logged; and an empty turn measures the workspace only once the approach has stalled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from testing.gitrepo import init_repo, write
from testing.loopproject import a_project, decisions, payload, with_loop
from testing.mulproject import PY_CORRECT, python

from tiergate import foreign
from tiergate.handlers import stop
from tiergate.log import read_log
from tiergate.project import Project
from tiergate.workspace import fingerprint


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
    assert stop.background_work({"background_tasks": tasks}) == described


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
    assert stop.api_error(fields) == error


def test_without_an_active_loop_a_stop_gets_no_answer_and_nothing_is_logged(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    claim = payload("Stop", last_assistant_message="done <promise>DONE</promise>")

    assert stop.handle(claim, project) is None
    with_loop(project, phase="cancelled", ended_at=1.0)  # a loop that ended
    assert stop.handle(claim, project) is None
    assert decisions(project) == []


def _claimed(tmp_path: Path, calc: str) -> tuple[Project, stop.Measured, str]:
    root = init_repo(tmp_path / "project", python())
    project = a_project(root)
    loop = with_loop(project)
    write(root, {"calc.py": calc})
    workspace = fingerprint.fingerprint(root, "HEAD", foreign.of_loop(loop))
    assert workspace is not None
    return project, stop.measure(project, loop), workspace


def test_a_claim_is_measured_with_its_gate_and_the_workspaces_fingerprint(tmp_path: Path) -> None:
    _, measured, workspace = _claimed(tmp_path, PY_CORRECT)

    assert measured.problem is None and measured.facts is not None and measured.gate is not None
    assert (measured.facts.tier, measured.facts.paths, measured.facts.files_changed) == (
        "LIGHT",
        ("calc.py",),
        1,
    )
    assert measured.facts.reasons[0].startswith(
        "small-and-tested: 1 file < 5, 2 lines < 100, test coverage full"
    )
    assert not measured.gate.refuted
    assert measured.dirty is None  # only a refuted claim needs it
    assert measured.workspace == workspace


def test_a_claim_the_gate_refutes_knows_whether_the_workspace_is_dirty(tmp_path: Path) -> None:
    _, measured, _ = _claimed(tmp_path, PY_CORRECT.replace("a * b", "a + b"))

    assert measured.gate is not None and measured.gate.refuted
    assert measured.dirty is True


def test_a_claim_that_cannot_be_measured_says_why_and_logs_the_traceback(tmp_path: Path) -> None:
    project = a_project(tmp_path)  # not a git repository

    measured = stop.measure(project, with_loop(project))

    assert measured.problem == f"not a git repository: {tmp_path} (run tiergate inside a git work tree)"
    assert (measured.facts, measured.gate, measured.workspace) == (None, None, None)
    [error] = [r for r in read_log(project) if r.get("event") == "claim_check_error"]
    assert error["session_id"] == "s1" and "Traceback" in error["traceback"]


def test_an_empty_turn_measures_the_workspace_only_once_the_approach_stalled(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "project", python())
    project = a_project(root)
    loop = with_loop(project)
    write(root, {"calc.py": PY_CORRECT})
    stalls = stop.stalled_approach(project, loop, 1).policies.stalls.empty_turns

    assert stop.stalled_approach(project, loop, stalls - 1).dirty is None
    assert stop.stalled_approach(project, loop, stalls).dirty is True
