"""The workspace a loop began on, kept as a commit (`workspace/loopbase.py`), in real repositories: taken
only when the files differ from the base commit, kept in the store too, and copied back when gone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testing.gitrepo import git, head, init_repo, write

from tiergate.errors import UserError
from tiergate.git import objectstore, runner
from tiergate.project import Project, locate
from tiergate.workspace import loopbase, snapshots


@pytest.fixture(name="repo")
def _repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo", {"a.txt": "alpha\n", "lib/b.txt": "beta\n"})


def _project(repo: Path) -> Project:
    return locate(repo, os.environ)


def test_a_clean_workspace_is_measured_from_its_base_commit(repo: Path) -> None:
    assert loopbase.take(_project(repo), "clean", head(repo)) is None


def test_a_dirty_workspace_becomes_a_parentless_commit_of_its_files_kept_in_the_store(repo: Path) -> None:
    base = head(repo)
    write(repo, {"a.txt": "alpha, edited\n", "notes.txt": "untracked\n"})
    project = _project(repo)

    start = loopbase.take(project, "loop1", base, now=1_700_000_000)

    assert start is not None
    assert git(repo, "rev-list", "--parents", "-n", "1", start).split() == [start]  # no parent
    assert git(repo, "show", f"{start}:a.txt") == "alpha, edited\n"
    assert git(repo, "show", f"{start}:notes.txt") == "untracked\n"
    assert (
        f"the workspace loop loop1 began on\n\nThe files as they were when the loop started on {base}"
        in git(repo, "log", "-1", "--format=%B", start)
    )
    store = snapshots.store_path(project)
    assert runner.text(objectstore.run_in(store, "rev-parse", loopbase.START + "loop1")) == start
    assert git(repo, "status", "--porcelain") == " M a.txt\n?? notes.txt\n"  # the workspace untouched


def test_a_workspace_with_no_commit_yet_is_taken_from_the_empty_tree(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"first.txt": "1\n"})
    start = loopbase.take(_project(repo), "fresh", None)
    assert start is not None
    assert git(repo, "ls-tree", "--name-only", start).split() == ["first.txt"]


def test_the_change_base_is_the_start_commit_else_the_base_commit(repo: Path) -> None:
    base = head(repo)
    project = _project(repo)
    assert loopbase.change_base(project, None, base) == base
    write(repo, {"a.txt": "edited\n"})
    start = loopbase.take(project, "loop2", base)
    assert start is not None
    assert loopbase.start_present(project, start)
    assert loopbase.change_base(project, start, base) == start


def test_asking_whether_the_start_is_there_changes_nothing_measuring_from_it_does(repo: Path) -> None:
    from tiergate.git import indexcopy

    base = head(repo)
    project = _project(repo)
    write(repo, {"a.txt": "edited again\n"})
    start = loopbase.take(project, "loop-asks", base)
    assert start is not None

    assert loopbase.start_present(project, start) and start not in indexcopy.workspace_bases()
    loopbase.measure_from_start(start)
    assert start in indexcopy.workspace_bases()


def _prune(repo: Path) -> None:
    """Remove the unreferenced commits and their objects from the repository, as a gc would."""
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")


def test_a_start_gone_from_the_repository_is_copied_back_from_the_store(repo: Path) -> None:
    base = head(repo)
    project = _project(repo)
    write(repo, {"lib/b.txt": "beta, edited\n"})
    start = loopbase.take(project, "loop3", base)
    assert start is not None
    _prune(repo)
    assert not loopbase.start_present(project, start)

    assert loopbase.change_base(project, start, base) == start

    assert loopbase.start_present(project, start)
    assert git(repo, "show", f"{start}:lib/b.txt") == "beta, edited\n"


def test_a_start_gone_from_both_is_one_line_for_a_change_and_the_base_for_a_fingerprint(repo: Path) -> None:
    base = head(repo)
    project = _project(repo)
    missing = "0123456789abcdef0123456789abcdef01234567"
    with pytest.raises(UserError) as caught:
        loopbase.change_base(project, missing, base)
    message = str(caught.value)
    assert message.startswith(
        f"the workspace the loop began on (0123456789ab) is gone from the repository and from "
        f"{snapshots.store_path(project)}: "
    )
    assert "\n" not in message
    assert loopbase.fingerprint_base(project, missing, base) == base
