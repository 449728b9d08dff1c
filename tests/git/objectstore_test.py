"""A tree's files read from git once, and trees copied between object stores whole (`git.objectstore`)."""

from __future__ import annotations

from pathlib import Path

from testing.gitcalls import calls_fixture  # noqa: F401  (the `calls` fixture)
from testing.gitrepo import git, init_repo

from tiergate.git import objectstore


def test_a_trees_files_are_read_once_and_handed_out_as_copies(
    tmp_path: Path, calls: list[tuple[str, ...]]
) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n", "d/b.txt": "b\n"})
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    first = objectstore.entries(repo / ".git", tree)
    first.pop("a.txt")

    second = objectstore.entries(repo / ".git", tree)

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

    objectstore.copy_objects(repo / ".git", store, [first, with_link])

    listed = git(repo, "ls-tree", "-r", "-t", with_link)
    wanted = {with_link, first} | {line.split()[2] for line in listed.splitlines() if " commit " not in line}
    assert len(wanted) == 6  # the two trees, d, d/e and the two files
    for oid in wanted:
        git(store, "cat-file", "-e", oid)
