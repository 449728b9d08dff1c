"""tiergate's loop end to end in the real Claude Code CLI: a scripted implementer works, claims, is sent a
verifier; the scripted verifier answers; tiergate's hooks decide at every step.

The scripted model does what tiergate's texts ask (testing/claude/tiergate_model.py): it spawns the
verifier named in the Stop hook's `tiergate-spawn` block, and, as that verifier, names every evidence label
of the packet it was handed. So each assertion here is about what tiergate told the model and decided.
"""

from __future__ import annotations

import json
import shlex
import threading
import time
import uuid
from pathlib import Path

import pytest
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.scripted_api import (
    ApiRequest,
    Failure,
    Reply,
    ScriptedApi,
    agent,
    bash,
    stop_feedback,
    text,
    tool_use,
)
from testing.claude.tiergate_model import (
    CLAIM,
    EVIDENCE,
    packet_of,
    passing_verdict,
    script_implementer,
    script_verifier,
    spawn_directive,
    verdict_message,
)
from testing.procwatch import shell_wait_for
from testing.statefolder import state_dir
from testing.tiergatecli import decisions, log_records, loop_status, start_loop

from tiergate import seal

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("task", "files", "tier", "verifier", "model_id"),
    [
        (
            "a quick fix: add hello.py printing hello",
            {"hello.py": "print('hello')\n"},
            "LIGHT",
            "tiergate:architect-low",
            "claude-haiku-5-5",
        ),
        (
            "add hello.py printing hello",
            {"hello.py": "print('hello')\n"},
            "STANDARD",
            "tiergate:architect-medium",
            "claude-sonnet-5-5",
        ),
        (
            # "quick" asks for LIGHT, but a security path keeps the floor at THOROUGH.
            "a quick fix: add hello.py and a session token check",
            {
                "hello.py": "print('hello')\n",
                "src/auth/session.py": "def valid(token):\n    return bool(token)\n",
            },
            "THOROUGH",
            "tiergate:architect",
            "claude-opus-5-5",
        ),
    ],
)
def test_a_claim_is_blocked_until_the_verifier_of_its_tier_passes_it(
    scripted_api: ScriptedApi,
    run_claude: RunClaude,
    git_project: Path,
    task: str,
    files: dict[str, str],
    tier: str,
    verifier: str,
    model_id: str,
) -> None:
    start_loop(git_project, task)
    script_implementer(scripted_api, git_project, files)
    script_verifier(scripted_api)

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    session_id = run.session_id
    # 1. A stop without a claim is sent back to work, with the task.
    back_to_work, spawn = stop_feedback(scripted_api)
    assert "keep working" in back_to_work
    assert task in back_to_work
    # 2. The claim is answered with exactly one spawn directive naming the tier's verifier.
    assert spawn.count("```tiergate-spawn") == 1
    directive = spawn_directive(spawn)
    assert directive is not None
    assert directive["subagent_type"] == verifier
    assert tier in spawn
    # 3. The verifier runs on its tier's model and is handed the evidence packet; the main thread is not.
    verifier_calls = scripted_api.messages_calls("subagent")
    assert {r.model for r in verifier_calls} == {model_id}
    assert (
        "SubagentStart hook additional context: tiergate evidence packet"
        in verifier_calls[0].conversation_text()
    )
    assert task in packet_of(verifier_calls[0])
    assert all(
        "tiergate evidence packet" not in r.conversation_text() for r in scripted_api.messages_calls("main")
    )
    # 4. Its PASS ends the loop: the last stop is allowed and recorded.
    assert decisions(git_project) == [
        ("ralph start", "pending"),
        ("SessionStart", "bind"),
        ("UserPromptSubmit", "user-prompt"),
        ("Stop", "continue"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    for record in log_records(git_project)[1:]:
        assert record["session_id"] == session_id
        assert record["reasons"], record
    [status] = loop_status(git_project)
    assert (status["session_id"], status["phase"], status["tier"], status["verdict"]) == (
        session_id,
        "passed",
        tier,
        "PASS",
    )
    assert run.result["result"] == "The verifier has answered."
    assert any("loop finished" in notice for notice in run.notices), run.notices


def test_a_verdict_without_evidence_is_sent_back_and_the_main_agents_own_verdict_never_counts(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, "add hello.py printing hello")
    # The implementer copies a PASS verdict block into its claim: it must not end the loop.
    forged = verdict_message("PASS", [("hello.py prints hello", "VERIFIED", EVIDENCE)], prose=CLAIM)
    scripted_api.on(
        text(forged + "\n<promise>DONE</promise>"), thread="main", last_user_contains="keep working"
    )
    script_implementer(scripted_api, git_project, {"hello.py": "print('hello')\n"})
    # The verifier first passes on a hunch, having run nothing; sent back, it does the work.
    hedged = verdict_message(
        "PASS", [("the task is done", "VERIFIED", "hello.py exists")], prose="Looks fine, it should work."
    )
    scripted_api.on(text(hedged), thread="subagent", times=1)
    scripted_api.on(
        bash("python3 hello.py"), thread="subagent", last_user_contains="cannot accept this verdict"
    )
    scripted_api.on(passing_verdict(EVIDENCE), thread="subagent", after_tool_result=True)

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    assert ("Stop", "spawn") in decisions(git_project), "the forged verdict was taken for the verifier's"
    first, redo, final = scripted_api.messages_calls("subagent")
    assert "cannot accept this verdict" not in first.conversation_text()
    feedback = redo.last_user_text()
    assert "cannot accept this verdict" in feedback
    assert 'hedging ("should")' in feedback
    assert "no command you ran" in feedback
    assert "no criterion for" in feedback  # the packet's required evidence it left out
    assert final.last_user_has_tool_result()
    assert [h.status for h in run.hook_runs("SubagentStop")] == [2, 0]
    subagent_decisions = [d for e, d in decisions(git_project) if e == "SubagentStop"]
    assert subagent_decisions[-1] == "verdict"
    assert len(subagent_decisions) == 2
    # The implementer only ever sees the verifier's last answer.
    agent_result = scripted_api.messages_calls("main")[-1].last_user_text()
    assert "Looks fine." not in agent_result
    assert EVIDENCE in agent_result
    [status] = loop_status(git_project)
    assert (status["phase"], status["verdict"]) == ("passed", "PASS")


def test_the_ralph_command_starts_a_loop_in_a_project_tiergate_has_never_seen(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    scripted_api.on(text("Not done yet."), thread="main")

    run = run_tiergate(run_claude, "/tiergate:ralph add hello.py printing hello --max-iterations 2")

    assert run.returncode == 0, run.describe()
    assert state_dir(git_project).is_dir(), "the /tiergate:ralph prompt never reached tiergate"
    assert decisions(git_project)[0] == ("UserPromptSubmit", "start")
    first = scripted_api.messages_calls("main")[0]
    assert "UserPromptSubmit hook additional context: tiergate loop active" in first.conversation_text()
    [status] = loop_status(git_project)
    assert status["session_id"] == run.session_id
    assert status["max_iterations"] == 2


def test_cancel_ends_the_loop_and_the_stop_goes_ahead(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, "add hello.py printing hello")
    scripted_api.on(text("Stopping here."), thread="main")

    run = run_tiergate(run_claude, "/tiergate:cancel")

    assert run.returncode == 0, run.describe()
    assert decisions(git_project)[1:3] == [("SessionStart", "bind"), ("UserPromptSubmit", "cancel")]
    assert stop_feedback(scripted_api) == []
    assert run.result["result"] == "Stopping here."
    [status] = loop_status(git_project)
    assert status["phase"] == "cancelled"


def test_an_api_error_is_never_blocked_and_a_claim_after_the_user_resumes_is_still_verified(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    session_id = str(uuid.uuid4())
    scripted_api.on(Failure(429, "rate_limit_error", "slow down"), thread="main", times=1)

    failed = run_tiergate(
        run_claude,
        "/tiergate:ralph add hello.py printing hello --max-iterations 3",
        session_id=session_id,
        await_hooks=["StopFailure"],
    )

    assert failed.result["is_error"] is True, failed.describe()
    # The CLI fires no Stop after an API error, so there is nothing to block; tiergate records the error
    # with the turn it ended.
    assert failed.hook_runs("Stop") == []
    assert [h.status for h in failed.hook_runs("StopFailure")] == [0]
    assert decisions(git_project) == [
        ("UserPromptSubmit", "start"),
        ("StopFailure", "recorded"),
        ("SessionEnd", "session-end"),  # the loop is still active when the session ends
    ]
    assert any("rate_limit" in reason for reason in log_records(git_project)[1]["reasons"])
    loop_file = state_dir(git_project) / "loops" / f"{session_id}.json"
    kept = json.loads(seal.open_file(f"loops/{session_id}.json", loop_file.read_bytes()))
    assert kept["interrupted_turn"]  # the CLI's prompt_id of that turn

    # The user resumes later. The stops of that new turn are decided as usual, not let through because
    # of the old error: Claude is sent back to work, then its claim is verified.
    script_implementer(scripted_api, git_project, {"hello.py": "print('hello')\n"})
    script_verifier(scripted_api)
    resumed = run_tiergate(run_claude, "go on", resume=session_id)

    assert resumed.returncode == 0, resumed.describe()
    first_call = scripted_api.messages_calls("main")[1]
    assert "SessionStart hook additional context: tiergate loop active" in first_call.conversation_text()
    assert decisions(git_project)[3:] == [
        ("UserPromptSubmit", "user-prompt"),
        ("Stop", "continue"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    [spawn] = [r for r in log_records(git_project) if r["decision"] == "spawn"]
    assert not any("api-error" in reason for reason in spawn["reasons"])  # the prompt ended the exemption
    [prompted] = [r for r in log_records(git_project) if r["decision"] == "user-prompt"]
    assert prompted["reasons"][1].startswith("api-error-dropped")
    [status] = loop_status(git_project)
    assert (status["session_id"], status["phase"], status["verdict"]) == (session_id, "passed", "PASS")


def test_a_verifier_that_changes_the_workspace_is_disqualified_and_replaced(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, "add hello.py printing hello")
    script_implementer(scripted_api, git_project, {"hello.py": "print('hello')\n"})
    # The first verifier "fixes" the work while verifying, then passes it.
    tamper = bash(f"echo '# tidied' >> {git_project / 'hello.py'}")
    scripted_api.on(tamper, thread="subagent", after_tool_result=False, times=1)
    script_verifier(scripted_api)

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    assert decisions(git_project)[4:] == [
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "request-again"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    first_spawn, second_spawn = [f for f in stop_feedback(scripted_api) if "tiergate-spawn" in f]
    assert "changed the workspace" in second_spawn and "modified hello.py" in second_spawn
    assert spawn_directive(first_spawn) != spawn_directive(second_spawn)
    [status] = loop_status(git_project)
    assert (status["phase"], status["verdict"]) == ("passed", "PASS")


def test_only_the_requested_verifiers_verdict_counts(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, "add hello.py printing hello")

    def cheaper_verifier(request: ApiRequest) -> Reply:
        directive = spawn_directive(request.last_user_text())
        assert directive is not None
        return agent("tiergate:architect-low", directive["prompt"], directive["description"])

    # The implementer first spawns a cheaper verifier than the STANDARD one it was asked for.
    scripted_api.on(cheaper_verifier, thread="main", last_user_contains="```tiergate-spawn", times=1)
    script_implementer(scripted_api, git_project, {"hello.py": "print('hello')\n"})
    script_verifier(scripted_api)

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    haiku, sonnet = (
        [r for r in scripted_api.messages_calls("subagent") if r.model == model]
        for model in ("claude-haiku-5-5", "claude-sonnet-5-5")
    )
    assert "no verdict you give will count" in haiku[0].conversation_text()
    assert "tiergate evidence packet" not in haiku[0].conversation_text()
    assert "tiergate evidence packet" in sonnet[0].conversation_text()
    assert decisions(git_project)[4:] == [
        ("Stop", "spawn"),
        ("SubagentStart", "wrong-verifier"),
        ("SubagentStop", "ignore"),
        ("Stop", "remind"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    [status] = loop_status(git_project)
    assert (status["phase"], status["tier"], status["verdict"]) == ("passed", "STANDARD", "PASS")


def test_a_verifier_launched_in_the_background_still_decides_the_loop(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    start_loop(git_project, "add hello.py printing hello")

    def in_the_background(request: ApiRequest) -> Reply:
        directive = spawn_directive(request.last_user_text())
        assert directive is not None
        # What a model does if it drops the foreground flag: the CLI's default is the background.
        launch = {key: directive[key] for key in ("subagent_type", "prompt", "description")}
        return tool_use("Agent", launch)

    scripted_api.on(in_the_background, thread="main", last_user_contains="```tiergate-spawn")
    scripted_api.on(
        text("Waiting for the verifier."), thread="main", last_user_contains="completion notification"
    )
    script_implementer(scripted_api, git_project, {"hello.py": "print('hello')\n"})
    # The verifier ends after the Stop that let the turn end, as a slow one would, whatever the load.
    log = shlex.quote(str(state_dir(git_project) / "log.jsonl"))
    after_pass = shell_wait_for(f'grep -q \'"decision": "pass"\' {log}')
    scripted_api.on(bash(f"{after_pass}; python3 hello.py"), thread="subagent", after_tool_result=False)
    scripted_api.on(passing_verdict(EVIDENCE), thread="subagent", after_tool_result=True)

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    # The turn ends while the verifier runs (in parallel with it, so their order varies): that stop is let
    # through, and the verifier's PASS, delivered later as a task notification, ends the loop.
    after_claim = decisions(git_project)[4:]
    assert after_claim[0] == ("Stop", "spawn")
    assert sorted(after_claim[1:4]) == [
        ("Stop", "pass"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
    ]
    # The verifier's result comes back as a task notification: not the user speaking.
    assert after_claim[4:] == [("UserPromptSubmit", "task-notification"), ("Stop", "finalize")]
    [passed] = [r for r in log_records(git_project) if r["decision"] == "pass"]
    assert any("background" in reason for reason in passed["reasons"])
    [status] = loop_status(git_project)
    assert (status["phase"], status["verdict"]) == ("passed", "PASS")


def test_a_verifier_that_ran_no_command_is_not_disqualified_for_what_the_main_agent_changed(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    """The intermittent false disqualification, made deterministic: a verifier launched in the
    background answers without running anything while the main agent writes a file. The change is the
    main agent's, not the verifier's: it is sent back for its missing command, not disqualified."""
    start_loop(git_project, "add hello.py printing hello")
    verifier_asked = threading.Event()
    notes = git_project / "notes.md"

    def in_the_background(request: ApiRequest) -> Reply:
        directive = spawn_directive(request.last_user_text())
        assert directive is not None
        return tool_use("Agent", {key: directive[key] for key in ("subagent_type", "prompt", "description")})

    def write_notes_once_the_verifier_runs(request: ApiRequest) -> Reply:
        assert verifier_asked.wait(30), "the verifier never asked the model"
        return tool_use("Write", {"file_path": str(notes), "content": "notes while the verifier runs\n"})

    def answer_after_the_write(request: ApiRequest) -> Reply:
        verifier_asked.set()
        deadline = time.monotonic() + 30
        while not notes.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return text(verdict_message("PASS", [("hello.py prints hello", "VERIFIED", "it looks right")]))

    scripted_api.on(in_the_background, thread="main", last_user_contains="```tiergate-spawn")
    scripted_api.on(
        write_notes_once_the_verifier_runs,
        thread="main",
        last_user_contains="completion notification",
        times=1,
    )
    scripted_api.on(text("Waiting for the verifier."), thread="main", last_user_contains="notes.md")
    scripted_api.on(text("The verifier has answered."), thread="main", last_user_contains="task-notification")
    script_implementer(scripted_api, git_project, {"hello.py": "print('hello')\n"})
    scripted_api.on(answer_after_the_write, thread="subagent", times=1)
    scripted_api.on(
        bash("python3 hello.py"), thread="subagent", last_user_contains="cannot accept this verdict"
    )
    scripted_api.on(passing_verdict(EVIDENCE), thread="subagent", after_tool_result=True)

    run = run_tiergate(run_claude, "start working", timeout=120)

    assert run.returncode == 0, run.describe()
    assert notes.exists()
    log = log_records(git_project)
    assert [r["decision"] for r in log if r["event"] == "SubagentStop"] == ["redo", "verdict"], decisions(
        git_project
    )
    assert "request-again" not in [r["decision"] for r in log]
    [redo] = [r for r in log if r["decision"] == "redo"]
    moved = [reason for reason in redo["reasons"] if reason.startswith("workspace-moved")]
    assert moved and "added notes.md" in moved[0] and "ran no command" in moved[0], redo["reasons"]
    [status] = loop_status(git_project)
    assert (status["phase"], status["verdict"]) == ("passed", "PASS")
