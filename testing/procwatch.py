"""Watching real processes and the files they write, for tests of what outlives what."""

from __future__ import annotations

import time
from pathlib import Path


def running(pid: int) -> bool:
    """Whether `pid` runs: a zombie (an orphan this container's init may never reap) does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def gone_within(pids: list[int], seconds: float = 2.0) -> list[int]:
    """Those of `pids` still running after `seconds` (a signalled process on a loaded machine may take a
    moment to be scheduled and die); [] as soon as none is."""
    deadline = time.monotonic() + seconds
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [pid for pid in pids if running(pid)]


def still_written(path: Path, seconds: float = 1.0) -> bool:
    """Whether `path` grows within the next `seconds`."""
    before = path.stat().st_size if path.exists() else 0
    time.sleep(seconds)
    return (path.stat().st_size if path.exists() else 0) != before


def wait_for_text(path: Path, seconds: float = 20.0) -> str:
    """The text of `path` once it has some (stripped); AssertionError after `seconds`."""
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)
    return path.read_text().strip()
