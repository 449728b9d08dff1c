"""The change between a base and the working tree, on real git: odd names, renames, the patch's counts
against numstat's, and the user's index never written."""

from __future__ import annotations

import os
from pathlib import Path

from testing.gitrepo import ODD_NAMES, git, init_repo, write

from tiergate.git import changes, formats, untracked


def test_the_change_and_untracked_files_survive_odd_names(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", dict.fromkeys(ODD_NAMES, "x\n"))
    write(repo, dict.fromkeys(ODD_NAMES, "x\ny\n"))
    write(repo, {f"new {name}": "z\n" for name in ODD_NAMES})
    entries = changes.ChangeDiff(repo, "HEAD", with_patch=False).result()[0]
    assert sorted(e.path for e in entries) == sorted(ODD_NAMES)
    assert {(e.status, e.additions, e.deletions) for e in entries} == {("M", 1, 0)}
    assert sorted(untracked.untracked_files(repo, "HEAD")) == sorted(f"new {name}" for name in ODD_NAMES)


def test_the_change_reports_renames_with_their_old_path(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"old name.txt": "".join(f"line {i}\n" for i in range(20))})
    git(repo, "mv", "old name.txt", "new name.txt")
    [entry] = changes.ChangeDiff(repo, "HEAD", with_patch=False).result()[0]
    assert (entry.status, entry.path, entry.old_path, entry.additions, entry.deletions) == (
        "R",
        "new name.txt",
        "old name.txt",
        0,
        0,
    )


def test_diff_patch_limited_to_paths(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "1\n", "-b.txt": "1\n", "c d.txt": "1\n"})
    write(repo, {"a.txt": "2\n", "-b.txt": "2\n", "c d.txt": "2\n"})
    patch = changes.diff_patch(repo, "HEAD", ["-b.txt", "c d.txt"]).decode()
    assert "+++ b/-b.txt" in patch
    assert "+++ b/c d.txt" in patch
    assert "a.txt" not in patch
    assert "@@ -1 +1 @@" in patch  # no context lines by default


def test_the_patch_runs_counts_are_the_ones_numstat_gives(tmp_path: Path) -> None:
    # `ChangeDiff` with its patch reads the line counts from the patch's hunks instead of asking git for
    # --numstat (a second diff of every file); every kind of entry must count as numstat counts it.
    files = {
        "sql.txt": "-- a comment\n--- three\nkeep\n",
        "noeol.txt": "last line",
        "bin.dat": "\0\1\2",
        "gone.txt": "one\ntwo\n",
        "old name.txt": "same\n" * 10,
        "mode.sh": "echo\n",
        "link": "target\n",
        **dict.fromkeys(ODD_NAMES, "x\n"),
    }
    repo = init_repo(tmp_path / "r", files)
    write(
        repo,
        {
            "sql.txt": "--- three\n+++ four\n@@ -1 +1 @@\nkeep\n",
            "noeol.txt": "last line\n",
            "bin.dat": "\0\3",
            "new.txt": "",
            **dict.fromkeys(ODD_NAMES, "y\n"),
        },
    )
    (repo / "gone.txt").unlink()
    git(repo, "mv", "old name.txt", "new name.txt")
    (repo / "mode.sh").chmod(0o755)
    git(repo, "add", "-N", "new.txt")
    base = git(repo, "rev-parse", "HEAD").strip()

    def diffed(numstat: bool) -> tuple[list[formats.DiffEntry], bytes]:
        return changes._entries_and_patch(
            changes._disk_diff(repo, *changes._diff_options(True, numstat), base=base)
        )

    fast, patch = diffed(numstat=False)
    counted = formats.with_patch_counts(fast, patch)

    with_numstat, same_patch = diffed(numstat=True)
    assert counted is not None and counted == with_numstat and patch == same_patch
    assert changes.ChangeDiff(repo, base, with_patch=True).result() == (with_numstat, patch)
    by_path = {e.path: (e.additions, e.deletions) for e in counted}
    assert by_path["bin.dat"] == (None, None) and by_path["noeol.txt"] == (1, 1)
    assert by_path["new name.txt"] == (0, 0) and by_path["mode.sh"] == (0, 0) and by_path["new.txt"] == (0, 0)
    # A type change shows as two patches of one record: no line-up, so the counts come from numstat.
    (repo / "link").unlink()
    (repo / "link").symlink_to("target")
    fast, patch = diffed(numstat=False)
    assert formats.with_patch_counts(fast, patch) is None
    assert changes.ChangeDiff(repo, base, with_patch=True).result() == diffed(numstat=True)


def test_measuring_the_working_tree_never_writes_the_users_index(tmp_path: Path) -> None:
    """`git diff` rewrites the index it reads when it finds stale stat data on files whose content did
    not change, taking its lock, whatever GIT_OPTIONAL_LOCKS says. A measurement must leave the user's
    index as it was: no lock in the way of the user's own git, no file replaced under tiergate's caches."""
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n", "b.txt": "b\n"})
    write(repo, {"b.txt": "changed\n"})
    index = repo / ".git" / "index"
    os.utime(repo / "a.txt", ns=(index.stat().st_mtime_ns + 10**9,) * 2)  # stale stat data, same content
    before = index.stat()

    entries, patch = changes.ChangeDiff(repo, "HEAD", with_patch=True).result()
    assert [e.path for e in entries] == ["b.txt"] and patch is not None and b"+changed" in patch
    assert changes.changed_paths(repo, "HEAD") == ["b.txt"]
    assert changes.diff_patch(repo, "HEAD").count(b"diff --git") == 1

    after = index.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (
        before.st_ino,
        before.st_mtime_ns,
        before.st_size,
    )
    assert sorted(p.name for p in index.parent.iterdir() if p.name.startswith(("index", "tiergate-"))) == [
        "index"
    ]
