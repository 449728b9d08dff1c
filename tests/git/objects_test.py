"""Revisions resolved to full ids, and the empty tree, in both object formats; an id kept once resolved."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.gitcalls import calls_fixture  # noqa: F401  (the `calls` fixture)
from testing.gitrepo import commit_all, git, init_repo, write

from tiergate.errors import UserError
from tiergate.git import formats, objects

EMPTY_TREE_SHA1 = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
EMPTY_TREE_SHA256 = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"


def test_resolve_rev_gives_full_ids(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "1\n"})
    first = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "tag", "-a", "-m", "annotated", "v1")
    git(repo, "branch", "old")
    write(repo, {"a.txt": "2\n"})
    second = commit_all(repo, "second")
    assert objects.resolve_rev(repo, "HEAD") == second
    assert objects.resolve_rev(repo, "main") == second
    assert objects.resolve_rev(repo, "old") == first
    assert objects.resolve_rev(repo, "v1") == first  # an annotated tag peels to its commit
    assert objects.resolve_rev(repo, first[:8]) == first
    assert objects.resolve_rev(repo, "HEAD~1") == first
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    assert objects.resolve_rev(repo, tree) == tree


@pytest.mark.parametrize("rev", ["nope", "--output=/tmp/x", "", "HEAD~5"])
def test_unknown_revisions_are_one_clear_line(tmp_path: Path, rev: str) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "1\n"})
    with pytest.raises(UserError) as e:
        objects.resolve_rev(repo, rev)
    assert str(e.value) == f"unknown revision {rev!r} in {repo}"


def test_head_of_an_empty_repository_is_the_empty_tree(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    assert objects.resolve_rev(repo, "HEAD") == EMPTY_TREE_SHA1
    assert objects.resolve_rev(repo, EMPTY_TREE_SHA1) == EMPTY_TREE_SHA1
    with pytest.raises(UserError, match="unknown revision 'main'"):
        objects.resolve_rev(repo, "main")


def test_sha256_repositories(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "--object-format=sha256", "-b", "main")
    assert objects.empty_tree(repo) == EMPTY_TREE_SHA256
    write(repo, {"a.txt": "hello\n"})
    assert formats.blob_id(b"hello\n", 64) == git(repo, "hash-object", "a.txt").strip()


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


def test_blobs_are_read_in_one_batch_in_order_with_nothing_for_what_is_not_a_blob(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "one\n", "b.bin": "two\0\nlines\n"})
    a, b = (git(repo, "rev-parse", f"HEAD:{name}").strip() for name in ("a.txt", "b.bin"))
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    missing = "0" * 40

    assert objects.blobs(repo, [b, tree, a, missing, a]) == [b"two\0\nlines\n", b"", b"one\n", b"", b"one\n"]
    assert objects.blobs(repo, []) == []
