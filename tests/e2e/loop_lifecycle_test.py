"""A loop's life in the real Claude Code CLI, beyond the happy path: a FAIL whose critique reaches the
implementer, who fixes the work and gets a PASS; the iteration cap; a cancel in the middle of a loop; and
a second session in the same project that the first one's loop never touches.

The scripted model follows tiergate's texts (testing/claude/tiergate_model.py); every assertion is about
what tiergate told the model, what it decided (the decision log) and where the loop ended (`status`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.scripted_api import (
    ApiRequest,
    Failure,
    Reply,
    Rule,
    ScriptedApi,
    agent,
    bash,
    stop_feedback,
    text,
    tool_use,
)
from testing.claude.tiergate_model import (
    follow_spawn_directive,
    passing_verdict,
    spawn_directive,
    verdict_message,
)
from testing.tiergatecli import decisions, log_records, loop_status, start_loop, tiergate

pytestmark = pytest.mark.e2e

CLAIM = "hello.py is written and prints hello.\n<promise>DONE</promise>"
TASK = "add hello.py printing hello"


def write(project: Path, name: str, content: str) -> Any:
    return tool_use("Write", {"file_path": str(project / name), "content": content})


CRITIQUE = "python3 hello.py prints 'helo', not 'hello'"


def script_fail_then_fix(api: ScriptedApi, project: Path, fix_when: str, *more: Rule) -> None:
    """The implementer writes a wrong hello.py and claims; the first verifier runs it and FAILs it with
    CRITIQUE, the next one passes. The implementer writes the fix when it is told `fix_when`."""
    api.script(
        Rule(follow_spawn_directive, thread="main", last_user_contains="```tiergate-spawn", name="spawn"),
        Rule(text("The verifier has answered."), thread="main", last_user_contains="tiergate-verdict"),
        Rule(
            write(project, "hello.py", "print('hello')\n"),
            thread="main",
            last_user_contains=fix_when,
            times=1,
        ),
        *more,
    )
    api.sequence(write(project, "hello.py", "print('helo')\n"), text(CLAIM), text(CLAIM), thread="main")
    failing = verdict_message(
        "FAIL", [("hello.py prints hello", "MISSING", "$ python3 hello.py -> helo")], critique=CRITIQUE
    )
    api.sequence(bash("python3 hello.py"), text(failing), bash("python3 hello.py"), thread="subagent")
    api.on(passing_verdict("$ python3 hello.py -> hello"), thread="subagent", after_tool_result=True)


def test_a_fail_critique_reaches_the_implementer_who_fixes_the_work_and_gets_a_pass(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, TASK)
    critique = CRITIQUE
    script_fail_then_fix(scripted_api, git_project, critique)

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    first_spawn, after_fail, second_spawn = stop_feedback(scripted_api)
    assert "tiergate-spawn" in first_spawn and "tiergate-spawn" in second_spawn
    assert critique in after_fail and "FAIL" in after_fail and "iteration 2/5" in after_fail
    assert decisions(git_project, run.session_id) == [
        ("SessionStart", "bind"),
        ("UserPromptSubmit", "user-prompt"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "feedback"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    assert (git_project / "hello.py").read_text() == "print('hello')\n"
    history = json.loads(tiergate(git_project, "history", "--json").stdout)
    assert [(v["id"], v["verdict"]) for v in history["verifications"]] == [("v1", "FAIL"), ("v2", "PASS")]
    assert history["total"]["ran"] == 2
    [loop] = loop_status(git_project)
    assert (loop["phase"], loop["verdict"], loop["iteration"]) == ("passed", "PASS", 2)


def test_an_unchanged_claim_after_a_fail_is_refuted_at_once_and_only_a_fix_earns_a_new_verifier(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, TASK)
    critique = CRITIQUE
    # Given the critique, the implementer claims again at once, changing nothing: a re-roll of the
    # verifier. Only once told it is refuted again does it fix the file.
    reclaim = Rule(text(CLAIM), thread="main", last_user_contains=critique, times=1, name="re-claim")
    script_fail_then_fix(scripted_api, git_project, "nothing has changed since", reclaim)

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    assert decisions(git_project, run.session_id) == [
        ("SessionStart", "bind"),
        ("UserPromptSubmit", "user-prompt"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "feedback"),
        ("Stop", "refuted-again"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    feedback = stop_feedback(scripted_api)
    [again] = [f for f in feedback if "nothing has changed since" in f]
    assert "verification v1 (FAIL) refuted this workspace" in again
    assert "no checks were run and no verifier was spawned" in again
    assert critique in again
    assert "tiergate-spawn" not in again
    # No verifier request reached the model between the FAIL and the fix: two verifiers ran, each twice.
    calls = scripted_api.messages_calls()
    refuted_at = next(i for i, r in enumerate(calls) if "nothing has changed since" in r.last_user_text())
    fail_at = max(i for i, r in enumerate(calls[:refuted_at]) if r.is_subagent)
    assert all(not r.is_subagent for r in calls[fail_at + 1 : refuted_at + 1])
    assert len(scripted_api.messages_calls("subagent")) == 4
    assert (git_project / "hello.py").read_text() == "print('hello')\n"
    history = json.loads(tiergate(git_project, "history", "--json").stdout)
    assert [(v["id"], v["verdict"]) for v in history["verifications"]] == [("v1", "FAIL"), ("v2", "PASS")]
    [loop] = loop_status(git_project)
    assert (loop["phase"], loop["verdict"]) == ("passed", "PASS")


def test_at_the_iteration_cap_the_loop_halts_and_tells_the_user(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, TASK, max_iterations=3)
    turns = [write(git_project, f"step{i}.txt", f"step {i}\n") for i in range(3)]
    scripted_api.sequence(
        *(reply for turn in turns for reply in (turn, text("Not done yet."))), thread="main"
    )

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    feedback = stop_feedback(scripted_api)
    assert ["iteration 2/3" in feedback[0], "iteration 3/3" in feedback[1]] == [True, True]
    assert len(feedback) == 2  # the third stop is let through
    assert decisions(git_project, run.session_id)[-3:] == [
        ("Stop", "continue"),
        ("Stop", "continue"),
        ("Stop", "halt"),
    ]
    [notice] = [n for n in run.notices if "loop halted" in n]
    assert "iteration cap is reached (3/3)" in notice and "/tiergate:ralph" in notice
    [loop] = loop_status(git_project)
    assert (loop["phase"], loop["iteration"], loop["active"]) == ("halted", 3, False)
    assert run.result["result"] == "Not done yet."


def test_tiergate_cancel_in_the_middle_of_a_loop_lets_the_next_stop_through(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, TASK)
    # The user cancels from another terminal while Claude works (here: the scripted model runs it).
    cancel = bash(f"cd {git_project} && {sys.executable} -m tiergate cancel")
    scripted_api.sequence(
        write(git_project, "hello.py", "print('hel')\n"),
        text("Half way."),
        cancel,
        text("Stopping here."),
        thread="main",
    )

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    [only_block] = stop_feedback(scripted_api)
    assert "iteration 2/5" in only_block
    assert run.result["result"] == "Stopping here."
    assert [d for d in decisions(git_project) if d[0] in ("Stop", "cancel")] == [
        ("Stop", "continue"),
        ("cancel", "cancel"),
    ]
    [loop] = loop_status(git_project)
    assert (loop["phase"], loop["active"]) == ("cancelled", False)


def test_a_second_session_in_the_project_is_untouched_by_the_first_ones_loop(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, TASK)
    # Session one takes up the loop, then its turn ends on an API error: its loop stays active.
    scripted_api.on(Failure(429, "rate_limit_error", "slow down"), thread="main", times=1)
    first = run_tiergate(run_claude, "start working")
    assert first.result["is_error"] is True, first.describe()
    [loop] = loop_status(git_project)
    assert (loop["session_id"], loop["phase"], loop["active"]) == (first.session_id, "working", True)
    # Session two works in the same project and claims: nothing of the loop reaches it.
    scripted_api.sequence(write(git_project, "notes.txt", "notes\n"), text(CLAIM), thread="main")

    second = run_tiergate(run_claude, "write some notes")

    assert second.returncode == 0, second.describe()
    assert second.session_id != first.session_id
    assert second.result["result"] == CLAIM
    assert stop_feedback(scripted_api) == []
    assert scripted_api.messages_calls("subagent") == []
    assert decisions(git_project, second.session_id) == []
    first_request, *second_requests = scripted_api.messages_calls("main")
    assert TASK in first_request.conversation_text()  # the loop's session was told about it
    for request in second_requests:
        assert "tiergate loop active" not in request.conversation_text()
        assert "keep working on the task" not in request.conversation_text()
        assert TASK not in request.conversation_text()
    [after] = loop_status(git_project)
    assert after == loop


def test_a_verifier_spawned_on_a_weaker_model_does_not_count(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, TASK)

    def on_haiku(request: ApiRequest) -> Reply:
        directive = spawn_directive(request.last_user_text())
        assert directive is not None and directive["model"] == "sonnet"
        return agent(directive["subagent_type"], directive["prompt"], directive["description"], model="haiku")

    scripted_api.script(
        Rule(on_haiku, thread="main", last_user_contains="```tiergate-spawn", times=1),
        Rule(follow_spawn_directive, thread="main", last_user_contains="```tiergate-spawn"),
        Rule(text("The verifier has answered."), thread="main", last_user_contains="tiergate-verdict"),
    )
    scripted_api.sequence(write(git_project, "hello.py", "print('hello')\n"), text(CLAIM), thread="main")
    scripted_api.on(bash("python3 hello.py"), thread="subagent", after_tool_result=False)
    scripted_api.on(passing_verdict("$ python3 hello.py -> hello"), thread="subagent", after_tool_result=True)

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    assert {r.model for r in scripted_api.messages_calls("subagent")} == {
        "claude-haiku-5-5",
        "claude-sonnet-5-5",
    }
    assert decisions(git_project, run.session_id)[2:] == [
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "request-again"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    # Claude Code records the model as the Agent call named it ("haiku"), or resolved when not named.
    assert any("ran on haiku, weaker than the sonnet" in n for n in run.notices), "\n".join(run.notices)
    history = json.loads(tiergate(git_project, "history", "--json").stdout)["verifications"]
    assert [(v["verdict"], v["ran_on"]) for v in history] == [("DISQUALIFIED", "haiku"), ("PASS", "sonnet")]


def test_after_compaction_claude_is_reminded_of_the_loop_and_the_log_shows_it(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    # A first turn without a loop (compaction needs a conversation); then every loop turn ends on an API
    # error, so that the loop is still active at each step (a loop turn that ends normally is held
    # until a verifier passes it). Compaction itself is a side request, answered with a summary.
    scripted_api.sequence(text("Hello."), thread="main")
    scripted_api.on(Failure(429, "rate_limit_error", "slow down"), thread="main")

    run = run_tiergate(
        run_claude,
        ["hello", f"/tiergate:ralph {TASK} --max-iterations 4", "/compact keep the loop", "go on"],
        await_hooks=["StopFailure"],
    )

    assert len(run.results) == 4, run.describe()
    assert len([r for r in scripted_api.requests if r.is_compaction]) == 1
    *_, started, after = scripted_api.messages_calls("main")
    restated = "SessionStart hook additional context: tiergate loop active (iteration 1/4, phase working)"
    assert restated not in started.conversation_text()
    context = after.conversation_text()
    assert restated in context and "compacted" in context
    assert TASK in context and "<promise>DONE</promise>" in context
    logged = decisions(git_project, run.session_id)
    assert ("PreCompact", "compaction") in logged
    assert logged[-1] == ("SessionEnd", "session-end")
    [record] = [r for r in log_records(git_project) if r["event"] == "PreCompact"]
    assert "compaction (manual)" in record["reasons"][0] and record["phase"] == "working"
    [loop] = loop_status(git_project)
    assert (loop["phase"], loop["active"]) == ("working", True)
