"""SIGKILL at every git call of a restore (`tiergate restore`; the Stop hook's rollback is
`stop_kill_test`'s), and between the files a rollback or a restore writes: the loop's state and the
backups still read, and the work is still restorable byte for byte (issue 10). The git wrapper and the
checks are `testing.killatgit`'s."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from testing.gitrepo import GIT_ENV, git, init_repo, write
from testing.killatgit import BEFORE_RESTORE, BEFORE_TEST, Expected, assert_restorable, kill_env, wrapper
from testing.killwrites import COLD, kill_after_writes
from testing.savedworkspace import tree
from testing.tiergatecli import tiergate

from tiergate.project import Project
from tiergate.workspace import backups, putback, snapshots

ROLLBACK = (
    "import sys; from pathlib import Path; from tiergate.project import Project; "
    "from tiergate.workspace import putback, snapshots; root = Path(sys.argv[1]); "
    "putback.rollback(Project(root, Path(sys.argv[2])), snapshots.workspace_at(root, 'HEAD'), 'the test')"
)


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


def restore_killed(project: Project, backup: backups.Backup, bin_dir: Path, at: int) -> int:
    """`tiergate restore` of `backup`, killed after git call `at` (0: never); the number of git calls it
    made."""
    count = bin_dir.parent / "count"
    count.unlink(missing_ok=True)
    env = {**os.environ, "TIERGATE_STATE_DIR": str(project.state_dir), **kill_env(bin_dir, count, at)}
    proc = tiergate(project.root, "restore", backup.name, environ=env)
    assert proc.returncode == (-9 if at else 0), (at, proc.stderr)
    return int(count.read_text()) if count.exists() else 0


def rolled_back(where: Path) -> tuple[Project, list[Expected], backups.Backup]:
    """A rolled-back workspace with more work done since: what a restore must save first."""
    repo, project, work = setup(where)
    backup = putback.rollback(project, snapshots.workspace_at(repo, "HEAD"), "the test")
    assert backup is not None
    write(repo, {"app.py": "v = 3  # after the rollback\n", "meanwhile.txt": "new since\n"})
    return project, [(tree(repo), BEFORE_RESTORE), (work, BEFORE_TEST)], backup


def copied(template: Path, where: Path) -> Project:
    """A copy of the rolled-back workspace at `template`: rolling back anew for every kill would cost more
    than the kill."""
    shutil.copytree(template, where, symlinks=True)
    return Project(where / "repo", where / "state")


def test_a_restore_killed_at_every_git_call_loses_nothing(tmp_path: Path) -> None:
    bin_dir = wrapper(tmp_path)
    template = tmp_path / "template"
    _, works, backup = rolled_back(template)

    def make(where: Path) -> Project:
        return copied(template, where)

    calls = restore_killed(make(tmp_path / "full"), backup, bin_dir, at=0)
    assert calls > 10
    for k in range(1, calls + 1):
        project = make(tmp_path / f"k{k}")
        restore_killed(project, backup, bin_dir, at=k)
        assert_restorable(project, f"killed after git call {k} of {calls}", *works)


Killed = tuple[Project, list[Expected], subprocess.CompletedProcess[str]]  # and what must be restorable


def rollback_killed(where: Path, env: dict[str, str]) -> Killed:
    repo, project, work = setup(where)
    args = [sys.executable, "-c", ROLLBACK, str(repo), str(project.state_dir)]
    proc = subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True, check=False)
    return project, [(work, BEFORE_TEST)], proc


def restore_killed_from(template: Path) -> Callable[[Path, dict[str, str]], Killed]:
    """Restores, each in a copy of one rolled-back workspace made at `template`."""
    _, works, backup = rolled_back(template)

    def run(where: Path, env: dict[str, str]) -> Killed:
        project = copied(template, where)
        environ = {**env, "TIERGATE_STATE_DIR": str(project.state_dir)}
        return (
            project,
            works,
            tiergate(project.root, "restore", backup.name, environ=environ, python_flags=COLD),
        )

    return run


@pytest.mark.parametrize("command", ["rollback", "restore"])
def test_killed_between_its_own_file_writes_loses_nothing(tmp_path: Path, command: str) -> None:
    run = rollback_killed if command == "rollback" else restore_killed_from(tmp_path / "template")
    writes = 0
    for n in range(1, 30):
        project, works, proc = run(tmp_path / f"w{n}", kill_after_writes(os.environ, n))
        if proc.returncode == 0:
            break  # fewer writes than n: it ran to its end
        assert proc.returncode == -9, proc.stderr
        writes = n
        assert_restorable(project, f"{command} killed after file write {n}", *works)
    assert writes >= 4
