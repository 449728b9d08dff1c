"""A workspace kept in tiergate's store and read back: what changed against HEAD."""

from __future__ import annotations

from pathlib import Path

from testing import savedworkspace
from testing.savedworkspace import make_dirty, snapshot

from tiergate.workspace import snapshots

repo = savedworkspace.kinds_repo  # the fixture
no_git_identity = savedworkspace.no_git_identity  # autouse: tiergate's git needs no identity


def test_changes_lists_paths_with_their_status(repo: Path) -> None:
    make_dirty(repo)
    workspace = snapshot(repo)
    found = snapshots.changes(repo, snapshots.tree_of(repo, workspace.head), workspace.files)
    assert found["gone.txt"] == "D"
    assert found["new file.txt"] == "A"
    assert found["image.bin"] == "M"
    assert "debug.log" not in found
