"""The gate and the interventions inside a loop, through the real hook entry point in real git
repositories: a claim the checks refute, a rollback to the last green point that loses nothing (the
user's work from before the loop and the loop's own untracked files included), a halt with its alert,
and a passing claim whose check results reach the verifier and whose workspace becomes green."""

from __future__ import annotations

import json
from pathlib import Path

from testing.gitrepo import git, write
from testing.hooksession import verifier_transcript
from testing.statefolder import state_dir
from testing.valueproject import CLAIM, SESSION, Loop


def test_a_refuted_claim_at_the_limit_rolls_back_to_the_green_point_without_losing_anything(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path, '[checks]\ntests = "sh check.sh"\n\n[interventions]\nattempt_limit = 1\n')
    write(loop.project, {"notes.txt": "the user's own notes, from before the loop\n"})
    loop.start()
    write(loop.project, {"value.txt": "bad\n", "scratch/new.txt": "the loop's untracked work\n"})

    answer = loop.stop(CLAIM)

    reason = answer["reason"]
    assert answer["decision"] == "block"
    assert "tiergate-spawn" not in reason and "no verifier was spawned" in reason
    assert "AssertionError: value.txt says bad, expected good" in reason
    # Rolled back to the green point the loop's start marked: the user's notes stay, the loop's work goes.
    assert (loop.project / "value.txt").read_text() == "good\n"
    assert not (loop.project / "scratch").exists()
    assert (loop.project / "notes.txt").read_text() == "the user's own notes, from before the loop\n"
    [backup] = json.loads(loop.run("backups", "--json").stdout)
    assert f"saved as backup {backup['name']}" in reason
    assert f"tiergate restore {backup['name']}" in reason
    assert loop.loop().approach == 2 and [a.by for a in loop.loop().attempts] == ["gate"]
    [record] = [r for r in loop.decisions() if r["decision"] == "gate-refuted"]
    assert record["intervention"] == "rollback-then-change-approach"
    assert record["rollback"]["backup"] == backup["name"]
    assert record["rollback"]["backup_ref"] == f"refs/backups/{backup['name']}"
    assert record["gate"]["refuted"] is True
    assert [c["name"] for c in record["gate"]["checks"]] == ["tests"]

    # Nothing was lost: the backup brings the loop's work back, untracked file included.
    restored = loop.run("restore", backup["name"])
    assert restored.returncode == 0, restored.stderr
    assert (loop.project / "value.txt").read_text() == "bad\n"
    assert (loop.project / "scratch/new.txt").read_text() == "the loop's untracked work\n"
    assert (loop.project / "notes.txt").is_file()


def test_the_skip_limit_halts_the_loop_and_tells_the_user_everywhere(tmp_path: Path) -> None:
    alert = tmp_path / "alert.txt"
    config = (
        '[checks]\ntests = "sh check.sh"\n\n[interventions]\nattempt_limit = 1\nskip_limit = 1\n\n'
        f"[alerts]\ncommand = {json.dumps(f'cat > {alert}')}\n"
    )
    loop = Loop(tmp_path, config)
    loop.start()
    write(loop.project, {"value.txt": "bad\n"})

    answer = loop.stop(CLAIM)

    assert "decision" not in answer  # a halted loop lets the stop through
    assert "loop halted: skip-limit: 1 item given up" in answer["systemMessage"]
    assert loop.loop().phase == "halted"
    assert "skip-limit" in alert.read_text()
    status = json.loads(loop.run("status", "--json").stdout)
    assert status[0]["phase"] == "halted" and "skip-limit" in status[0]["end_reason"]
    assert "skip-limit" in loop.run("status").stdout
    [record] = [r for r in loop.decisions() if r["decision"] == "halt"]
    assert record["halt_reason"].startswith("skip-limit")
    assert record["alert"].endswith(": exit 0")
    assert (loop.project / "value.txt").read_text() == "bad\n"  # a halt leaves the workspace as it is
    assert loop.stop("anything").get("decision") is None


def test_a_claim_the_checks_pass_reaches_a_verifier_with_the_results_and_its_pass_marks_green(
    tmp_path: Path,
) -> None:
    fixed = "good\n"
    loop = Loop(tmp_path, '[checks]\ntests = "sh check.sh"\n')
    write(loop.project, {"value.txt": "bad\n"})
    git(loop.project, "commit", "-qam", "value.txt broken before the loop")
    loop.start()
    write(loop.project, {"value.txt": fixed})

    block = loop.stop(CLAIM)["reason"]
    assert "```tiergate-spawn" in block
    agent = loop.loop().verification
    assert agent is not None
    packet = loop.hook("SubagentStart", agent_id="a1", agent_type=agent.agent)
    context = packet["hookSpecificOutput"]["additionalContext"]
    assert "CHECKS tiergate ran on this exact workspace" in context
    assert "- tests (`sh check.sh`, tests): passed in" in context
    labels = list(agent.evidence)
    criteria = [
        {"criterion": label, "status": "VERIFIED", "evidence": "$ sh check.sh -> ok"} for label in labels
    ]
    verdict = json.dumps({"verdict": "PASS", "criteria": criteria, "critique": ""})
    passed = loop.hook(
        "SubagentStop",
        agent_id="a1",
        agent_type=agent.agent,
        agent_transcript_path=str(
            verifier_transcript(tmp_path / "agent-a1.jsonl", "sh check.sh", "test_value ... ok")
        ),
        last_assistant_message=f"I ran the check.\n\n```tiergate-verdict\n{verdict}\n```",
    )
    assert "returned PASS" in passed["systemMessage"]
    assert "loop finished" in loop.stop("Done.")["systemMessage"]
    store = state_dir(loop.project, loop.env) / "backups.git"
    green = git(store, f"--git-dir={store}", "rev-parse", f"refs/green/{SESSION}").strip()
    assert git(store, f"--git-dir={store}", "show", f"{green}:files/value.txt") == fixed
    [record] = [r for r in loop.decisions() if r["decision"] == "finalize"]
    assert record["green"] == green
