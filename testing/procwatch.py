"""Watching real processes and the files they write, for tests of what outlives what."""

from __future__ import annotations

import time
from pathlib import Path

# How long a test waits for something that must happen before it gives up: a guard against a hang, never
# a measure of speed. What a test watches for must take far longer than this on its own (a `sleep 600`,
# an endless loop), so that seeing it happen within the guard says why it happened, on any machine load.
HANG_GUARD = 60.0


def running(pid: int) -> bool:
    """Whether `pid` runs: a zombie (an orphan this container's init may never reap) does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def gone_within(pids: list[int], seconds: float = HANG_GUARD) -> list[int]:
    """Those of `pids` still running after `seconds`; [] as soon as none is. A process killed on a loaded
    machine may wait to be scheduled before it dies: give processes that would not end on their own
    within `seconds` (`sleep 600`), so that gone means killed, however long the kernel took."""
    deadline = time.monotonic() + seconds
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [pid for pid in pids if running(pid)]


def still_written(path: Path, seconds: float = 1.0) -> bool:
    """Whether `path` grows within the next `seconds` (once its writers are known to be gone, it cannot)."""
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


def shell_wait_for(condition: str) -> str:
    """A shell command that returns once the shell command `condition` succeeds, polling, or after
    HANG_GUARD seconds: for a scripted tool call that must come after an event whatever the machine's load."""
    polls = int(HANG_GUARD / 0.05)
    return f"for i in $(seq {polls}); do {condition} && break; sleep 0.05; done"


def started_with(variable: str, words: tuple[str, ...]) -> list[int]:
    """The processes on this machine whose environment holds `variable` (`NAME=value`) and whose command line
    holds one of `words`: how a test finds what a check started, whose own pids are its sandbox's."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if (
            variable.encode() in environ
            and any(w.encode() in line for w in words)
            and running(int(entry.name))
        ):
            found.append(int(entry.name))
    return found
