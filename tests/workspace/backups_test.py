"""Backups saved on real git repositories: what a backup holds and says, listed and found by name."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from testing import savedworkspace
from testing.gitrepo import commit_all, git, write
from testing.savedworkspace import (
    at_head,
    backup_refs,
    files,
    find,
    head,
    in_store,
    make_dirty,
    project,
    restore,
    rollback,
    save,
    status,
)

from tiergate.errors import UserError
from tiergate.workspace import backups

repo = savedworkspace.kinds_repo  # the fixture
no_git_identity = savedworkspace.no_git_identity  # autouse: tiergate's git needs no identity


def test_saving_touches_neither_the_index_nor_the_working_tree(repo: Path) -> None:
    make_dirty(repo)
    index = (repo / ".git" / "index").read_bytes()
    before, before_status = files(repo), status(repo)

    backup = save(repo)

    assert (repo / ".git" / "index").read_bytes() == index
    assert files(repo) == before
    assert status(repo) == before_status
    assert not list((repo / ".git").glob("tiergate-index-*"))
    assert backup_refs(repo) == [backup.ref]


def test_a_change_right_after_a_commit_at_the_same_size_is_saved(repo: Path) -> None:
    # A file changed in the second its index entry was written, at the same size, has the stat data git
    # recorded; only git's racy-file check (the file's mtime against the index's) makes git rehash it.
    # Saving a second later must keep that check working.
    index = repo / ".git" / "index"
    for n in range(10):
        write(repo, {"a.txt": f"version {n}\n"})
        commit_all(repo, f"v{n}")
        write(repo, {"a.txt": f"VERSION {n}\n"})
        if int((repo / "a.txt").stat().st_mtime) == int(index.stat().st_mtime):
            break
    time.sleep(1.1)
    assert in_store(repo, "show", f"{save(repo).commit}:files/a.txt") == f"VERSION {n}\n"


def test_a_backup_holds_tracked_and_untracked_files_but_not_ignored_ones(repo: Path) -> None:
    make_dirty(repo)
    backup = save(repo)
    saved = set(
        in_store(repo, "ls-tree", "-r", "-z", "--name-only", f"{backup.commit}:files").split("\0")
    ) - {""}

    expected = {p for p in files(repo) if not p.endswith(".log") and not p.startswith("build/")}
    assert saved == expected
    assert "gone.txt" not in saved
    assert (
        in_store(repo, "show", f"{backup.commit}:files/staged.txt") == "staged version, then edited again\n"
    )
    assert in_store(repo, "show", f"{backup.commit}:index/staged.txt") == "staged version\n"
    assert in_store(repo, "show", "-s", "--format=%P", backup.commit).strip() == ""  # no history
    assert f"Tiergate-Head: {head(repo)}" in in_store(repo, "show", "-s", "--format=%B", backup.commit)


def test_the_backup_message_says_what_and_why(repo: Path) -> None:
    make_dirty(repo)
    backup = save(repo, "rolling back to the last green point")
    message = in_store(repo, "log", "-1", "--format=%B", backup.commit)
    assert message.startswith("tiergate backup before rolling back to the last green point\n")
    assert "as it was on disk: 5 added, 4 modified, 1 deleted against HEAD" in message
    assert backup.reason == "tiergate backup before rolling back to the last green point"
    author = in_store(repo, "log", "-1", "--format=%an <%ae>", backup.commit).strip()
    assert author == "tiergate <tiergate@localhost>"


def test_a_backup_survives_git_gc(repo: Path) -> None:
    make_dirty(repo)
    before = files(repo)
    backup = rollback(repo, at_head(repo), "a test")
    assert backup is not None
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")
    assert not list((repo / ".git" / "objects").glob("??/*"))  # everything was packed or pruned
    restore(repo, find(repo, backup.ref))
    assert files(repo) == before


def test_backups_are_listed_newest_first_and_found_by_prefix(repo: Path) -> None:
    write(repo, {"a.txt": "one\n"})
    old = save(repo, "the first", now=1_700_000_000.25)
    write(repo, {"a.txt": "two\n"})
    new = save(repo, "the second", now=1_700_000_060.5)

    listed = backups.list_backups(project(repo), repo)

    assert [b.name for b in listed] == [new.name, old.name]
    assert old.name.startswith("20231114T221320.250Z-")
    assert listed[1].reason == "tiergate backup before the first" and listed[1].head == head(repo)
    assert listed[1].created == 1_700_000_000
    assert find(repo, "20231114T2214") == new
    assert find(repo, old.ref) == listed[1]
    with pytest.raises(UserError, match="ambiguous"):
        find(repo, "2023")
    with pytest.raises(UserError, match="no backup named 'nope'"):
        find(repo, "nope")
