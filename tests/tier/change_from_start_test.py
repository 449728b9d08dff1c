"""The change measured from the workspace a loop began on (`git.workspace_tree`), not from a commit: the
user's uncommitted edits and untracked files of that moment are no change while they stay as they were,
and each thing done to them since is one (issue 13)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testing.gitrepo import git, init_repo, write

from tiergate.git import changes, indexcopy
from tiergate.tier.change import FileChange, measure_change
from tiergate.workspace import fingerprint


@pytest.fixture
def started(tmp_path: Path) -> tuple[Path, str]:
    """A repository with the user's edit, staged edit, deletion and untracked files, and its start tree."""
    files = {"a.txt": "a\n", "b.txt": "b\n", "gone.txt": "g\n", "keep.txt": "k\n"}
    repo = init_repo(tmp_path / "repo", files)
    write(repo, {"a.txt": "a, edited\n", "b.txt": "b, staged\n", "notes.txt": "n\n", "dir/new.txt": "x\n"})
    git(repo, "add", "b.txt")
    (repo / "gone.txt").unlink()
    head = git(repo, "rev-parse", "HEAD").strip()
    tree = changes.workspace_tree(repo, head)
    assert tree is not None
    indexcopy.measure_from_workspace(tree)  # as tiergate.workspace.loopbase does for a loop's start
    return repo, tree


def test_the_workspace_as_it_began_is_no_change(started: tuple[Path, str]) -> None:
    repo, tree = started
    change = measure_change(repo, tree)
    assert change.files == ()
    taken = fingerprint.manifest(repo, tree)
    assert taken is not None and taken.files == {}  # the fingerprint agrees: nothing changed


def test_what_is_done_after_the_start_is_the_change(started: tuple[Path, str]) -> None:
    repo, tree = started
    write(repo, {"notes.txt": "n\nmore\n", "a.txt": "a, edited\n", "fresh.txt": "f\n", "gone.txt": "back\n"})
    (repo / "dir/new.txt").unlink()
    assert sorted(measure_change(repo, tree).files, key=lambda f: f.path) == [
        FileChange("dir/new.txt", "deleted", 0, 1),
        FileChange("fresh.txt", "untracked", 1, 0),
        FileChange("gone.txt", "added", 1, 0),
        FileChange("notes.txt", "modified", 1, 0),
    ]


def test_untracking_or_staging_a_file_is_no_change(started: tuple[Path, str]) -> None:
    repo, tree = started
    git(repo, "rm", "-q", "--cached", "keep.txt")
    git(repo, "add", "notes.txt", "a.txt")
    assert measure_change(repo, tree).files == ()


def test_a_clean_workspace_has_no_start_tree(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    os.utime(repo / "a.txt", (0, 0))  # a timestamp is no change
    assert changes.workspace_tree(repo, git(repo, "rev-parse", "HEAD").strip()) is None
