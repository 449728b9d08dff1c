"""Ending what tiergate starts (checks, the alert command) when it ends, or when the hook that started
it dies: a parent-death signal (`with_death_signal`), a watcher per run (`Watcher`) and a `TIERGATE_RUN`
mark every descendant inherits (`sweep`), each for what the one before cannot reach. Best effort; what
is out of reach: docs/ARCHITECTURE.md, section "Nothing tiergate starts outlives it".
"""
# The top level imports only `os`, `signal` and `sys`: once the hook is gone the watcher runs this file as
# a script (`python -I -S reaper.py <mark> <groups>`), which needs nothing of tiergate installed.

# os.path and os.open on purpose: the watcher runs this file with no site packages, and a sweep reads
# hundreds of small /proc files, where pathlib's objects would only add to its cost.
# ruff: noqa: PTH123, PTH208

from __future__ import annotations

import os
import signal
import sys

# Its own, not tiergate's: the watcher runs this file with nothing of tiergate on the path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Mapping

ENV_VAR = "TIERGATE_RUN"
END = b"end"
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_SWEEP_ROUNDS = 20  # a process forking as fast as it is killed is still found within this many rounds
_MARK_BYTES = 8


def new_mark() -> str:
    """A fresh random id for one run (`<16 hex digits>`); one process of it is marked `<id>.<n>`."""
    return os.urandom(_MARK_BYTES).hex()


def marked_env(base: Mapping[str, str], mark: str) -> dict[str, str]:
    """`base` with `mark` added to TIERGATE_RUN (a run inside another tiergate's check keeps the outer mark
    too, so that the outer sweep still reaches it)."""
    outer = base.get(ENV_VAR, "").split()
    return {**base, ENV_VAR: " ".join([*outer, mark])}


# The parent-death signal -----------------------------------------------------------------------------------

_prctl: list[Callable[..., int] | None] = []  # looked up once per process
_setpriv: list[str | None] = []  # likewise


