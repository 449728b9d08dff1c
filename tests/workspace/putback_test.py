"""Rollbacks and restores on real git repositories: nothing is ever lost, ignored files are never touched."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest
from testing import savedworkspace
from testing.gitrepo import commit_all, git, init_repo, write
from testing.savedworkspace import (
    BINARY,
    IGNORE,
    SNAPSHOT,
    at_head,
    backup_refs,
    files,
    find,
    head,
    in_store,
    make_dirty,
    restore,
    rollback,
    snapshot,
    staged,
    status,
)

from tiergate.errors import UserError
from tiergate.workspace import snapshots

repo = savedworkspace.kinds_repo  # the fixture
no_git_identity = savedworkspace.no_git_identity  # autouse: tiergate's git needs no identity


def test_rollback_then_restore_gives_back_every_byte(repo: Path) -> None:
    make_dirty(repo)
    green = at_head(repo)
    committed = files(repo)
    before, before_status, before_staged = files(repo), status(repo), staged(repo)
    mode = stat.S_IMODE((repo / "run.sh").stat().st_mode)

    backup = rollback(repo, green, "a test rollback")

    assert backup is not None
    after = files(repo)
    ignored = {p: b for p, b in before.items() if p.endswith(".log") or p.startswith("build/")}
    assert ignored and all(after[p] == b for p, b in ignored.items())
    git(repo, "fsck", "--no-progress", "--strict")
    assert status(repo).splitlines() == [f"!! {p}" for p in sorted(ignored)]
    assert (repo / "gone.txt").read_text() == "to be deleted\n"
    assert (repo / "image.bin").read_bytes() == BINARY
    assert not (repo / "new file.txt").exists()
    assert not (repo / "fresh" / "dir" / "tree").exists()
    assert head(repo) == green.head

    restored = restore(repo, find(repo, backup.name))

    assert restored.changed and restored.saved is None  # the rolled-back state was all in HEAD
    assert files(repo) == before
    assert status(repo) == before_status
    assert staged(repo) == before_staged
    assert stat.S_IMODE((repo / "run.sh").stat().st_mode) == mode
    assert committed["link"] == files(repo)["link"] == b"-> a.txt"


def test_a_rollback_of_a_clean_workspace_does_nothing(repo: Path) -> None:
    index = (repo / ".git" / "index").read_bytes()
    assert rollback(repo, at_head(repo), "nothing to do") is None
    assert backup_refs(repo) == []
    assert (repo / ".git" / "index").read_bytes() == index


def test_dirtiness_is_measured_against_the_target_not_against_head(repo: Path) -> None:
    write(repo, {"a.txt": "verified but not committed\n", "extra.txt": "untracked, verified\n"})
    verified = snapshot(repo)
    before = files(repo)
    assert rollback(repo, verified, "same files as the target") is None
    assert files(repo) == before
    assert backup_refs(repo) == [SNAPSHOT]


def test_a_rollback_to_a_dirty_target_puts_its_uncommitted_files_back(repo: Path) -> None:
    write(repo, {"a.txt": "verified\n", "extra.txt": "verified, untracked\n"})
    verified_files, verified = files(repo), snapshot(repo)
    make_dirty(repo)
    backup = rollback(repo, verified, "back to the verified state")
    assert backup is not None
    assert {p: b for p, b in files(repo).items() if not p.endswith(".log") and "build" not in p} == (
        verified_files
    )
    assert "?? extra.txt" in status(repo).splitlines()  # untracked again, as it was


def test_a_rollback_moves_head_back_over_commits_made_since_and_keeps_them(repo: Path) -> None:
    green = at_head(repo)
    write(repo, {"a.txt": "committed by the loop\n"})
    commit_c = commit_all(repo, "loop's commit")
    write(repo, {"later.txt": "after the commit\n"})

    backup = rollback(repo, green, "a test")

    assert backup is not None and backup.head == commit_c
    assert head(repo) == green.head
    assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert (repo / "a.txt").read_text() == "alpha\n"
    assert not (repo / "later.txt").exists()
    restore(repo, backup)
    assert head(repo) == commit_c
    assert (repo / "later.txt").read_text() == "after the commit\n"
    assert (repo / "a.txt").read_text() == "committed by the loop\n"


def test_a_rollback_across_histories_is_refused_and_changes_nothing(repo: Path) -> None:
    git(repo, "switch", "-q", "-c", "other")
    write(repo, {"a.txt": "on another branch\n"})
    elsewhere = snapshots.workspace_at(repo, commit_all(repo, "other"))
    git(repo, "switch", "-q", "main")
    make_dirty(repo)
    before = files(repo)
    with pytest.raises(UserError, match="not in the history of HEAD"):
        rollback(repo, elsewhere, "a test")
    assert files(repo) == before
    assert backup_refs(repo) == []


def test_restore_saves_what_the_workspace_holds_now_first(repo: Path) -> None:
    make_dirty(repo)
    first = rollback(repo, at_head(repo), "a test")
    assert first is not None
    write(repo, {"meanwhile.txt": "written after the rollback\n", "a.txt": "changed after\n"})
    meanwhile = files(repo)

    restored = restore(repo, first)

    assert restored.saved is not None
    assert not (repo / "meanwhile.txt").exists()
    restore(repo, restored.saved)
    assert files(repo) == meanwhile


def test_restoring_twice_changes_nothing_the_second_time(repo: Path) -> None:
    make_dirty(repo)
    backup = rollback(repo, at_head(repo), "a test")
    assert backup is not None
    restore(repo, backup)
    again = restore(repo, backup)
    assert not again.changed and again.saved is None
    assert len(backup_refs(repo)) == 1


def test_restore_refuses_when_head_left_the_backups_history(repo: Path) -> None:
    make_dirty(repo)
    backup = rollback(repo, at_head(repo), "a test")
    assert backup is not None
    git(repo, "switch", "-q", "--orphan", "elsewhere")
    write(repo, {"x.txt": "x\n"})
    commit_all(repo, "unrelated")
    before = files(repo)
    with pytest.raises(UserError, match="has moved off the history of backup"):
        restore(repo, backup)
    assert files(repo) == before


def test_an_empty_repository(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "empty")
    write(root, {".gitignore": IGNORE, "staged.txt": "staged\n", "dir/untracked.txt": "u\n", "x.log": "i\n"})
    git(root, "add", "staged.txt")
    before, before_status = files(root), status(root)

    backup = rollback(root, snapshots.workspace_at(root, None), "a test")

    assert backup is not None and backup.head is None
    assert files(root) == {"x.log": b"i\n"}
    assert git(root, "ls-files") == ""
    restore(root, backup)
    assert files(root) == before
    assert status(root) == before_status


def test_a_rollback_to_before_the_first_commit(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "empty")
    start = snapshots.workspace_at(root, git(root, "hash-object", "-t", "tree", "--stdin").strip())
    assert start.head is None
    write(root, {"made.txt": "by the loop\n"})
    made = commit_all(root, "the loop's first commit")
    write(root, {"made.txt": "and changed\n"})

    backup = rollback(root, start, "a test")

    assert backup is not None and backup.head == made
    assert files(root) == {}
    assert subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=root, check=False).returncode
    restore(root, backup)
    assert head(root) == made
    assert (root / "made.txt").read_text() == "and changed\n"


def test_a_nested_repository_is_left_alone(repo: Path) -> None:
    nested = init_repo(repo / "vendor" / "lib", {"inner.txt": "inner\n"})
    write(nested, {"inner.txt": "inner, modified\n"})
    write(repo, {"a.txt": "modified\n"})
    backup = rollback(repo, at_head(repo), "a test")
    assert backup is not None
    assert (nested / "inner.txt").read_text() == "inner, modified\n"
    assert "vendor" not in in_store(repo, "ls-tree", "-r", "--name-only", backup.commit)


def test_a_submodules_work_tree_is_left_alone(repo: Path, tmp_path: Path) -> None:
    upstream = init_repo(tmp_path / "upstream", {"inner.txt": "inner\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "sub")
    commit_all(repo, "a submodule")
    write(repo / "sub", {"inner.txt": "changed inside the submodule\n", "scratch.txt": "its own untracked\n"})
    write(repo, {"a.txt": "outer change\n"})

    backup = rollback(repo, at_head(repo), "a test")

    assert backup is not None
    assert (repo / "a.txt").read_text() == "alpha\n"
    assert (repo / "sub" / "inner.txt").read_text() == "changed inside the submodule\n"
    assert (repo / "sub" / "scratch.txt").read_text() == "its own untracked\n"
    restore(repo, backup)
    assert (repo / "a.txt").read_text() == "outer change\n"
