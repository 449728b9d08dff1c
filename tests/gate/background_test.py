"""The background gate's record and lock, with real processes: a job runs exactly while it holds the
lock, whatever its record says; a record left by a job that died is over; cancel ends the job holding
the lock, and a job queued behind it leaves once it reads the cancel."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from testing.procwatch import gone_within, wait_for_text

from tiergate.gate import background
from tiergate.gate.background import START_GRACE, Job
from tiergate.project import Project

HOLD_LOCK = """
import sys, time
from pathlib import Path
from tiergate.gate import background
from tiergate.project import Project
project = Project(Path(sys.argv[1]), Path(sys.argv[2]))
background.lock(project)
Path(sys.argv[3]).write_text("locked")
time.sleep(600)
"""


def a_project(tmp_path: Path) -> Project:
    root = tmp_path / "project"
    root.mkdir()
    return Project(root, tmp_path / "state")


def holder(project: Project, tmp_path: Path) -> subprocess.Popen[bytes]:
    flag = tmp_path / "locked"
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(project.root), str(project.state_dir), str(flag)]
    )
    wait_for_text(flag)
    return process


def test_a_job_runs_while_it_holds_the_lock_whatever_its_record_says(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    background.write(project, Job("k1", "s1", 1, time.time(), True, "running"))
    job = background.status(project)
    assert job is not None and not job.running and job.over  # a record a dead job left: over

    process = holder(project, tmp_path)
    try:
        job = background.status(project)
        assert job is not None and job.running and not job.over
        background.write(project, Job("k1", "s1", process.pid, time.time(), True, "done"))
        done = background.status(project)
        assert done is not None and done.over and done.done and done.running  # recording the baseline
    finally:
        process.kill()
        process.wait()
    assert background.status(project) is not None and not background.status(project).running  # type: ignore[union-attr]


def test_a_job_still_starting_is_not_over_until_its_grace_has_passed(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    background.write(project, Job("k1", "s1", 0, time.time(), True, "starting"))
    assert not background.status(project).over  # type: ignore[union-attr]
    background.write(project, Job("k1", "s1", 0, time.time() - START_GRACE - 1, True, "starting"))
    assert background.status(project).over  # type: ignore[union-attr]


def test_cancel_ends_the_job_holding_the_lock_and_says_so_in_its_record(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    process = holder(project, tmp_path)
    background.write(project, Job("k1", "s1", process.pid, time.time(), True, "running"))

    assert background.cancel(project, "another session") is None
    ended = background.cancel(project, grace=2.0)

    assert ended is not None and ended.key == "k1"
    assert gone_within([process.pid]) == []
    process.wait()
    after = background.status(project)
    assert after is not None and after.state == "cancelled" and not after.running


def test_a_record_sealed_by_another_writer_is_no_job(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    background.write(project, Job("k1", "s1", 1, time.time(), True, "done"))
    path = background.folder(project) / "job.json"
    path.write_text(path.read_text().replace('"done"', '"running"'))
    assert background.status(project) is None


def test_wait_returns_at_once_for_another_workspaces_job(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    process = holder(project, tmp_path)
    try:
        background.write(project, Job("k1", "s1", process.pid, time.time(), True, "running"))
        began = time.monotonic()
        job = background.wait(project, "k2", 5.0)
        assert job is not None and job.key == "k1" and time.monotonic() - began < 1
        still = background.wait(project, "k1", 0.3)
        assert still is not None and not still.over
    finally:
        process.kill()
        process.wait()
