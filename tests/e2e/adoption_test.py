"""tiergate adopts the user's own loop, in the real Claude Code CLI beside the loop plugin (issue 11): a
ralph-loop (the stand-in of testing/ralphloop/, written from ralph-loop's documented behaviour) whose false
promise is refuted with the failing test named, then the fix verified; the same with `[interop] ralph_loop
= "ignore"` ending at once; a tiergate loop of its own beside a ralph-loop keeping its PASS; and an
oh-my-claudecode 5.5.0 ralph or autopilot mode whose model clears its state on a failing test, refuted,
then verified."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from testing.claude.cli import RunClaude
from testing.claude.gated_loop import commit_checked_project, script_refuted_then_verified
from testing.claude.neighbours import (
    LIST_OMC_SESSIONS,
    LOAD_OMC_STATE_CLEAR,
    OMC_CLEARING_TOOLS,
    RALPH_LOOP_HOOK,
    RALPH_LOOP_PLUGIN,
    clear_omc_state,
    hook_runs_of,
    omc_plugin_dir,
    ralph_loop_command,
    ralph_loop_state,
    run_beside,
)
from testing.claude.scripted_api import ApiRequest, Reply, Rule, ScriptedApi, stop_feedback, text, write_file
from testing.claude.tiergate_model import ANSWERED, follow_tiergate, verify_by_running
from testing.tiergatecli import decisions, start_loop, tiergate

pytestmark = pytest.mark.e2e

TASK = "make value.txt say best"
CLAIM = "value.txt says best now.\n<promise>DONE</promise>"
# value.txt must say good: the model's first try (best) breaks the project's test, which passed before.
CHECK = """\
if grep -q good value.txt; then echo "test_value ... ok"; exit 0; fi
echo "FAIL: test_value (checks.ValueTest)"
echo "AssertionError: value.txt says $(cat value.txt), expected good"
exit 1
"""
FIXED = "good, and best\n"
EVIDENCE = "ran `sh check.sh`: test_value ... ok"


def project_with_a_check(project: Path, config: str = "") -> None:
    files = {"value.txt": "good\n", "check.sh": CHECK}
    commit_checked_project(project, files, "sh check.sh", "value.txt and its check", config=config)


def verifier_script(api: ScriptedApi) -> None:
    """The main model follows tiergate's spawn directive; the verifier runs the check and passes."""
    follow_tiergate(api)
    verify_by_running(api, "sh check.sh", EVIDENCE)


