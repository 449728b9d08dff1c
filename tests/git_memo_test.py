"""What tiergate's git helpers keep for the process (what cannot change during it), and what they
never keep: the same answers as asking git, with fewer git calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, init_repo, write

from tiergate.errors import UserError
from tiergate.git import isolation, objects, repository, runner
from tiergate.workspace import ondisk


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The git calls made through `tiergate.git.runner.run`."""
    made: list[tuple[str, ...]] = []
    real = runner.run

    def counted(cwd: Path, *args: str, **kwargs: object) -> object:
        made.append(args)
        return real(cwd, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "run", counted)
    return made


def test_the_top_and_the_git_dir_are_asked_once(tmp_path: Path, calls: list[tuple[str, ...]]) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n", "sub/b.txt": "b\n"})

    assert repository.repo_root(repo / "sub") == repo
    assert repository.repo_root(repo / "sub" / "b.txt") == repo
    assert repository.git_dir(repo) == repo / ".git"
    assert repository.git_dir(repo) == repo / ".git"
    assert repository.operation_in_progress(repo) is None

    assert [c[0] for c in calls] == ["rev-parse", "rev-parse"]


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


def test_an_object_id_is_resolved_once_and_a_name_every_time(
    tmp_path: Path, calls: list[tuple[str, ...]]
) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    head = git(repo, "rev-parse", "HEAD").strip()

    assert objects.resolve_rev(repo, head) == objects.resolve_rev(repo, head) == head
    assert objects.resolve_rev(repo, "HEAD") == objects.resolve_rev(repo, "HEAD") == head
    assert len(calls) == 3
    with pytest.raises(UserError, match="unknown revision"):
        objects.resolve_rev(repo, "0" * 40)


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_the_empty_tree_is_known_in_both_object_formats(tmp_path: Path, object_format: str) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", f"--object-format={object_format}", str(repo))

    empty = objects.empty_tree(repo)

    assert empty == git(repo, "hash-object", "-t", "tree", "--stdin").strip()
    assert objects.is_empty_tree(empty)
    assert objects.empty_tree(repo) == empty
    assert not objects.is_empty_tree(git(tmp_path, "hash-object", "--stdin").strip())


def test_a_hash_object_without_filters_reads_no_config_and_one_with_them_does(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    environment = isolation.environment(None)

    git(repo, "config", "filter.x.clean", "false")

    assert "filter.x.clean=" in isolation.command(repo, ("hash-object", "--stdin-paths"), environment)
    assert "filter.x.clean=" not in isolation.command(repo, ("hash-object", "--no-filters"), environment)


def test_a_trees_files_are_read_once_and_handed_out_as_copies(
    tmp_path: Path, calls: list[tuple[str, ...]]
) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n", "d/b.txt": "b\n"})
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    first = ondisk.entries(repo / ".git", tree)
    first.pop("a.txt")

    second = ondisk.entries(repo / ".git", tree)

    assert sorted(second) == ["a.txt", "d/b.txt"]
    assert sum(1 for c in calls if "ls-tree" in c) == 1


def test_copying_trees_copies_every_object_they_hold_but_a_submodules_commit(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n", "d/e/b.txt": "b\n"})
    gitlink = "160000," + "1" * 40 + ",sub"
    git(repo, "update-index", "--add", "--cacheinfo", gitlink)
    with_link = git(repo, "write-tree").strip()
    first = git(repo, "rev-parse", "HEAD^{tree}").strip()
    store = tmp_path / "store.git"
    git(tmp_path, "init", "-q", "--bare", str(store))

    ondisk.copy_objects(repo / ".git", store, [first, with_link])

    listed = git(repo, "ls-tree", "-r", "-t", with_link)
    wanted = {with_link, first} | {line.split()[2] for line in listed.splitlines() if " commit " not in line}
    assert len(wanted) == 6  # the two trees, d, d/e and the two files
    for oid in wanted:
        git(store, "cat-file", "-e", oid)
