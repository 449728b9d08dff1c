"""What a claim's Stop measures (handlers/claimmeasure.py): on a real repository and a real pytest check, a
claim measured (tier, change, gate, and the workspace's fingerprint from the same measurement) or why it
could not be, logged; and an empty turn measures the workspace only once the approach has stalled."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import init_repo, write
from testing.loopproject import a_project, with_loop
from testing.mulproject import PY_CORRECT, python

from tiergate import foreign
from tiergate.handlers import claimmeasure
from tiergate.log import read_log
from tiergate.project import Project
from tiergate.workspace import fingerprint


def _claimed(tmp_path: Path, calc: str) -> tuple[Project, claimmeasure.Measured, str]:
    root = init_repo(tmp_path / "project", python())
    project = a_project(root)
    loop = with_loop(project)
    write(root, {"calc.py": calc})
    workspace = fingerprint.fingerprint(root, "HEAD", foreign.of_loop(loop))
    assert workspace is not None
    return project, claimmeasure.measure(project, loop), workspace


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

    measured = claimmeasure.measure(project, with_loop(project))

    assert measured.problem == f"not a git repository: {tmp_path} (run tiergate inside a git work tree)"
    assert (measured.facts, measured.gate, measured.workspace) == (None, None, None)
    [error] = [r for r in read_log(project) if r.get("event") == "claim_check_error"]
    assert error["session_id"] == "s1" and "Traceback" in error["traceback"]


def test_an_empty_turn_measures_the_workspace_only_once_the_approach_stalled(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "project", python())
    project = a_project(root)
    loop = with_loop(project)
    write(root, {"calc.py": PY_CORRECT})
    stalls = claimmeasure.stalled_approach(project, loop, 1).policies.stalls.empty_turns

    assert claimmeasure.stalled_approach(project, loop, stalls - 1).dirty is None
    assert claimmeasure.stalled_approach(project, loop, stalls).dirty is True