def test_a_users_ralph_loop_with_a_false_promise_is_refuted_then_its_fix_verified(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    project_with_a_check(git_project)
    script_refuted_then_verified(
        scripted_api,
        first_try=[write_file(git_project / "value.txt", "best\n"), text("I changed value.txt.")],
        fix=[write_file(git_project / "value.txt", FIXED)],
        claim=CLAIM,
        check="sh check.sh",
        evidence=EVIDENCE,
    )

    command = ralph_loop_command(TASK, promise="DONE", max_iterations=8)
    run = run_beside(run_claude, command, [RALPH_LOOP_PLUGIN], timeout=240)

    assert run.returncode == 0, run.describe()
    feedback = stop_feedback(scripted_api)
    # ralph-loop ran: its Stop hook at every stop, and at the first it sent the model back with its prompt,
    # alone: tiergate counted that stop without a second prompt.
    assert [h.status for h in hook_runs_of(run, RALPH_LOOP_HOOK, "Stop")] == [0, 0, 0, 0], run.describe()
    assert feedback[0].startswith(f"Stop hook feedback:\n\n{TASK}")
    assert feedback[0].count("Stop hook feedback:") == 1
    assert "tiergate" not in feedback[0]
    # The false promise: ralph-loop let go of it, tiergate's gate refuted it with the failing test named.
    refuted = feedback[1]
    assert "FAIL: test_value (checks.ValueTest)" in refuted
    assert "AssertionError: value.txt says best, expected good" in refuted
    assert "```tiergate-spawn" not in refuted
    # The fix: verified by the verifier tiergate asked for, whose PASS ends the session.
    assert "```tiergate-spawn" in feedback[2]
    assert len(feedback) == 3
    assert scripted_api.messages_calls("subagent"), "the verifier was never spawned"
    assert run.result["result"] == ANSWERED
    assert ralph_loop_state(git_project) is None
    assert any("verifying ralph-loop's completion claim" in n for n in run.notices), run.notices
    made = [decision for _, decision in decisions(git_project)]
    assert made[0] == "adopt"
    assert made[-1] == "finalize"
    assert "changed-after-pass" not in made
    status = tiergate(git_project, "status").stdout
    assert "passed (finished)" in status
    assert "adopted from ralph-loop" in status


def test_with_interop_ignore_a_users_false_promise_ends_the_session_at_once(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    project_with_a_check(git_project, '[interop]\nralph_loop = "ignore"\n')
    scripted_api.sequence(write_file(git_project / "value.txt", "best\n"), text(CLAIM), thread="main")

    run = run_beside(run_claude, ralph_loop_command(TASK, promise="DONE"), [RALPH_LOOP_PLUGIN], timeout=180)

    assert run.returncode == 0, run.describe()
    assert run.result["result"] == CLAIM
    assert stop_feedback(scripted_api) == []
    # ralph-loop ran its stop and took the promise (deleting its file); tiergate stood aside.
    assert [h.status for h in hook_runs_of(run, RALPH_LOOP_HOOK, "Stop")] == [0], run.describe()
    assert ralph_loop_state(git_project) is None
    # tiergate logged, at each hook that saw the loop, that it did not adopt it; it decided nothing else.
    assert {decision for _, decision in decisions(git_project)} == {"not-adopted"}
    assert (git_project / "value.txt").read_text() == "best\n"  # the false claim stood: nobody checked it


def test_a_tiergate_loop_beside_a_ralph_loop_with_another_promise_keeps_its_pass(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    project_with_a_check(git_project)
    start_loop(git_project, TASK, max_iterations=6)
    verifier_script(scripted_api)
    scripted_api.sequence(write_file(git_project / "value.txt", FIXED), text(CLAIM), thread="main")
    scripted_api.on(text("Working on."), thread="main")

    command = ralph_loop_command("ralph-loop's own task", promise="OTHER", max_iterations=4)
    run = run_beside(run_claude, command, [RALPH_LOOP_PLUGIN], timeout=240)

    assert run.returncode == 0, run.describe()
    made = [decision for _, decision in decisions(git_project)]
    # tiergate's loop kept its rules: ralph-loop's was not adopted, and the one PASS stood though
    # ralph-loop rewrote its state file at every stop (another tool's state, not the loop's work).
    assert "not-adopted" in made
    assert "adopt" not in made
    assert made.count("spawn") == 1
    assert "finalize" in made
    assert "changed-after-pass" not in made
    assert len(scripted_api.messages_calls("subagent")) >= 1
    # ralph-loop went on with its own promise until its own limit.
    assert ralph_loop_state(git_project) is None
    assert any("Stop hook feedback:\n\nralph-loop's own task" in f for f in stop_feedback(scripted_api))


# oh-my-claudecode ------------------------------------------------------------------------------------------


DONE_TEXT = "The mode is complete: value.txt says best."


def after(marker: str, reply: Callable[[ApiRequest], Reply] | Reply) -> Rule:
    return Rule(reply, thread="main", last_user_contains=marker, times=1)


@pytest.mark.parametrize("mode", ["ralph", "autopilot"])
def test_an_omc_mode_whose_model_clears_its_state_on_a_failing_test_is_refuted_then_verified(
    mode: str, scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    clear_mode = clear_omc_state(mode)
    omc = omc_plugin_dir()
    project_with_a_check(git_project)
    verifier_script(scripted_api)
    # Each clearing is the same: load OMC's deferred tool, call it, then say so.
    scripted_api.script(
        after("Tool loaded.", clear_mode),
        after(f"Successfully cleared state for mode: {mode}", text(DONE_TEXT)),
    )
    scripted_api.sequence(
        LIST_OMC_SESSIONS,
        write_file(git_project / "value.txt", "best\n"),
        LOAD_OMC_STATE_CLEAR,
        write_file(git_project / "value.txt", FIXED),
        thread="main",
    )
    scripted_api.script(Rule(clear_mode, thread="main", times=1))  # the second clearing: the tool is loaded
    scripted_api.on(text(DONE_TEXT), thread="main", after_tool_result=True)

    run = run_beside(
        run_claude,
        f"/oh-my-claudecode:{mode} {TASK}",
        [omc],
        allowed_tools=OMC_CLEARING_TOOLS,
        timeout=420,
    )

    assert run.returncode == 0, run.describe()
    feedback = [f for f in stop_feedback(scripted_api) if "tiergate" in f]
    refuted = feedback[0]
    assert "FAIL: test_value (checks.ValueTest)" in refuted
    assert "```tiergate-spawn" not in refuted
    assert "```tiergate-spawn" in feedback[1]
    assert scripted_api.messages_calls("subagent"), "the verifier was never spawned"
    made = [decision for _, decision in decisions(git_project)]
    assert made[0] == "adopt"
    assert made[-1] == "finalize"
    assert run.result["result"] == ANSWERED
