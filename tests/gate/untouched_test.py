"""The base's worktree, untouched or not: the pure comparison, and the snapshot of a real folder."""

from __future__ import annotations

import os
from pathlib import Path

from tiergate.gate.untouched import Snapshot, take, touched

TRACKED = {"calc/mod.py": "b1", "README.md": "b2"}


def test_a_worktree_as_git_wrote_it_with_caches_beside_is_untouched() -> None:
    before = Snapshot({"calc/mod.py": (1, 10), "README.md": (2, 10)})
    after = Snapshot(
        {**before.files, ".pytest_cache/v/x": (3, 11), "__pycache__/mod.cpython-311.pyc": (4, 11)}
    )
    assert touched(before, after, TRACKED, {"calc/mod.py": "b1", "README.md": "b2"}) == ()


def test_a_module_rewritten_written_and_restored_or_planted_is_named() -> None:
    before = Snapshot({"calc/mod.py": (1, 10), "README.md": (2, 10)})
    rewritten_before_the_run = touched(before, before, TRACKED, {"calc/mod.py": "evil", "README.md": "b2"})
    assert rewritten_before_the_run == ("calc/mod.py",)
    restored = Snapshot({"calc/mod.py": (1, 12), "README.md": (2, 10)})  # same content, a new change time
    assert touched(before, restored, TRACKED, {"calc/mod.py": "b1", "README.md": "b2"}) == ("calc/mod.py",)
    shadow = Snapshot({**before.files, "calc/mod/__init__.py": (5, 12), "site.pth": (6, 12)})
    assert touched(before, shadow, TRACKED, dict(TRACKED)) == ("calc/mod/__init__.py", "site.pth")
    gone = Snapshot({"README.md": (2, 10)})
    assert touched(before, gone, TRACKED, {"README.md": "b2"}) == ("calc/mod.py",)


def test_a_snapshot_sees_a_write_that_puts_the_same_bytes_back(tmp_path: Path) -> None:
    module = tmp_path / "calc" / "mod.py"
    module.parent.mkdir()
    module.write_text("x = 1\n")
    (tmp_path / ".git").write_text("gitdir: elsewhere\n")
    before = take(tmp_path)
    assert set(before.files) == {"calc/mod.py"}
    stat = module.stat()
    module.write_text("x = 1\n")
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the times a user can set back
    assert take(tmp_path).files != before.files