def with_death_signal(argv: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """How to start `argv` so that the kernel SIGKILLs it when its parent dies: `(argv to run, preexec_fn)`.

    Through util-linux's `setpriv --pdeathsig` where it has it (2.33 and later), else a preexec_fn
    calling prctl; `(argv, None)` where neither is available."""
    # setpriv: an exec more, and the parent still starts the child with a cheap vfork. A preexec_fn makes
    # subprocess fork the whole parent: about 10 ms more per child on a small VM, where a vfork and an
    # exec cost one. One difference: a parent that dies in the millisecond before setpriv asked for the
    # signal is not noticed by it (the preexec_fn checks its parent after asking); the watcher and the
    # mark cover that.
    setpriv = _usable_setpriv()
    if setpriv is not None:
        return [setpriv, "--pdeathsig", "KILL", "--", *argv], None
    return argv, parent_death_signal()


def _usable_setpriv() -> str | None:
    if not _setpriv:
        _setpriv.append(_probe_setpriv() if sys.platform.startswith("linux") else None)
    return _setpriv[0]


def _probe_setpriv() -> str | None:
    import shutil
    import subprocess

    found = shutil.which("setpriv")
    if found is None:
        return None
    try:  # an older setpriv does not know the option: it would fail every check it started
        probe = subprocess.run(
            [found, "--pdeathsig", "KILL", "--", "true"], capture_output=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return found if probe.returncode == 0 else None


def parent_death_signal() -> Callable[[], None] | None:
    """A `preexec_fn` that has the kernel SIGKILL the child when its parent dies; None where prctl is not
    available (not Linux, no C library to load)."""
    prctl = _load_prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def ask() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died between the fork and the prctl: nobody would ask
            os._exit(1)

    return ask


def _load_prctl() -> Callable[..., int] | None:
    if not _prctl:
        _prctl.append(_find_prctl() if sys.platform.startswith("linux") else None)
    return _prctl[0]


def _find_prctl() -> Callable[..., int] | None:
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    found: Callable[..., int] = prctl
    return found


# The sweep -------------------------------------------------------------------------------------------------


def sweep(mark: str) -> int:
    """SIGKILL every process whose environment carries `mark` (or a mark under it, `<mark>.<n>`); how
    many were found. Repeated until a round finds none it has not killed: what a process forked while
    the round before killed it is found by the next."""
    killed: set[int] = set()
    for _ in range(_SWEEP_ROUNDS):
        found = [pid for pid in _marked(mark) if pid not in killed]
        if not found:
            break
        killed.update(pid for pid in found if _kill_marked(pid, mark))
    return len(killed)


def _marked(mark: str) -> list[int]:
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    me = os.getpid()
    return [int(name) for name in names if name.isdigit() and int(name) != me and _carries(int(name), mark)]


def _carries(pid: int, mark: str) -> bool:
    """Whether the process `pid` runs (a zombie has no environment left) with `mark` in TIERGATE_RUN."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            data = environ.read()
    except OSError:  # gone, or another user's
        return False
    wanted = mark.encode()
    if wanted not in data:
        return False
    prefix = ENV_VAR.encode() + b"="
    for entry in data.split(b"\0"):
        if entry.startswith(prefix):
            return any(v == wanted or v.startswith(wanted + b".") for v in entry[len(prefix) :].split())
    return False


def _kill_marked(pid: int, mark: str) -> bool:
    """SIGKILL `pid` if it still carries `mark`: through a pidfd where there is one, so that a pid that
    was reused since the scan is never signalled."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):
        handle = None
    try:
        if not _carries(pid, mark):
            return False
        if handle is not None:
            signal.pidfd_send_signal(handle, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except OSError:
        return False
    finally:
        if handle is not None:
            os.close(handle)
    return True


def kill_group(pgid: int) -> None:
    import contextlib

    with contextlib.suppress(OSError):  # gone, or not ours
        os.killpg(pgid, signal.SIGKILL)


# The watcher -----------------------------------------------------------------------------------------------


class Watcher:
    """The hook's side of one run's watcher process. When no watcher could be started, every method does
    nothing: the other two means still hold."""

    def __init__(self, mark: str) -> None:
        import subprocess

        _reap_leaving()
        self.mark = mark
        self._fd: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        read, write = os.pipe()  # both ends close on exec: no check inherits the write end
        try:
            self._process = subprocess.Popen(
                ["/bin/sh", "-c", _WATCHER, "tiergate-watcher", mark, sys.executable, __file__],
                stdin=read,
                stdout=subprocess.DEVNULL,  # never the hook's stdout: Claude Code waits for its end
                stderr=subprocess.DEVNULL,
                cwd="/",  # holds no folder (a baseline worktree) open
                start_new_session=True,  # outside the hook's group, whatever ends that
            )
            self._fd = write
        except OSError:
            os.close(write)
        finally:
            os.close(read)

    def started(self, pgid: int) -> None:
        self._say(b"+%d" % pgid)

    def ended(self, pgid: int) -> None:
        self._say(b"-%d" % pgid)

    def close(self) -> None:
        """The run ended as it should: the watcher leaves without killing anything."""
        self._say(END)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._process is not None and self._process.poll() is None:
            _leaving.append(self._process)  # reaped later, not waited for now
        self._process = None

    def _say(self, line: bytes) -> None:
        if self._fd is None:
            return
        try:
            os.write(self._fd, line + b"\n")
        except OSError:  # the watcher is gone: the parent-death signal and the sweeps remain
            os.close(self._fd)
            self._fd = None


# Watchers told to leave that had not left yet: kept, so that a long-lived caller (the test suite, a
# command running many gates) reaps them instead of collecting zombies.
_leaving: list[subprocess.Popen[bytes]] = []


def _reap_leaving() -> None:
    _leaving[:] = [process for process in _leaving if process.poll() is None]


# The watcher is a shell, not Python: it starts in about a millisecond where Python takes ten of CPU,
# beside every run's checks. Only when the hook is gone does it start Python, this very file, to act.
# The groups are kept as " 1 2 3 ": a group that ended is cut out, so that a number the kernel gives to a
# new group later is never killed. Signals are ignored: only the pipe's end ends the watcher.
_WATCHER = """
trap '' INT HUP TERM
groups=' '
while IFS= read -r line; do
    case $line in
        end) exit 0 ;;
        +*) groups="$groups${line#+} " ;;
        -*) g=${line#-}; case $groups in *" $g "*) groups="${groups%% $g *} ${groups#* $g }" ;; esac ;;
    esac
done
exec "$2" -I -S "$3" "$1" $groups
"""


def after_death(mark: str, groups: list[int]) -> None:
    """What the watcher does once the hook is gone: kill the groups still open, then sweep the mark."""
    for pgid in groups:
        kill_group(pgid)
    sweep(mark)


if __name__ == "__main__":
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    after_death(sys.argv[1], [int(group) for group in sys.argv[2:]])
