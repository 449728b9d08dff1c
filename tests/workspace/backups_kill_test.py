"""SIGKILL at every git call of a restore (`tiergate restore`; the Stop hook's rollback is
`stop_kill_test`'s), and between the files a rollback or a restore writes: the loop's state and the
backups still read, and the work is still restorable byte for byte (issue 10).

A `git` wrapper first on PATH (tiergate runs git by PATH) counts the calls in a file and, at the k-th,
lets that git call finish and then kills its parent, the process running tiergate, with SIGKILL.

Only the calls of the process under test count, the one the test started (KILL_ROOT names the test's
own process): the Stop hook measures a claim in a forked child (`tiergate.offload`) whose git calls
interleave with the hook's by timing, so that counting them would number the hook's own calls
differently from run to run. The child is done before the rollback begins (the hook has read its
answers)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testing.gitrepo import GIT_ENV, git, init_repo, write
from testing.savedworkspace import tree

from tiergate.project import Project
from tiergate.workspace import backups, ondisk, putback, snapshots

ROLLBACK = (
    "import sys; from pathlib import Path; from tiergate.project import Project; "
    "from tiergate.workspace import putback, snapshots; root = Path(sys.argv[1]); "
    "putback.rollback(Project(root, Path(sys.argv[2])), snapshots.workspace_at(root, 'HEAD'), 'the test')"
)
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


pytestmark = pytest.mark.long


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)


def setup(tmp_path: Path) -> tuple[Path, Project, dict[str, bytes]]:
    repo = init_repo(
        tmp_path / "repo",
        {".gitignore": "*.log\n", "app.py": "v = 1\n", "gone.txt": "g\n", "cfg.ini": "a = 1\n"},
    )
    write(repo, {"app.py": "v = 2\n", "new/feature.py": "f\n", "run.log": "ignored\n"})
    (repo / "gone.txt").unlink()
    git(repo, "rm", "-q", "--cached", "cfg.ini")
    write(repo, {".gitignore": "*.log\ncfg.ini\n", "cfg.ini": "a = 2  # untracked, then ignored\n"})
    (repo / "empty").mkdir()
    (repo / "link").symlink_to("app.py")
    return repo, Project(repo, tmp_path / "state"), tree(repo)


def wrapper(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real = shutil.which("git")
    assert real
    (bin_dir / "git").write_text(WRAPPER.format(git=real))
    (bin_dir / "git").chmod(0o755)
    return bin_dir


def run_killed(
    args: list[str], cwd: Path, bin_dir: Path, at: int, extra: dict[str, str] | None = None
) -> int:
    """Run `args` with the wrapper first on PATH, killed after git call `at` (0: never); the number of
    git calls it made."""
    count = bin_dir.parent / "count"
    count.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "KILL_COUNT": str(count),
        "KILL_AT": str(at),
        "KILL_ROOT": str(os.getpid()),
        **(extra or {}),
    }
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, check=False)
    if at:
        assert proc.returncode == -9, (at, proc.stderr)
    else:
        assert proc.returncode == 0, proc.stderr
    return int(count.read_text()) if count.exists() else 0


Expected = tuple[dict[str, bytes], str]  # a workspace's files, and the reason of a backup that may hold it


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


ROLLED_BACK = "tiergate backup before "  # the hook's reasons vary; never those of a restore's save
BEFORE_TEST = "tiergate backup before the test"
BEFORE_RESTORE = "tiergate backup before restoring"


def rolled_back(where: Path) -> tuple[Project, list[Expected], backups.Backup]:
    """A rolled-back workspace with more work done since: what a restore must save first."""
    repo, project, work = setup(where)
    backup = putback.rollback(project, snapshots.workspace_at(repo, "HEAD"), "the test")
    assert backup is not None
    write(repo, {"app.py": "v = 3  # after the rollback\n", "meanwhile.txt": "new since\n"})
    return project, [(tree(repo), BEFORE_RESTORE), (work, BEFORE_TEST)], backup


def restore_args(project: Project, backup: backups.Backup) -> list[str]:
    return [sys.executable, "-m", "tiergate", "restore", backup.name]


def test_a_restore_killed_at_every_git_call_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = wrapper(tmp_path)
    template = tmp_path / "template"
    _, works, backup = rolled_back(template)

    def make(where: Path) -> Project:
        # A copy of one rolled-back workspace: rolling back for every kill would cost more than the kill.
        shutil.copytree(template, where, symlinks=True)
        project = Project(where / "repo", where / "state")
        monkeypatch.setenv("TIERGATE_STATE_DIR", str(project.state_dir))
        return project

    project = make(tmp_path / "full")
    calls = run_killed(restore_args(project, backup), project.root, bin_dir, at=0)
    assert calls > 10
    for k in range(1, calls + 1):
        project = make(tmp_path / f"k{k}")
        run_killed(restore_args(project, backup), project.root, bin_dir, at=k)
        assert_restorable(project, f"killed after git call {k} of {calls}", *works)


@pytest.mark.parametrize("command", ["rollback", "restore"])
def test_killed_between_its_own_file_writes_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    writes = 0
    for n in range(1, 30):
        where = tmp_path / f"w{n}"
        if command == "rollback":
            repo, project, work = setup(where)
            works = [(work, BEFORE_TEST)]
            args = [sys.executable, "-c", ROLLBACK, str(repo), str(project.state_dir)]
        else:
            project, works, backup = rolled_back(where)
            monkeypatch.setenv("TIERGATE_STATE_DIR", str(project.state_dir))
            args = restore_args(project, backup)
        env = {**os.environ, ondisk.KILL_AFTER_WRITES: str(n)}
        proc = subprocess.run(args, cwd=project.root, env=env, capture_output=True, check=False)
        if proc.returncode == 0:
            break  # fewer writes than n: it ran to its end
        assert proc.returncode == -9, proc.stderr
        writes = n
        assert_restorable(project, f"{command} killed after file write {n}", *works)
    assert writes >= 4
