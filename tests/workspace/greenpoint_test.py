"""The last green point, derived from git: the snapshot a passed verification keeps in tiergate's store,
else the loop's start."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, init_repo, repo_fixture, write

from tiergate.errors import UserError
from tiergate.project import Project
from tiergate.workspace import greenpoint, putback, snapshots


@pytest.fixture(autouse=True)
def no_git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", os.devnull)


repo = repo_fixture({".gitignore": "*.log\n", "app.py": "v = 1\n"})


def at(repo: Path) -> Project:
    """The project at `repo`, its state folder (and with it the store) outside the work tree."""
    return Project(repo, repo.parent / "state")


def start_of(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def test_without_a_green_ref_the_green_point_is_the_loops_start(repo: Path) -> None:
    start = start_of(repo)
    write(repo, {"app.py": "v = 2\n"})
    commit_all(repo, "later")
    point = greenpoint.last_green(at(repo), "s1", start)
    assert point.source == "loop start"
    assert point.commit == start and point.workspace.head == start
    assert point.describe() == f"the loop's start ({start[:12]})"


def test_without_a_start_the_green_point_is_head(repo: Path) -> None:
    point = greenpoint.last_green(at(repo), "s1", None)
    assert point.source == "HEAD" and point.commit == start_of(repo)


def test_a_loop_that_began_before_the_first_commit_starts_from_nothing(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "empty")
    empty_tree = git(root, "hash-object", "-t", "tree", "--stdin").strip()
    point = greenpoint.last_green(at(root), "s1", empty_tree)
    assert point.commit is None and point.workspace.files == empty_tree
    assert not greenpoint.is_dirty(root, point)
    write(root, {"new.txt": "x\n"})
    assert greenpoint.is_dirty(root, point)
    assert point.describe() == "the loop's start (no commit yet)"


def test_a_passed_verification_is_the_green_point_with_its_uncommitted_files(repo: Path) -> None:
    start = start_of(repo)
    write(repo, {"app.py": "v = 2  # verified\n", "feature.py": "untracked, verified\n", "x.log": "ign\n"})
    snapshot = greenpoint.mark(at(repo), "s1")

    point = greenpoint.last_green(at(repo), "s1", start)

    assert point.source == "verified" and point.commit == snapshot
    store = snapshots.store_path(at(repo))
    assert git(store, f"--git-dir={store}", "rev-parse", "refs/green/s1").strip() == snapshot
    assert git(repo, "for-each-ref", "refs/tiergate/") == ""  # nothing a push could carry
    assert point.workspace.head == start  # the verified state was not committed: HEAD stays where it was
    assert not greenpoint.is_dirty(repo, point)
    assert git(repo, "status", "--porcelain").splitlines() == [" M app.py", "?? feature.py"]


def test_dirty_means_the_files_differ_from_the_green_point_not_from_head(repo: Path) -> None:
    write(repo, {"app.py": "v = 2\n"})
    greenpoint.mark(at(repo), "s1")
    point = greenpoint.last_green(at(repo), "s1", start_of(repo))
    assert not greenpoint.is_dirty(repo, point)  # uncommitted, but exactly what was verified
    write(repo, {"debug.log": "ignored files do not count\n"})
    assert not greenpoint.is_dirty(repo, point)
    write(repo, {"scratch.txt": "an untracked file does\n"})
    assert greenpoint.is_dirty(repo, point)
    (repo / "scratch.txt").unlink()
    commit_all(repo, "the verified state, committed")
    assert not greenpoint.is_dirty(repo, point)  # HEAD moved, the files did not


def test_a_rollback_returns_to_the_last_verified_state_and_keeps_the_rest(repo: Path) -> None:
    start = start_of(repo)
    write(repo, {"app.py": "v = 2  # verified\n", "feature.py": "verified\n"})
    greenpoint.mark(at(repo), "s1")
    verified = {p: (repo / p).read_text() for p in ("app.py", "feature.py")}
    write(repo, {"app.py": "v = 3  # broken\n", "junk.py": "refuted work\n"})

    point = greenpoint.last_green(at(repo), "s1", start)
    project = at(repo)
    backup = putback.rollback(project, point.workspace, f"rolling back to {point.describe()}")

    assert backup is not None
    assert {p: (repo / p).read_text() for p in ("app.py", "feature.py")} == verified
    assert not (repo / "junk.py").exists()
    assert not greenpoint.is_dirty(repo, point)
    store = snapshots.store_path(project)
    assert git(store, f"--git-dir={store}", "show", f"{backup.commit}:files/junk.py") == "refuted work\n"


def test_each_loop_has_its_own_green_point_and_a_later_pass_moves_it(repo: Path) -> None:
    start = start_of(repo)
    write(repo, {"app.py": "v = 2\n"})
    first = greenpoint.mark(at(repo), "s1")
    write(repo, {"app.py": "v = 3\n"})
    second = greenpoint.mark(at(repo), "s1")
    assert greenpoint.last_green(at(repo), "s1", start).commit == second != first
    assert greenpoint.last_green(at(repo), "s2", start).source == "loop start"


def test_the_green_point_survives_gc(repo: Path) -> None:
    write(repo, {"app.py": "v = 2\n", "new.py": "n\n"})
    snapshot = greenpoint.mark(at(repo), "s1")
    git(repo, "reset", "-q", "--hard")
    (repo / "new.py").unlink()
    git(repo, "gc", "-q", "--prune=now")
    point = greenpoint.last_green(at(repo), "s1", None)
    assert point.commit == snapshot
    assert git(repo, "show", f"{point.workspace.files}:new.py") == "n\n"  # copied back from the store


def test_a_loop_id_must_be_safe_in_a_ref(repo: Path) -> None:
    with pytest.raises(UserError, match="not a loop id"):
        greenpoint.mark(at(repo), "../heads/main")


def test_a_green_point_of_the_old_layout_is_still_read_and_removed_by_the_next(repo: Path) -> None:
    write(repo, {"app.py": "v = 2\n", "untracked.py": "u\n"})
    head = start_of(repo)
    index = git(repo, "commit-tree", "-m", "index", f"{head}^{{tree}}").strip()
    git(repo, "add", "-A")
    files = git(repo, "write-tree").strip()
    git(repo, "reset", "-q")
    old = git(repo, "commit-tree", "-p", head, "-p", index, "-m", "green", files).strip()
    git(repo, "update-ref", "refs/tiergate/green/s1", old)

    point = greenpoint.last_green(at(repo), "s1", head)

    assert point.source == "verified" and point.commit == old and point.workspace.files == files
    assert not greenpoint.is_dirty(repo, point)
    greenpoint.mark(at(repo), "s1")
    assert git(repo, "for-each-ref", "refs/tiergate/") == ""


def test_an_untracked_secret_in_a_green_point_is_not_published_by_a_mirror_push(repo: Path) -> None:
    write(repo, {"credentials.json": '{"token": "ghp_SECRETSECRETSECRETSECRETSECRET1234"}\n'})
    greenpoint.mark(at(repo), "s1")
    remote = repo.parent / "remote.git"
    git(repo.parent, "init", "-q", "--bare", str(remote))
    git(repo, "push", "-q", "--mirror", str(remote))
    assert "green" not in git(remote, "for-each-ref", "--format=%(refname)")
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=remote, capture_output=True, check=True
    ).stdout
    assert b"ghp_SECRET" not in objects
