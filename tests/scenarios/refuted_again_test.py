"""A refuted workspace stays refuted, through the real hook entry point in real git repositories: a
claim on the very workspace a verifier failed (or the gate refuted) is refuted at once, with no check
run and no verifier requested; a change earns a new gate run and a new verifier; the fingerprint that
decides "the same workspace" is the same whichever way it is taken."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from testing.gitrepo import git, init_repo, write
from testing.hooksession import HookSession
from testing.valueproject import value_project

from tiergate.tier.change import measure_change
from tiergate.workspace import fingerprint

SESSION = "66666666-2222-3333-4444-555555555555"
CLAIM = "value.txt is right now.\n\n<promise>DONE</promise>"
# Every run of the check leaves a line in runs.log, outside the workspace: the test counts them.
CHECK = """\
echo run >> "$RUNS_LOG"
if grep -qx good value.txt; then echo "test_value ... ok"; exit 0; fi
echo "FAIL: test_value (checks.ValueTest)"
echo "AssertionError: value.txt says $(cat value.txt), expected good"
exit 1
"""


class Loop(HookSession):
    def __init__(self, root: Path, value: str = "bad\n") -> None:
        project = value_project(root, CHECK, value=value)
        super().__init__(root, project, SESSION)
        self.runs = root / "runs.log"
        self.env["RUNS_LOG"] = str(self.runs)

    def start(self) -> None:
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt right")
        assert "loop started" in answer["systemMessage"]

    def stop(self, message: str) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=message)

    def checks_run(self) -> int:
        return len(self.runs.read_text().splitlines()) if self.runs.exists() else 0

    def fail(self, agent_id: str, critique: str) -> dict[str, Any]:
        return self.verifier_fails(agent_id, critique, "cat value.txt", "goodish")


def test_a_claim_on_the_workspace_a_verifier_failed_is_refuted_at_once(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {"value.txt": "good\n", "extra.txt": "a stray line\n"})
    spawn = loop.stop(CLAIM)
    assert "```tiergate-spawn" in spawn["reason"]
    assert loop.checks_run() == 2  # on the claim, and at the base (the loop's baseline)
    loop.fail("a1", "extra.txt is left over and breaks the release")
    assert "Critique: extra.txt is left over" in loop.stop("Looking at the critique.")["reason"]

    again = loop.stop(CLAIM)  # nothing changed

    reason = again["reason"]
    assert again["decision"] == "block"
    assert "tiergate-spawn" not in reason
    assert "nothing has changed since verification v1 (FAIL) refuted this workspace" in reason
    assert "Critique: extra.txt is left over and breaks the release" in reason
    assert loop.checks_run() == 2  # no check ran for it
    assert loop.loop().verifications == 1  # and no verifier was requested
    [record] = [r for r in loop.decisions() if r["decision"] == "refuted-again"]
    assert "gate" not in record

    # The unchanged claim is a stall: the dirty workspace was rolled back to the loop's start, saved first.
    assert "Your changes are saved as backup" in reason
    assert not (loop.project / "extra.txt").exists()

    write(loop.project, {"value.txt": "good\n"})  # a real change: the fix without the stray file
    fresh = loop.stop(CLAIM)
    assert "```tiergate-spawn" in fresh["reason"]
    assert loop.checks_run() == 3  # its own run (the base's is kept)
    assert loop.loop().verifications == 2


def test_claiming_again_and_again_on_a_refuted_workspace_ends_the_loop_and_loses_nothing(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path, value="good\n")
    loop.start()
    write(loop.project, {"value.txt": "worse\n", "scratch.txt": "the loop's untracked work\n"})
    first = loop.stop(CLAIM)
    assert "AssertionError: value.txt says worse, expected good" in first["reason"]
    runs = loop.checks_run()  # the workspace's run and the baseline's

    rolled = loop.stop(CLAIM)  # unchanged: a stall on a dirty workspace rolls back, the work saved first
    assert "nothing has changed since the gate refuted this workspace" in rolled["reason"]
    assert "Your changes are saved as backup" in rolled["reason"]
    assert (loop.project / "value.txt").read_text() == "good\n"
    assert "```tiergate-spawn" in loop.stop(CLAIM)["reason"]  # the loop's start passes the gate
    loop.fail("a1", "nothing of the task was done")
    loop.stop("Reading the critique.")

    answers = [loop.stop(CLAIM) for _ in range(6)]

    decided = [r["decision"] for r in loop.decisions()]
    assert decided[-1] == "halt" and loop.loop().phase == "halted"
    assert decided.count("refuted-again") >= 2
    assert loop.checks_run() == runs + 1  # only the rolled-back workspace was checked, once
    assert loop.loop().verifications == 1
    assert any("given up" in (a.get("systemMessage") or "") for a in answers)
    backups = json.loads(loop.run("backups", "--json").stdout)
    assert backups, "the rolled-back work is kept"
    restored = loop.run("restore", backups[0]["name"])
    assert restored.returncode == 0, restored.stderr
    assert (loop.project / "value.txt").read_text() == "worse\n"
    assert (loop.project / "scratch.txt").read_text() == "the loop's untracked work\n"


def test_the_workspace_fingerprint_is_one_whether_taken_from_git_or_from_a_measured_change(
    tmp_path: Path,
) -> None:
    repo = init_repo(
        tmp_path / "repo",
        {"a.py": "a = 1\n", "b.py": "b = 2\n" * 20, "gone.py": "x = 0\n", "bin/run": "#!/bin/sh\n"},
    )
    base = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"a.py": "a = 2\n", "new dir/c d.py": "c = 3\n", "ünï.py": "u = 1\n"})
    (repo / "gone.py").unlink()
    git(repo, "mv", "b.py", "moved.py")
    git(repo, "add", "a.py")
    git(repo, "commit", "-q", "-m", "part of it")
    (repo / "bin" / "run").chmod(0o755)
    write(repo, {"a.py": "a = 3\n"})  # committed, then changed again on disk

    from_git = fingerprint.fingerprint(repo, base)
    from_change = fingerprint.of_change(measure_change(repo, base))

    assert from_git is not None and from_git == from_change
    write(repo, {"new dir/c d.py": "c = 4\n"})
    assert fingerprint.fingerprint(repo, base) != from_git


def test_a_check_that_timed_out_does_not_bind_the_workspace(tmp_path: Path) -> None:
    loop = Loop(tmp_path, value="good\n")
    slow = 'echo run >> "$RUNS_LOG"; sleep 5\n'
    write(
        loop.project,
        {
            "check.sh": slow,
            ".tiergate.toml": '[checks]\ntests = "sh check.sh"\n[gate]\ntimeout_seconds = 1\n',
        },
    )
    git(loop.project, "commit", "-qam", "a slow check")
    loop.start()

    first = loop.stop(CLAIM)
    assert "timed out" in first["reason"]
    assert loop.loop().refuted == ()
    second = loop.stop(CLAIM)  # nothing changed, but the machine may have been at fault: checked again

    assert "nothing has changed since" not in second["reason"]
    assert "timed out" in second["reason"]
    assert loop.checks_run() == 3  # twice on the claim, once at the base (a configured limit's timeout)


# A check that prints more than a block reason holds: a hundred failures, each with a long message.
LOUD_CHECK = """\
if grep -qx good value.txt; then echo "test_value ... ok"; exit 0; fi
for i in $(seq 1 100); do
  echo "FAIL: test_value_$i (checks.ValueTest)"
  echo "AssertionError: value.txt says $(cat value.txt) in case $i, expected good; long, as real ones are"
done
exit 1
"""
INSTRUCTION = "Fix the new failures, then claim again. `tiergate checks` runs the same checks."


def test_a_refutation_too_long_for_the_reason_loses_quoted_output_never_tiergates_own_words(
    tmp_path: Path,
) -> None:
    """The gate's report and the same refutation given again are cut to fit the block reason: whole
    lines of the failures are left out (and counted), tiergate's instructions stay whole."""
    loop = Loop(tmp_path)
    write(loop.project, {"check.sh": LOUD_CHECK})
    git(loop.project, "commit", "-qam", "a loud check")
    loop.start()
    write(loop.project, {"value.txt": "worse\n"})
    for reason in (loop.stop(CLAIM)["reason"], loop.stop(CLAIM)["reason"]):
        assert INSTRUCTION in reason.splitlines()
        assert "more characters]" not in reason
        left_out = [line for line in reason.splitlines() if line.startswith("  [... ")]
        assert left_out and all(line.endswith("more lines]") for line in left_out)
        assert reason.rstrip().endswith("only its verdict can end the loop.")
