"""The files tiergate writes for a check's processes to read (its pytest plugin and node reporter, a test
selection), each noted with its change time as written, in this process.

The watch on what the checks read (`tiergate.gate.imported`) lets such a file be read while it is as
tiergate wrote it; one rewritten since (its change time moved: a process the agent left running can find
it) is read as any other file outside the copy, and named.
"""

# os.path on purpose: the watch's paths are strings.
# ruff: noqa: PTH116
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

_NOTED: dict[str, float] = {}
_STAMPS: dict[str, tuple[int, int]] = {}


def note(path: Path) -> None:
    """Note `path`, just written by tiergate, as it is now."""
    found = os.stat(path)
    _NOTED[os.path.realpath(path)] = found.st_ctime
    _STAMPS[os.path.realpath(path)] = (found.st_ino, found.st_ctime_ns)


def noted() -> Mapping[str, float]:
    """The files noted, resolved, with their change times as written."""
    return dict(_NOTED)


def stamps() -> Mapping[str, tuple[int, int]]:
    """The files noted, resolved, with their stamps as written (inode, change time in ns)."""
    return dict(_STAMPS)
