"""The user's own loop adopted (issue 11), through the real hook entry point in real git repositories:
ralph-loop (its state file written by the stand-in's real setup script, deleted at its promise as ralph-loop
does) and oh-my-claudecode's ralph mode (its state and its `state_clear` call in the transcript)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from testing.claude.neighbours import RALPH_LOOP_PLUGIN, RALPH_LOOP_STATE
from testing.gitrepo import write
from testing.hooksession import HookSession
from testing.valueproject import value_project

SESSION = "77777777-2222-3333-4444-555555555555"
OTHER = "88888888-2222-3333-4444-555555555555"
TASK = "fix value.txt"
BROKEN = {"value.txt": "bad\n"}  # what the model's first try leaves: the check that passed at the start fails
FIXED = {"value.txt": "good and better\n"}
CHECK = """\
if grep -q good value.txt; then echo "test_value ... ok"; exit 0; fi
echo "FAIL: test_value (checks.ValueTest)"
exit 1
"""
STATE_CLEAR = "mcp__plugin_oh-my-claudecode_t__state_clear"


class Session(HookSession):
    def __init__(self, root: Path, config: str = "") -> None:
        project = value_project(
            root, CHECK, config='[checks]\ntests = "sh check.sh"\n' + config, gitignore=False
        )
        super().__init__(root, project, SESSION)

    def first_try(self) -> None:
        """The model's first try, after the loop began (a workspace dirty before the loop is its base)."""
        write(self.project, BROKEN)

    def ralph_loop(self, *args: str, session_id: str = SESSION) -> None:
        """ralph-loop's setup, as its command runs it after UserPromptSubmit: the state file appears."""
        script = RALPH_LOOP_PLUGIN / "scripts" / "ralph_loop_start.py"
        env = {**os.environ, "CLAUDE_CODE_SESSION_ID": session_id}
        done = subprocess.run(
            [sys.executable, str(script), *args], cwd=self.project, env=env, capture_output=True, check=False
        )
        assert done.returncode == 0, done.stderr

    def ralph_loop_keeps_promise(self) -> None:
        """ralph-loop's Stop saw its promise: it deletes its file (possibly before tiergate's Stop looks)."""
        (self.project / RALPH_LOOP_STATE).unlink()

    def stop(self, message: str, **fields: Any) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=message, **fields)

    def decided(self) -> list[str]:
        return [r["decision"] for r in self.decisions()]


RALPH_COMMAND = f"/ralph-loop:ralph-loop '{TASK}' --completion-promise DONE --max-iterations 6"


def test_a_false_promise_under_a_users_ralph_loop_is_refuted_then_the_fix_is_verified(tmp_path: Path) -> None:
    s = Session(tmp_path)
    started = s.hook("UserPromptSubmit", prompt=RALPH_COMMAND)
    assert "verifying ralph-loop's completion claim" in started["systemMessage"]
    assert "<promise>DONE</promise>" in started["hookSpecificOutput"]["additionalContext"]
    loop = s.loop()
    assert (loop.adopted, loop.task, loop.promise, loop.max_iterations) == ("ralph-loop", TASK, "DONE", 6)
    s.ralph_loop(TASK, "--completion-promise", "DONE", "--max-iterations", "6")

    # ralph-loop sends the model back itself: tiergate counts the stop and does not block it.
    assert s.stop("Looked at it.") == {}
    assert s.loop().iteration == 2
    # The false promise: ralph-loop deletes its file and lets go; tiergate's gate refutes the claim.
    s.ralph_loop_keeps_promise()
    s.first_try()
    refuted = s.stop("All fixed.\n<promise>DONE</promise>")
    assert refuted["decision"] == "block"
    assert "FAIL: test_value" in refuted["reason"]
    # ralph-loop is gone, tiergate's loop goes on: a stop without a claim is blocked now.
    assert s.stop("Let me think.")["decision"] == "block"
    write(s.project, FIXED)
    spawn = s.stop("Fixed.\n<promise>DONE</promise>")
    assert "```tiergate-spawn" in spawn["reason"]
    passed = s.verifier_says("a1", "PASS", "sh check.sh", "test_value ... ok")
    assert "returned PASS" in passed["systemMessage"]
    assert "loop finished" in s.stop("Done.")["systemMessage"]
    assert not s.loop().active
    decided = s.decided()
    assert decided[0] == "adopt"
    assert "adopted-continues" in decided
    assert decided[-1] == "finalize"


