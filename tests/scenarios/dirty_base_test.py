"""A loop started on a dirty tree (issue 13): the user's own uncommitted edits and untracked files, from
before the loop, are not the loop's change. Through the real hook entry point and the real CLI, in real
git repositories: the claim's tier and packet, the gate's baseline, `tiergate tier` and `tiergate checks`,
a rollback, a loop started from a shell and an adopted ralph-loop, and a clean start as before."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from testing.gitrepo import git, write
from testing.hooksession import HookSession
from testing.valueproject import value_project

SESSION = "12121212-3434-5656-7878-909090909090"
CLAIM = "value.txt is right now.\n\n<promise>DONE</promise>"
CHECK = """\
if grep -qx good value.txt; then echo "test_value ... ok"; exit 0; fi
echo "FAIL: test_value (checks.ValueTest)"
exit 1
"""
# A check that names the value, so that a worse one is a new failure, not the same one as at the start.
NAMING_CHECK = """\
grep -qx good value.txt && exit 0
echo "AssertionError: value.txt says $(cat value.txt)"
exit 1
"""
# A second check, which the user's own edit of the security file breaks before the loop begins.
LINT = """\
if grep -q TODO auth/session.py; then echo "lint: auth/session.py:2: TODO left in"; exit 1; fi
echo "lint ok"
"""
CONFIG = '[checks]\ntests = "sh check.sh"\n'
USERS = {
    "auth/session.py": "def open_session():\n    return None  # TODO: the user's unfinished edit\n",
    "notes.txt": "the user's own notes, untracked\n",
}


class Loop(HookSession):
    def __init__(self, root: Path, config: str = CONFIG, check: str = CHECK) -> None:
        project = value_project(root, check, config=config, value="bad\n")
        write(project, {"auth/session.py": "def open_session():\n    return None\n", "lint.sh": LINT})
        git(project, "add", "-A")
        git(project, "commit", "-qm", "a security file and a lint check")
        super().__init__(root, project, SESSION)

    def start(self) -> dict[str, Any]:
        return self.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt good --max-iterations 6")

    def stop(self, message: str) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=message)

    def tier(self, *args: str) -> str:
        done = self.run("tier", *args)
        assert done.returncode == 0, done.stderr
        return done.stdout


def test_the_users_edits_from_before_the_loop_are_not_its_change_and_a_security_file_lifts_no_tier(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path)
    write(loop.project, USERS)  # the user's edit of a security file, and an untracked file
    started = loop.start()
    assert "uncommitted and untracked changes included, as its base" in started["systemMessage"]
    assert loop.loop().start is not None
    [begun] = [r for r in loop.decisions() if r["decision"] == "start"]
    assert f"(start {loop.loop().start})" in begun["reasons"][0]
    assert "0 files, 0 lines since the loop began" in loop.tier()
    write(loop.project, {"value.txt": "good\n"})  # the loop's own work

    block = loop.stop(CLAIM)["reason"]

    assert "```tiergate-spawn" in block
    verification = loop.loop().verification
    assert verification is not None
    assert (verification.files_changed, verification.paths) == (1, ("value.txt",))
    assert verification.tier != "THOROUGH", verification.reasons
    assert not any("auth/session.py" in reason for reason in verification.reasons)
    packet = loop.hook("SubagentStart", agent_id="a1", agent_type=verification.agent)
    context = packet["hookSpecificOutput"]["additionalContext"]
    assert f"CHANGE since the loop began (the workspace it began on, {loop.loop().start}" in context
    assert "- M value.txt" in context and "auth/session.py" not in context and "notes.txt" not in context
    # The verifier's own `git diff <start>` finds the start in the repository.
    start = str(loop.loop().start)
    assert git(loop.project, "diff", "--name-only", start, "--", "value.txt") == "value.txt\n"


def test_an_edit_of_the_users_file_during_the_loop_is_the_loops_change(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    write(loop.project, USERS)
    loop.start()
    write(loop.project, {"value.txt": "good\n", "notes.txt": "the loop changed the notes\n"})

    loop.stop(CLAIM)

    verification = loop.loop().verification
    assert verification is not None
    assert sorted(verification.paths) == ["notes.txt", "value.txt"]
    # Touching the user's security file is the loop's doing, and lifts the tier.
    write(loop.project, {"auth/session.py": "def open_session():\n    return 'everyone'\n"})
    assert loop.tier("--json").count('"auth/session.py"') == 1
    assert "THOROUGH" in loop.tier()


def test_a_check_the_users_own_edit_broke_before_the_loop_is_a_pre_existing_failure(tmp_path: Path) -> None:
    loop = Loop(tmp_path, CONFIG + 'lint = "sh lint.sh"\n')
    write(loop.project, USERS)  # lint fails from here on, before the loop
    loop.start()
    write(loop.project, {"value.txt": "good\n"})

    answer = loop.stop(CLAIM)

    # The baseline is the workspace the loop began on: lint failed there the same way, so it is not new.
    assert "```tiergate-spawn" in answer["reason"], answer["reason"]
    [record] = [r for r in loop.decisions() if r.get("gate")]
    assert record["gate"]["refuted"] is False
    checks = loop.run("checks")
    assert "compared with the workspace as it was when the loop began" in checks.stdout


def test_a_rollback_brings_back_exactly_the_users_workspace(tmp_path: Path) -> None:
    check = NAMING_CHECK
    loop = Loop(tmp_path, CONFIG + "\n[interventions]\nattempt_limit = 1\n", check)
    write(loop.project, {**USERS, "check.sh": check + "# the user's staged comment\n"})
    git(loop.project, "add", "check.sh")
    loop.start()
    write(loop.project, {"value.txt": "worse\n", "auth/session.py": "broken(\n", "scratch.txt": "loop\n"})

    answer = loop.stop(CLAIM)

    assert answer["decision"] == "block" and "rolled the workspace back" in answer["reason"], answer["reason"]
    for path, text in USERS.items():
        assert (loop.project / path).read_text() == text
    assert not (loop.project / "scratch.txt").exists()
    assert (loop.project / "value.txt").read_text() == "bad\n"
    assert git(loop.project, "diff", "--cached", "--name-only") == "check.sh\n"  # staged as it was
    assert "0 files, 0 lines since the loop began" in loop.tier()


def test_a_loop_started_from_a_shell_on_a_dirty_tree_says_so_and_keeps_that_base(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    write(loop.project, USERS)
    started = loop.run("ralph", "start", "make value.txt good")
    assert started.returncode == 0, started.stderr
    [line] = [s for s in started.stdout.splitlines() if "uncommitted" in s]
    assert line.startswith("tiergate: took the workspace, its uncommitted and untracked changes included,")
    assert "0 files, 0 lines since the loop began" in loop.tier()
    assert loop.hook("SessionStart", source="startup") is not None
    start = loop.loop().start
    assert start is not None and start[:12] in line
    [entry] = json.loads(loop.run("status", "--json").stdout)
    assert (entry["base"], entry["start"]) == (git(loop.project, "rev-parse", "HEAD").strip(), start)
    loop.settle()  # the loop's baseline, begun at its start, holds the start in a worktree while it runs
    # Something prunes the start's objects from the repository: they come back from the backup store.
    git(loop.project, "reflog", "expire", "--expire=now", "--all")
    git(loop.project, "gc", "-q", "--prune=now")
    gone = subprocess.run(["git", "cat-file", "-e", start], cwd=loop.project, check=False)
    assert gone.returncode != 0
    write(loop.project, {"value.txt": "good\n"})

    loop.stop(CLAIM)

    verification = loop.loop().verification
    assert verification is not None and verification.paths == ("value.txt",)
    assert verification.tier != "THOROUGH"


def test_an_adopted_ralph_loop_on_a_dirty_tree_measures_from_where_it_began(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    write(loop.project, USERS)
    started = loop.hook(
        "UserPromptSubmit", prompt="/ralph-loop:ralph-loop 'fix value.txt' --completion-promise DONE"
    )
    assert "verifying ralph-loop's completion claim" in started["systemMessage"]
    assert loop.loop().adopted == "ralph-loop" and loop.loop().start is not None
    write(loop.project, {"value.txt": "good\n"})

    loop.stop(CLAIM)

    verification = loop.loop().verification
    assert verification is not None and verification.paths == ("value.txt",)
    assert verification.tier != "THOROUGH"


def test_a_clean_start_measures_from_its_commit_as_before(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    started = loop.run("ralph", "start", "make value.txt good")
    assert "uncommitted" not in started.stdout
    bound = loop.hook("SessionStart", source="startup")
    assert loop.loop().start is None and "uncommitted" not in str(bound)
    write(loop.project, {"value.txt": "good\n", "auth/session.py": "def open_session():\n    return 1\n"})

    loop.stop(CLAIM)

    verification = loop.loop().verification
    assert verification is not None
    assert sorted(verification.paths) == ["auth/session.py", "value.txt"]
    assert verification.tier == "THOROUGH"
