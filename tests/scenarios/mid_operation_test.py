"""A rollback never happens in the middle of a merge (or a rebase, cherry-pick, revert, bisect): through the
real hook entry point on real git, the intervention that would roll back halts the loop with that reason
instead, and the merge is left exactly as it was, conflict stages and all."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from testing.gitrepo import GIT_ENV, git, init_repo, write
from testing.hooksession import HookSession
from testing.valueproject import value_project

from tiergate.errors import UserError
from tiergate.project import Project
from tiergate.workspace import backups, ondisk, putback

SESSION = "77777777-2222-3333-4444-555555555555"
CLAIM = "value.txt is right now.\n\n<promise>DONE</promise>"
CHECK = 'grep -qx good value.txt || { echo "FAIL: test_value"; exit 1; }\n'


def merging(root: Path) -> HookSession:
    """A loop whose agent left a merge half done: value.txt in conflict, MERGE_HEAD in place."""
    project = value_project(
        root, CHECK, config='[checks]\ntests = "sh check.sh"\n\n[interventions]\nattempt_limit = 1\n'
    )
    git(project, "checkout", "-q", "-b", "other")
    write(project, {"value.txt": "theirs\n"})
    git(project, "commit", "-qam", "theirs")
    git(project, "checkout", "-q", "-")
    session = HookSession(root, project, SESSION)
    answer = session.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt right")
    assert "loop started" in answer["systemMessage"]
    write(project, {"value.txt": "ours\n"})
    git(project, "commit", "-qam", "ours")
    merged = subprocess.run(
        ["git", "merge", "other"],
        cwd=project,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        check=False,
    )
    assert merged.returncode != 0 and (project / ".git" / "MERGE_HEAD").exists()
    return session


def test_a_rollback_during_a_merge_halts_the_loop_and_leaves_the_merge_as_it_was(tmp_path: Path) -> None:
    session = merging(tmp_path)
    conflicted = (session.project / "value.txt").read_text()
    stages = git(session.project, "ls-files", "-u")
    assert "<<<<<<<" in conflicted and stages

    answer = session.hook("Stop", last_assistant_message=CLAIM)

    assert "decision" not in answer  # the stop goes through: the loop halted
    message = answer["systemMessage"]
    assert "tiergate does not roll back while a merge is in progress (MERGE_HEAD" in message
    assert "git merge --abort" in message
    assert session.loop().phase == "halted"
    assert (session.project / ".git" / "MERGE_HEAD").exists()
    assert (session.project / "value.txt").read_text() == conflicted
    assert git(session.project, "ls-files", "-u") == stages
    assert session.run("backups", "--json").stdout.strip() == "[]"  # nothing touched, so nothing saved


@pytest.mark.parametrize("marker", ["rebase-merge", "CHERRY_PICK_HEAD", "BISECT_LOG"])
def test_restoring_a_backup_mid_operation_is_refused_in_one_line(tmp_path: Path, marker: str) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    write(repo, {"a.txt": "b\n"})
    project = Project(repo, tmp_path / "state")
    saved = backups.save(project, repo, ondisk.scan(repo), "a test")
    target = repo / ".git" / marker
    if marker.startswith("rebase"):
        target.mkdir()
    else:
        target.write_text("x\n")

    with pytest.raises(UserError, match=r"tiergate does not restore a backup while a .* is in progress"):
        putback.restore(project, saved)
    assert (repo / "a.txt").read_text() == "b\n"
