"""SIGKILL for tiergate at its k-th git call, and the check that nothing was lost (the kill tests).

A `git` wrapper first on PATH (tiergate runs git by PATH) counts the calls in a file and, at the k-th,
lets that git call finish and then kills its parent, the process running tiergate, with SIGKILL. Only the
calls of the process under test count: the wrapper counts a call only where its parent's parent is
KILL_ROOT, the process that started the one under test (`parent_of_runs`). The Stop hook measures a claim
in a forked child (`tiergate.offload`) whose git calls interleave with the hook's by timing; one level
further down, they are never counted, so that a run numbers the calls of the process under test alike
every time.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from testing import warmstart
from testing.savedworkspace import tree
from tiergate.project import Project
from tiergate.workspace import backups, putback

# Shell builtins where it can: the wrapper runs at every git call of some 120 runs.
WRAPPER = """#!/bin/sh
read -r _ _ _ grandparent _ < "/proc/$PPID/stat"
if [ "$grandparent" != "$KILL_ROOT" ]; then exec "{git}" "$@"; fi  # not the process under test's call
# Under a lock: a process may run git calls side by side (git diff in the background, say).
n=$( (flock 9; {{ read -r n < "$KILL_COUNT"; }} 2>/dev/null || n=0; n=$((n + 1))
    echo "$n" > "$KILL_COUNT"; echo "$n") 9>>"$KILL_COUNT.lock")
if [ -n "$KILL_LOG" ]; then echo "$*" >> "$KILL_LOG"; fi
"{git}" "$@"
status=$?
if [ "$n" = "$KILL_AT" ]; then kill -9 "$PPID"; fi
exit "$status"
"""

ROLLED_BACK = "tiergate backup before "  # the hook's reasons vary; never those of a restore's save
BEFORE_TEST = "tiergate backup before the test"
BEFORE_RESTORE = "tiergate backup before restoring"

Expected = tuple[dict[str, bytes], str]  # a workspace's files, and the reason of a backup that may hold it


def wrapper(where: Path) -> Path:
    """A folder holding the wrapper as `git`, to put first on PATH."""
    bin_dir = where / "bin"
    bin_dir.mkdir()
    real = shutil.which("git")
    assert real
    (bin_dir / "git").write_text(WRAPPER.format(git=real))
    (bin_dir / "git").chmod(0o755)
    return bin_dir


def kill_env(bin_dir: Path, count: Path, at: int) -> dict[str, str]:
    """What the wrapper reads: kill the process under test after its git call `at` (0: never)."""
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "KILL_COUNT": str(count),
        "KILL_AT": str(at),
        "KILL_ROOT": str(parent_of_runs()),
    }


def parent_of_runs() -> int:
    """The parent of a tiergate process a test starts: this test worker when it starts tiergate cold, the
    worker's warm server (`testing.warmstart`) when it forks one from there."""
    return os.getpid() if warmstart.cold() else warmstart.server_pid()


def assert_restorable(project: Project, step: str, *works: Expected) -> None:
    """The backups list without a problem, and each of `works` in turn is the workspace's or, restored,
    the newest backup's with that reason (a prefix of it; a restore's own save only for BEFORE_RESTORE)."""
    found = backups.inventory(project, project.root)
    assert found.problems == [], step
    for work, reason in works:
        if tree(project.root) == work:
            continue
        saved = [
            b
            for b in found.backups
            if b.reason.startswith(reason)
            and (reason == BEFORE_RESTORE) == b.reason.startswith(BEFORE_RESTORE)
        ]
        assert saved, f"{step}: the work is neither in the workspace nor in a backup ({reason})"
        putback.restore(project, saved[0])
        assert tree(project.root) == work, step
