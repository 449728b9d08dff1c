"""Where a repository is, asked of real git: the top of the work tree, the git directory, HEAD; each
kept for the process where it cannot change, with fewer git calls than asking again."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.gitcalls import calls_fixture  # noqa: F401  (the `calls` fixture)
from testing.gitrepo import commit_all, git, init_repo, write

from tiergate.errors import UserError
from tiergate.git import objects, repository


def test_repo_root_from_a_subdirectory_and_from_a_file(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a/b/c.txt": "x\n"})
    assert repository.repo_root(repo / "a" / "b") == repo
    assert repository.repo_root(repo / "a" / "b" / "c.txt") == repo


def test_outside_a_repository_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(UserError) as e:
        repository.repo_root(tmp_path)
    assert str(e.value) == f"not a git repository: {tmp_path} (run tiergate inside a git work tree)"


def test_inside_the_git_directory_is_not_a_work_tree(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "x\n"})
    with pytest.raises(UserError, match="not a git repository"):
        repository.repo_root(repo / ".git")


def test_a_missing_directory_is_named(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such directory"):
        repository.repo_root(tmp_path / "nope" / "deeper")


def test_head_sha_is_none_before_the_first_commit(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    assert repository.head_sha(repo) is None
    write(repo, {"a.txt": "x\n"})
    sha = commit_all(repo, "first")
    assert repository.head_sha(repo) == sha
    assert len(sha) == 40


def test_the_top_and_the_git_dir_are_asked_once(tmp_path: Path, calls: list[tuple[str, ...]]) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n", "sub/b.txt": "b\n"})

    assert repository.repo_root(repo / "sub") == repo
    assert repository.repo_root(repo / "sub" / "b.txt") == repo
    assert repository.git_dir(repo) == repo / ".git"
    assert repository.git_dir(repo) == repo / ".git"
    assert repository.operation_in_progress(repo) is None

    assert [c[0] for c in calls] == ["rev-parse"]  # the git dir comes with the top, in one call


def test_a_top_found_with_head_is_kept_but_head_never_is(
    tmp_path: Path, calls: list[tuple[str, ...]]
) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    top, first = repository.top_and_head(repo)
    write(repo, {"a.txt": "b\n"})
    commit_all(repo, "second")

    assert repository.repo_root(repo) == top == repo
    assert repository.top_and_head(repo) == (repo, git(repo, "rev-parse", "HEAD").strip()) != (repo, first)
    assert objects.resolve_rev(repo, "HEAD") == git(repo, "rev-parse", "HEAD").strip()
    assert len(calls) == 3  # the two top_and_head and the HEAD resolved: repo_root asked nothing
