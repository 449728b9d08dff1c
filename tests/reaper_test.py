"""The means by which nothing tiergate starts outlives it (tiergate.reaper), each on real processes: the
parent-death signal alone, the sweep by the environment's mark, and the watcher when the hook is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testing.procwatch import HANG_GUARD, gone_within, running

from tiergate import reaper


def wait_for_pids(path: Path, count: int = 1) -> list[int]:
    deadline = time.monotonic() + 20
    while len(path.read_text().split()) < count if path.exists() else True:
        assert time.monotonic() < deadline, f"{path} never held {count} pids"
        time.sleep(0.02)
    return [int(pid) for pid in path.read_text().split()]


PARENT = """
import subprocess, sys
from tiergate import reaper
if sys.argv[1] == "setpriv":
    argv, preexec = reaper.with_death_signal(["sleep", "600"])
    assert preexec is None and argv[0].endswith("setpriv"), argv
else:
    argv, preexec = ["sleep", "600"], reaper.parent_death_signal()
    assert preexec is not None
child = subprocess.Popen(argv, preexec_fn=preexec)
print(child.pid, flush=True)
child.wait()
"""


def until_environ_has(pid: int, text: str) -> None:
    """Until `pid`'s environment, as /proc shows it, holds `text`: while a process is inside execve, its
    environ reads empty (read in a loop from the spawn of `sh -c 'exec sleep 600'` to the end of its exec,
    one read in seven came back empty), and a sweep then cannot see its mark."""
    deadline = time.monotonic() + 10
    while text.encode() not in Path(f"/proc/{pid}/environ").read_bytes():
        assert time.monotonic() < deadline, f"{pid} never showed {text}"
        time.sleep(0.01)


def until_comm(pid: int, name: str) -> None:
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}/comm").read_text().strip() != name:
        assert time.monotonic() < deadline, f"{pid} never ran {name}"
        time.sleep(0.01)


@pytest.mark.parametrize("how", ["setpriv", "ctypes"])
def test_the_parent_death_signal_kills_the_child_when_its_parent_is_killed(how: str) -> None:
    with subprocess.Popen([sys.executable, "-c", PARENT, how], stdout=subprocess.PIPE, text=True) as parent:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        # setpriv asks for the signal before it execs sleep (a parent killed before that is the
        # watcher's to handle); the ctypes way asks before the fork returns.
        until_comm(child, "sleep")

        parent.kill()

    assert gone_within([child]) == []


def test_a_sweep_kills_what_carries_the_mark_wherever_it_went_and_nothing_else(tmp_path: Path) -> None:
    mark, other = reaper.new_mark(), reaper.new_mark()
    pids = tmp_path / "pids"
    escape = (
        f"setsid sh -c 'echo $$ >> {pids}; exec sleep 600' & (sh -c 'echo $$ >> {pids}; exec sleep 600' &)"
    )
    marked = subprocess.Popen(["sh", "-c", escape], env=reaper.marked_env(os.environ, f"{mark}.0"))
    nested = subprocess.Popen(  # a run inside a run: the outer mark stays beside the inner one
        ["sleep", "600"], env=reaper.marked_env(reaper.marked_env(os.environ, f"{mark}.1"), other)
    )
    unmarked = subprocess.Popen(["sleep", "600"], env=reaper.marked_env(os.environ, f"{mark}0.0"))
    escaped = wait_for_pids(pids, 2)
    marked.wait()
    for pid in escaped:  # each wrote its pid just before its exec: sweep once their execs are done
        until_comm(pid, "sleep")
        until_environ_has(pid, mark)

    assert reaper.sweep(mark) == 3

    assert gone_within([*escaped, nested.pid]) == []
    assert running(unmarked.pid)
    unmarked.kill()
    nested.wait()
    unmarked.wait()


def test_a_sweep_of_one_check_leaves_the_other_checks_of_the_run() -> None:
    mark = reaper.new_mark()
    first = subprocess.Popen(["sleep", "600"], env=reaper.marked_env(os.environ, f"{mark}.1"))
    tenth = subprocess.Popen(["sleep", "600"], env=reaper.marked_env(os.environ, f"{mark}.10"))

    reaper.sweep(f"{mark}.1")

    assert first.wait(timeout=HANG_GUARD) == -signal.SIGKILL
    assert running(tenth.pid)
    reaper.sweep(mark)
    assert tenth.wait(timeout=HANG_GUARD) == -signal.SIGKILL


HOOK = """
import subprocess, sys, time
from tiergate import reaper
mark = sys.argv[1]
watcher = reaper.Watcher(mark)
env = reaper.marked_env({}, mark + ".0")
ended = subprocess.Popen(["sleep", "600"], start_new_session=True)  # no mark: only its group says it
watcher.started(ended.pid)
watcher.ended(ended.pid)  # told ended: the watcher must not kill this group
groups = [subprocess.Popen(["sleep", "600"], start_new_session=True) for _ in range(2)]
for group in groups:
    watcher.started(group.pid)
daemon = subprocess.Popen(["sleep", "600"], env=env, start_new_session=True)  # never told: only its mark
print(ended.pid, *(g.pid for g in groups), daemon.pid, flush=True)
time.sleep(600)
"""


def watchers(mark: str) -> list[int]:
    """The watcher processes of the run `mark` (its shell, or the Python it became once the hook died)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:  # gone
            continue
        if mark.encode() in argv and any(arg.endswith((b"tiergate-watcher", b"reaper.py")) for arg in argv):
            found.append(int(cmdline.parent.name))
    return found


def test_the_watcher_kills_the_open_groups_and_the_mark_once_the_hook_is_gone() -> None:
    mark = reaper.new_mark()
    with subprocess.Popen([sys.executable, "-c", HOOK, mark], stdout=subprocess.PIPE, text=True) as hook:
        assert hook.stdout is not None
        ended, *killed = (int(pid) for pid in hook.stdout.readline().split())
        watcher = watchers(mark)
        assert len(watcher) == 1

        hook.kill()

    assert gone_within(killed) == []
    # Once the watcher is gone it has killed all it would: the group it was told had ended runs on.
    assert gone_within(watcher) == []
    assert running(ended)
    os.kill(ended, signal.SIGKILL)


def test_a_watcher_told_the_run_ended_leaves_everything_as_it_is() -> None:
    mark = reaper.new_mark()
    watcher = reaper.Watcher(mark)
    child = subprocess.Popen(
        ["sleep", "600"], env=reaper.marked_env(os.environ, mark), start_new_session=True
    )
    watcher.started(child.pid)
    process = watchers(mark)
    assert len(process) == 1

    watcher.close()

    # Once the watcher is gone it has done all it would: the child runs on.
    assert gone_within(process) == []
    assert running(child.pid)
    child.kill()
    child.wait()
