"""SIGKILL at every git call of the Stop hook's rollback, through the real hook entry point: the loop's
state and the backups still read, and the work is still restorable byte for byte (issue 10). The git
wrapper and the checks are `testing.killatgit`'s; a file apart from `backups_kill_test`, so that parallel
workers run the two long kill tests side by side."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, write
from testing.hooksession import HookSession
from testing.killatgit import ROLLED_BACK, assert_restorable, kill_env, wrapper
from testing.savedworkspace import tree
from testing.statefolder import state_dir
from testing.valueproject import CLAIM, Loop

from tiergate.loop import store
from tiergate.project import Project

pytestmark = pytest.mark.long


def test_the_stop_hooks_rollback_killed_at_every_git_call_loses_nothing(tmp_path: Path) -> None:
    """Through the real hook entry point: the claim the gate refuted, made again on the same dirty
    workspace at the attempt limit, rolls back; the hook is killed at each git call from the rollback's
    first look at the working tree on; the loop's state file still parses after each kill."""
    bin_dir = wrapper(tmp_path)
    log = tmp_path / "calls"

    template = tmp_path / "template"
    started = Loop(template, '[checks]\ntests = "sh check.sh"\n\n[interventions]\nattempt_limit = 2\n')
    write(started.project, {"docs/notes.md": "notes\n"})
    commit_all(started.project, "notes")
    started.start()
    # The agent's work: an edit, an untracked file, an empty directory, a symlink, a tracked file it
    # untracked, ignored and edited, and an ignored file elsewhere.
    write(started.project, {"value.txt": "bad\n", "scratch/new.txt": "untracked work\n"})
    (started.project / "empty").mkdir()
    (started.project / "link").symlink_to("value.txt")
    git(started.project, "rm", "-q", "--cached", "docs/notes.md")
    (started.project / ".git" / "info" / "exclude").write_text("docs/notes.md\n*.log\n")
    write(started.project, {"docs/notes.md": "notes, edited by the agent\n", "run.log": "ignored\n"})
    # Refuted once by the gate: the claim that is killed is the same claim again, which is answered from
    # the loop's state, with no check run and nothing measured, before its rollback begins.
    assert "tiergate-spawn" not in started.stop(CLAIM)["reason"]
    assert (started.project / "value.txt").read_text() == "bad\n"

    def make(where: Path) -> tuple[HookSession, dict[str, bytes]]:
        # A copy of the started loop: starting one for every kill would cost more than the kills.
        shutil.copytree(template, where, symlinks=True)
        loop = HookSession(where, where / "project", started.session_id)
        # The loop's state lives outside the project, keyed by its path: the copy gets its own.
        shutil.copytree(
            state_dir(started.project, started.env), state_dir(loop.project, loop.env), symlinks=True
        )
        return loop, tree(loop.project)

    def stop(loop: HookSession, at: int) -> None:
        loop.env.update(kill_env(bin_dir, loop.root / "count", at))
        payload = {
            "session_id": loop.session_id,
            "cwd": str(loop.project),
            "hook_event_name": "Stop",
            "transcript_path": str(loop.root / "session.jsonl"),
            "stop_hook_active": False,
            "last_assistant_message": CLAIM,
        }
        result = loop.run("hook", "Stop", stdin=json.dumps(payload))
        assert result.returncode == (-9 if at else 0), (at, result.stderr)

    loop, work = make(tmp_path / "full")
    loop.env["KILL_LOG"] = str(log)
    stop(loop, 0)
    assert (loop.project / "value.txt").read_text() == "good\n"  # it did roll back
    calls = log.read_text().splitlines()
    first = next(n for n, call in enumerate(calls, 1) if "ls-files -z -s -v" in call)
    for k in range(first, len(calls) + 1):
        loop, work = make(tmp_path / f"k{k}")
        stop(loop, k)
        project = Project(loop.project, state_dir(loop.project, loop.env))
        assert store.read(project, loop.session_id) is not None, k  # the loop's state still parses
        assert_restorable(project, f"Stop killed after git call {k} of {len(calls)}", (work, ROLLED_BACK))
