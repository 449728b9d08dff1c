"""The red team's rollbacks through the real hook entry point (issue 10): the Stop hook's rollback keeps
its backup out of the repository's refs, so that `git push --mirror` does not publish an untracked
secret, and saves the ignored files it replaces."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from testing.gitrepo import git, write
from testing.valueproject import CLAIM, Loop

CONFIG = '[checks]\ntests = "sh check.sh"\n\n[interventions]\nattempt_limit = 1\n'
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_a_rollbacks_backup_is_not_published_by_a_mirror_push(tmp_path: Path) -> None:
    loop = Loop(tmp_path, CONFIG)
    loop.start()
    write(loop.project, {"value.txt": "bad\n", "credentials.json": f'{{"token": "{SECRET}"}}\n'})

    answer = loop.stop(CLAIM)

    assert answer["decision"] == "block"
    assert not (loop.project / "credentials.json").exists()  # rolled back
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(loop.project, "push", "-q", "--mirror", str(remote))
    assert "tiergate" not in git(remote, "for-each-ref", "--format=%(refname)")
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=remote, capture_output=True, check=True
    ).stdout
    assert SECRET.encode() not in objects
    [backup] = json.loads(loop.run("backups", "--json").stdout)
    assert loop.run("restore", backup["name"]).returncode == 0
    assert SECRET in (loop.project / "credentials.json").read_text()


def test_a_tracked_file_the_agent_untracked_and_ignored_comes_back_and_its_edit_is_saved(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path, CONFIG)
    loop.start()
    git(loop.project, "rm", "-q", "--cached", "check.sh")
    write(loop.project, {".gitignore": ".tiergate/\ncheck.sh\n", "value.txt": "bad\n"})
    edited = (loop.project / "check.sh").read_text() + "# the agent's edit\n"
    write(loop.project, {"check.sh": edited})

    assert loop.stop(CLAIM)["decision"] == "block"

    assert "# the agent's edit" not in (loop.project / "check.sh").read_text()
    assert git(loop.project, "ls-files", "check.sh").strip() == "check.sh"
    [backup] = json.loads(loop.run("backups", "--json").stdout)
    assert loop.run("restore", backup["name"]).returncode == 0
    assert (loop.project / "check.sh").read_text() == edited


def test_a_rollback_leaves_another_tools_state_where_it_is(tmp_path: Path) -> None:
    # OMC and ralph-loop keep their state in the project while the loop runs: a rollback undoes the loop's
    # work, not theirs (OMC would lose its session tracking, ralph-loop its loop).
    loop = Loop(tmp_path, CONFIG)
    loop.start()
    tools = {
        ".omc/state/sessions/s1/ralph-state.json": '{"active": true}\n',
        ".claude/ralph-loop.local.md": "---\nactive: true\niteration: 3\n---\n\nfix it\n",
    }
    write(loop.project, {"value.txt": "bad\n", "scratch.txt": "the agent's\n", **tools})

    assert loop.stop(CLAIM)["decision"] == "block"

    assert not (loop.project / "scratch.txt").exists()  # rolled back: the loop's own untracked file
    assert (loop.project / "value.txt").read_text() != "bad\n"
    for path, text in tools.items():
        assert (loop.project / path).read_text() == text, path


def files_and_dirs(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and directory (None) of the work tree but .git."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/"):
            continue
        found[rel] = None if path.is_dir() and not path.is_symlink() else path.read_bytes()
    return found


def test_the_stop_hooks_rollback_then_restore_give_back_the_workspace_exactly(tmp_path: Path) -> None:
    # The red team's rollbacks, together, through the real hook: files nobody touched under eol=crlf, an
    # ignored file where a tracked file comes back, an empty directory, a skip-worktree edit.
    loop = Loop(tmp_path, CONFIG)
    write(
        loop.project, {".gitattributes": "*.txt text eol=crlf\n", "notes.txt": "one\ntwo\n", "data": "kept\n"}
    )
    git(loop.project, "add", "-A")
    git(loop.project, "commit", "-q", "-m", "crlf notes and data")
    (loop.project / "notes.txt").unlink()
    git(loop.project, "checkout", "--", "notes.txt")
    crlf = (loop.project / "notes.txt").read_bytes()
    assert crlf == b"one\r\ntwo\r\n"
    loop.start()
    git(loop.project, "rm", "-q", "data")
    (loop.project / ".git" / "info" / "exclude").write_text("data\n")
    write(loop.project, {"data": "the agent's ignored file\n", "value.txt": "bad\n"})
    (loop.project / "empty" / "nested").mkdir(parents=True)
    git(loop.project, "update-index", "--skip-worktree", "check.sh")
    write(loop.project, {"check.sh": (loop.project / "check.sh").read_text() + "# skipped edit\n"})
    before = files_and_dirs(loop.project)

    assert loop.stop(CLAIM)["decision"] == "block"

    assert (loop.project / "notes.txt").read_bytes() == crlf  # untouched bytes stay as they were
    assert (loop.project / "data").read_text() == "kept\n"
    assert "# skipped edit" not in (loop.project / "check.sh").read_text()
    [backup] = json.loads(loop.run("backups", "--json").stdout)
    assert loop.run("restore", backup["name"]).returncode == 0
    after = files_and_dirs(loop.project)
    assert after == before, sorted(set(after.items()) ^ set(before.items()))


def test_a_loop_started_from_a_shell_rolls_back_to_the_workspace_at_its_start(tmp_path: Path) -> None:
    """`tiergate ralph start` is where the user began the loop: what changes before the session takes it
    up is not the green point, and a rollback takes it away (the user's edits from before the start stay)."""
    loop = Loop(tmp_path, CONFIG)
    write(loop.project, {"notes.txt": "the user's own notes, from before the loop\n"})
    started = loop.run("ralph", "start", "make value.txt right")
    assert started.returncode == 0, started.stderr
    write(loop.project, {"value.txt": "bad\n"})  # after the start, before the session's first hook

    assert loop.hook("UserPromptSubmit", prompt="go on with the loop")  # the session takes the loop up
    answer = loop.stop(CLAIM)

    assert answer["decision"] == "block"
    assert "rolled the workspace back" in answer["reason"]
    assert (loop.project / "value.txt").read_text() == "good\n"
    assert (loop.project / "notes.txt").read_text() == "the user's own notes, from before the loop\n"


def test_a_clean_shell_start_is_its_own_green_point_whatever_changes_before_the_first_hook(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path, CONFIG)
    started = loop.run("ralph", "start", "make value.txt right")
    assert started.returncode == 0, started.stderr
    write(loop.project, {"value.txt": "bad\n", "scratch.txt": "made before the first hook\n"})

    answer = loop.stop(CLAIM)  # the session's first hook: it takes the loop up, and the claim is refuted

    assert answer["decision"] == "block"
    assert (loop.project / "value.txt").read_text() == "good\n"
    assert not (loop.project / "scratch.txt").exists()
