"""The index a measurement reads, in real repositories: the user's own when it is the truth, else a copy
with git's trust flags cleared and a workspace base's paths entered, removed afterwards."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from testing.gitrepo import GIT_ENV, git, init_repo

from tiergate.git import changes, indexcopy


@pytest.fixture(name="repo")
def _repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo", {"a.txt": "alpha\n", "b.txt": "beta\n", "c.txt": "gamma\n"})


def _on(repo: Path, index: Path, *args: str) -> str:
    """git ARGS in `repo`, reading the index file `index`."""
    env = {**os.environ, **GIT_ENV, "GIT_INDEX_FILE": str(index)}
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    ).stdout


def _flag(repo: Path) -> None:
    git(repo, "update-index", "--assume-unchanged", "a.txt")
    git(repo, "update-index", "--skip-worktree", "b.txt")


def test_an_unflagged_index_is_read_as_it_is(repo: Path) -> None:
    with indexcopy.measuring_index(repo, "HEAD") as index:
        assert index is None


def test_a_private_index_is_a_copy_beside_the_user_s_removed_afterwards(repo: Path) -> None:
    with indexcopy.measuring_index(repo, "HEAD", private=True) as index:
        assert index is not None
        assert index.parent == repo / ".git"
        assert index.read_bytes() == (repo / ".git" / "index").read_bytes()
    assert not index.exists()


def test_flagged_paths_are_found_by_the_option_that_clears_them(repo: Path) -> None:
    _flag(repo)
    assert indexcopy.flagged_paths(repo) == {
        "--no-assume-unchanged": [b"a.txt"],
        "--no-skip-worktree": [b"b.txt"],
    }


def test_the_copy_has_the_flags_cleared_and_the_user_s_index_keeps_them(repo: Path) -> None:
    _flag(repo)
    (repo / "a.txt").write_text("changed\n")
    (repo / "b.txt").write_text("changed\n")
    assert git(repo, "diff", "--name-only") == ""  # git trusts the flags
    with indexcopy.measuring_index(repo, "HEAD") as index:
        assert index is not None
        assert _on(repo, index, "ls-files", "-v").split("\n")[:2] == ["H a.txt", "H b.txt"]
        assert _on(repo, index, "diff", "--name-only").split() == ["a.txt", "b.txt"]
    assert git(repo, "ls-files", "-v").split("\n")[:2] == ["h a.txt", "S b.txt"]


def test_a_workspace_base_s_path_missing_from_the_index_is_compared_with_the_disk(repo: Path) -> None:
    git(repo, "rm", "-q", "--cached", "c.txt")
    base = git(repo, "rev-parse", "HEAD^{tree}").strip()
    indexcopy.measure_from_workspace(base)
    (repo / "c.txt").write_text("gamma, changed\n")
    with indexcopy.measuring_index(repo, base) as index:
        assert index is not None
        assert _on(repo, index, "diff", "--name-status", base).split() == ["M", "c.txt"]
    assert "c.txt" not in git(repo, "ls-files").split()  # the user's index is as it was


def test_a_commit_of_the_history_is_measured_on_the_index_as_it_is(repo: Path) -> None:
    git(repo, "rm", "-q", "--cached", "c.txt")
    with indexcopy.measuring_index(repo, git(repo, "rev-parse", "HEAD").strip()) as index:
        assert index is None


def _stage_as_the_base(repo: Path, path: str, text: str) -> None:
    """`text` written at `path` and staged through a clean filter that gives git the base's content: the
    index holds the base's blob id with the new file's stat data, so git trusts it and reads nothing."""
    (repo / path).write_text(text)
    long_ago = time.time() - 60  # not racily clean, which git would read again anyway
    os.utime(repo / path, (long_ago, long_ago))
    (repo / ".git" / "info" / "attributes").write_text(f"{path} filter=base\n")
    git(repo, "-c", f"filter.base.clean=git show HEAD:{path}", "add", path)
    (repo / ".git" / "info" / "attributes").unlink()


def test_a_file_staged_since_the_loop_began_is_read_again(repo: Path) -> None:
    _stage_as_the_base(repo, "a.txt", "the agent's\n")
    assert changes.changed_paths(repo, "HEAD") == []  # the index's word for it: what git takes

    began = time.time()
    indexcopy.read_again_since(began)

    assert indexcopy.read_again_from() == began
    assert changes.changed_paths(repo, "HEAD") == ["a.txt"]
    assert b"+the agent's" in changes.diff_patch(repo, "HEAD")


@pytest.mark.parametrize("split", [False, True])
def test_only_the_entries_recorded_since_then_are_read_again(repo: Path, split: bool) -> None:
    # A split index holds most entries in a shared file: the files' own ctimes are read instead.
    if split:
        git(repo, "update-index", "--split-index")
    head = git(repo, "rev-parse", "HEAD").strip()
    # `ls-files -s`: "mode id stage<TAB>path"; an --index-info line is the same without the stage.
    records = [line.split("\t") for line in git(repo, "ls-files", "-s").splitlines()]
    lines = b"".join(f"{meta[:-2]}\t{path}\0".encode() for meta, path in records)
    index = repo / ".git" / "index"

    assert indexcopy.written_since(repo, index, head, 0) == lines
    assert indexcopy.written_since(repo, index, head, time.time() + 3600) == b""