def test_ralph_loops_bare_promise_is_a_claim_too(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.hook("UserPromptSubmit", prompt=RALPH_COMMAND)
    s.ralph_loop(TASK, "--completion-promise", "DONE")
    s.ralph_loop_keeps_promise()

    s.first_try()
    refuted = s.stop("  DONE \n")

    assert "FAIL: test_value" in refuted["reason"]


def test_a_promise_ralph_loop_reads_in_the_last_text_block_alone_is_a_claim(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.hook("UserPromptSubmit", prompt=RALPH_COMMAND)
    s.ralph_loop(TASK, "--completion-promise", "DONE")
    # Two text blocks: the joined message's first tag is another one, but ralph-loop reads the last block.
    blocks = ["Not <promise>YET</promise>.", "<promise>DONE</promise>"]
    records = [
        {
            "type": "assistant",
            "message": {"id": "m", "role": "assistant", "content": [{"type": "text", "text": b}]},
        }
        for b in blocks
    ]
    transcript = tmp_path / "blocks.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records))
    s.ralph_loop_keeps_promise()

    s.first_try()
    refuted = s.stop("\n".join(blocks), transcript_path=str(transcript))

    assert "FAIL: test_value" in refuted["reason"]


def test_with_interop_ignore_a_ralph_loop_is_left_alone(tmp_path: Path) -> None:
    s = Session(tmp_path, '[interop]\nralph_loop = "ignore"\n')
    assert s.hook("UserPromptSubmit", prompt=RALPH_COMMAND) == {}
    s.ralph_loop(TASK, "--completion-promise", "DONE")
    s.ralph_loop_keeps_promise()

    assert s.stop("All fixed.\n<promise>DONE</promise>") == {}
    [record] = s.decisions()
    assert record["decision"] == "not-adopted"
    assert '[interop] ralph_loop is "ignore"' in record["reasons"][0]


def test_a_ralph_loop_is_adopted_from_its_state_file_at_a_stop(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.ralph_loop(TASK, "--completion-promise", "DONE", "--max-iterations", "3")

    assert s.stop("Working.") == {}

    loop = s.loop()
    assert (loop.adopted, loop.task, loop.max_iterations, loop.iteration) == ("ralph-loop", TASK, 3, 2)
    s.ralph_loop_keeps_promise()
    s.first_try()
    assert "FAIL: test_value" in s.stop("<promise>DONE</promise>")["reason"]


def test_a_ralph_loop_running_when_the_session_resumes_is_adopted_at_session_start(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.ralph_loop(TASK, "--completion-promise", "DONE")

    started = s.hook("SessionStart", source="resume")

    assert (
        "tiergate verifies the completion of this ralph-loop loop"
        in (started["hookSpecificOutput"]["additionalContext"])
    )
    assert (s.loop().adopted, s.decided()) == ("ralph-loop", ["adopt"])


def test_a_ralph_loop_without_a_promise_or_of_another_session_is_not_adopted(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.ralph_loop(TASK)
    assert s.stop("Working.") == {}
    [record] = s.decisions()
    assert "no --completion-promise, so no claim of it can be verified" in record["reasons"][0]
    (s.project / RALPH_LOOP_STATE).unlink()
    s.ralph_loop(TASK, "--completion-promise", "DONE", session_id=OTHER)
    assert s.stop("Working.") == {}
    assert len(s.decisions()) == 1


def test_a_bad_ralph_loop_command_is_not_adopted_and_says_why(tmp_path: Path) -> None:
    s = Session(tmp_path)
    assert s.hook("UserPromptSubmit", prompt="/ralph-loop:ralph-loop task --max-iterations five") == {}
    [record] = s.decisions()
    assert record["reasons"] == ["not-adopted: ralph-loop: --max-iterations needs a whole number, got 'five'"]


def test_a_ralph_loop_that_lets_go_without_a_claim_ends_the_adopted_loop(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.hook("UserPromptSubmit", prompt=RALPH_COMMAND)
    s.ralph_loop(TASK, "--completion-promise", "DONE")
    assert s.stop("Working.") == {}
    (s.project / RALPH_LOOP_STATE).unlink()  # /cancel-ralph

    assert s.stop("Cancelled.") == {}

    loop = s.loop()
    assert (loop.active, loop.end_reason) == (
        False,
        "ralph-loop let go without a completion claim (its state file is gone)",
    )


def test_a_ralph_loop_at_its_limit_lets_go_at_that_stop(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.hook(
        "UserPromptSubmit", prompt="/ralph-loop:ralph-loop task --completion-promise DONE --max-iterations 1"
    )
    s.ralph_loop("task", "--completion-promise", "DONE", "--max-iterations", "1")

    assert s.stop("Working.") == {}

    assert s.loop().end_reason == (
        "ralph-loop let go without a completion claim (ralph-loop reached its limit of 1 iteration)"
    )


def test_a_tiergate_loop_keeps_its_own_rules_beside_a_ralph_loop(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.hook("UserPromptSubmit", prompt=f"/tiergate:ralph {TASK}")

    s.hook("UserPromptSubmit", prompt=RALPH_COMMAND)

    assert s.loop().adopted is None
    declined, prompt = s.decisions()[-2:]
    assert "runs a tiergate loop of its own" in declined["reasons"][0]
    assert prompt["decision"] == "user-prompt"  # and the prompt reached the loop as any other


# oh-my-claudecode -----------------------------------------------------------------------------------------


def omc_transcript(path: Path, calls: list[dict[str, Any]], text: str) -> Path:
    """A transcript whose last turn made these tool calls, then said `text`."""
    lines: list[dict[str, Any]] = [{"type": "user", "message": {"role": "user", "content": "ralph: go"}}]
    for n, call in enumerate(calls):
        use = {"type": "tool_use", "id": f"t{n}", **call}
        lines.append({"type": "assistant", "message": {"id": f"m{n}", "role": "assistant", "content": [use]}})
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}
        lines.append({"type": "user", "message": {"role": "user", "content": [result]}})
    said = {"type": "text", "text": text}
    lines.append({"type": "assistant", "message": {"id": "end", "role": "assistant", "content": [said]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_an_omc_ralph_whose_model_clears_its_state_is_refuted_then_verified(tmp_path: Path) -> None:
    s = Session(tmp_path)
    started = s.hook("UserPromptSubmit", prompt=f"/oh-my-claudecode:ralph {TASK}")
    assert "clear OMC's ralph state" in started["hookSpecificOutput"]["additionalContext"]
    assert s.loop().adopted == "omc-ralph"
    clear = {"name": STATE_CLEAR, "input": {"mode": "ralph", "session_id": SESSION}}
    nothing = omc_transcript(
        tmp_path / "t0.jsonl", [{"name": "Bash", "input": {"command": "ls"}}], "Working."
    )
    # OMC's state is not there (never confirmed): the adopted loop has nothing to wait for, and ends...
    # unless a claim was judged. So the model clears its state at its first stop here.
    cleared = omc_transcript(tmp_path / "t1.jsonl", [clear], "Ralph is complete.")

    s.first_try()
    refuted = s.stop("Ralph is complete.", transcript_path=str(cleared))
    assert "FAIL: test_value" in refuted["reason"]
    assert s.stop("Thinking.", transcript_path=str(nothing))["decision"] == "block"
    write(s.project, FIXED)
    # tiergate's texts ask for its promise: after OMC let go, that is a claim of the adopted loop too.
    spawn = s.stop("Fixed.\n<promise>DONE</promise>", transcript_path=str(nothing))
    assert "```tiergate-spawn" in spawn["reason"]
    s.verifier_says("a1", "PASS", "sh check.sh", "test_value ... ok")
    assert "loop finished" in s.stop("Done.", transcript_path=str(nothing))["systemMessage"]


def omc_state(s: Session, mode: str, **fields: Any) -> Path:
    folder = s.project / ".omc" / "state" / "sessions" / SESSION
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{mode}-state.json"
    data = {"active": True, "session_id": SESSION, "project_path": str(s.project), "prompt": f"ralph {TASK}"}
    path.write_text(json.dumps({**data, "started_at": "2026-12-01T10:00:00.000Z", **fields}))
    return path


def test_an_omc_mode_is_adopted_from_its_confirmed_state_and_counted_while_it_runs(tmp_path: Path) -> None:
    s = Session(tmp_path)
    asked = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    state = omc_state(s, "ralph", awaiting_confirmation=True, awaiting_confirmation_set_at=asked)
    assert s.stop("Working.") == {}
    assert "waiting for the mode to be confirmed" in s.decisions()[-1]["reasons"][0]
    omc_state(s, "ralph")  # the Skill call confirmed it

    assert s.stop("Working.") == {}
    assert (s.loop().adopted, s.loop().task, s.loop().iteration) == ("omc-ralph", f"ralph {TASK}", 2)
    # A Bash fallback cancel: the state gone with a fresh cancel signal is the claim.
    state.unlink()
    (state.parent / "cancel-signal-state.json").write_text("{}")
    s.first_try()
    assert "FAIL: test_value" in s.stop("Done.")["reason"]


def test_the_users_omc_cancel_ends_the_adopted_loop(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.hook("UserPromptSubmit", prompt=f"/oh-my-claudecode:autopilot {TASK}")

    answer = s.hook("UserPromptSubmit", prompt="/oh-my-claudecode:cancel")

    assert "ends with /oh-my-claudecode:cancel" in answer["systemMessage"]
    assert (s.loop().phase, s.loop().end_reason) == ("cancelled", "cancelled by /oh-my-claudecode:cancel")


# What status and doctor show -------------------------------------------------------------------------------


def install_neighbours(s: Session) -> None:
    """ralph-loop and OMC installed in the session's Claude Code, OMC enabled, ralph-loop disabled."""
    plugins = s.root / "home" / ".claude" / "plugins"
    plugins.mkdir(parents=True)
    records = {"ralph-loop@official": [{"version": "1.0.0"}], "oh-my-claudecode@omc": [{"version": "5.5.0"}]}
    (plugins / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": records}))
    enabled = {"enabledPlugins": {"oh-my-claudecode@omc": True, "ralph-loop@official": False}}
    (s.root / "home" / ".claude" / "settings.json").write_text(json.dumps(enabled))


def test_status_and_doctor_show_the_other_loop_plugins_their_loops_and_what_was_adopted(
    tmp_path: Path,
) -> None:
    s = Session(tmp_path, '[interop]\nomc = "ignore"\n')
    install_neighbours(s)
    s.hook("UserPromptSubmit", prompt=RALPH_COMMAND)
    s.ralph_loop("another task")  # no promise: a loop nobody can verify

    status = s.run("status").stdout.splitlines()
    doctor = s.run("doctor").stdout

    assert "adopted from ralph-loop" in status[0]
    assert (
        "other loops: ralph-loop: installed (ralph-loop@official 1.0.0, disabled); "
        "[interop] ralph_loop = verify" in status
    )
    assert (
        "other loops: oh-my-claudecode: installed (oh-my-claudecode@omc 5.5.0, enabled); "
        "[interop] omc = ignore" in status
    )
    assert any("not adopted: it has no --completion-promise" in line for line in status), status
    assert json.loads(s.run("status", "--json").stdout)[0]["adopted"] == "ralph-loop"
    assert (
        "ralph-loop: ralph-loop@official 1.0.0, disabled; [interop] ralph_loop = verify: "
        "its completion promise is verified" in doctor
    )
    assert "its loops are left alone, unverified" in doctor
    assert "other loop: ralph-loop for session (any session), not adoptable" in doctor


def test_doctor_names_what_of_omc_cannot_be_verified(tmp_path: Path) -> None:
    s = Session(tmp_path)
    install_neighbours(s)

    doctor = s.run("doctor").stdout

    [omc] = [line for line in doctor.splitlines() if "oh-my-claudecode:" in line]
    assert omc.startswith("warn")
    assert "a cancel meant as 'stop' looks the same as 'done'" in omc
