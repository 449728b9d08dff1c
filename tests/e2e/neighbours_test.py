"""The loop plugins users already run, beside tiergate in the real Claude Code CLI (issue 11's groundwork).

- ralph-loop: testing/ralphloop/ is a stand-in written from the plugin's documented behaviour
  (docs/interop.md). The first tests here run its two scripts directly and pin that behaviour; the e2e
  tests then show it in the CLI beside tiergate: the `/ralph-loop` command writes the state file, its Stop
  blocks with the prompt, and the promise ends the loop and deletes the file.
- oh-my-claudecode (OMC) 5.5.0, the npm package loaded as it ships: its hooks fire beside tiergate's, write
  under `.omc/`, and tiergate's Stop still answers; OMC's ralph and autopilot modes block one Stop per prompt
  and keep their state afterwards, and ralph ends only when the model clears its state with OMC's tool.

These pin what the neighbours do themselves: where tiergate would adopt their loop (issue 11,
tests/e2e/adoption_test.py), the project says `[interop] ... = "ignore"`, and tiergate leaves it alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testing.claude.cli import RunClaude
from testing.claude.neighbours import (
    LIST_OMC_SESSIONS,
    LOAD_OMC_STATE_CLEAR,
    OMC_CLEARING_TOOLS,
    OMC_HOOK,
    OMC_STATE_CLEAR,
    RALPH_LOOP_HOOK,
    RALPH_LOOP_PLUGIN,
    RALPH_LOOP_STATE,
    TIERGATE_HOOK,
    clear_omc_state,
    hook_runs_of,
    omc_files,
    omc_plugin_dir,
    ralph_loop_command,
    ralph_loop_state,
    run_beside,
)
from testing.claude.probe_plugin import ProbePlugin, make_probe_plugin
from testing.claude.scripted_api import Rule, ScriptedApi, bash, stop_feedback, text, tool_use
from testing.claude.tiergate_model import follow_spawn_directive, passing_verdict
from testing.gitrepo import commit_all, write
from testing.tiergatecli import decisions, tiergate

START_SCRIPT = RALPH_LOOP_PLUGIN / "scripts" / "ralph_loop_start.py"
STOP_SCRIPT = RALPH_LOOP_PLUGIN / "hooks" / "ralph_loop_stop.py"
TASK = "add hello.py printing hello"
TOOLS_WITH_SKILL = ("Bash", "Read", "Write", "Edit", "Agent", "Skill")


# The stand-in's two scripts, run directly ------------------------------------------------------------------


def start_loop(project: Path, *args: str, session_id: str = "session-1") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAUDE_CODE_SESSION_ID": session_id}
    return subprocess.run(
        [sys.executable, str(START_SCRIPT), *args],
        cwd=project,
        env=env,
        capture_output=True,
        check=False,
        text=True,
    )


def stop_hook(
    project: Path, last_text: str, session_id: str = "session-1"
) -> subprocess.CompletedProcess[str]:
    """The Stop hook on a transcript whose last assistant record says `last_text`."""
    transcript = project.parent / "transcript.jsonl"
    records = [
        {"type": "user", "message": {"role": "user", "content": "go"}},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": last_text}]},
        },
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]}},
    ]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records))
    payload = {"session_id": session_id, "transcript_path": str(transcript), "stop_hook_active": False}
    return subprocess.run(
        [sys.executable, str(STOP_SCRIPT)],
        cwd=project,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_start_script_writes_ralph_loops_state_file(tmp_path: Path) -> None:
    started = start_loop(
        tmp_path, "fix", "the parser", "--completion-promise", "ALL DONE", "--max-iterations", "5"
    )

    assert started.returncode == 0, started.stderr
    written = (tmp_path / RALPH_LOOP_STATE).read_text()
    head, started_at, tail = written.partition('started_at: "')
    assert head == (
        "---\nactive: true\niteration: 1\nsession_id: session-1\nmax_iterations: 5\n"
        'completion_promise: "ALL DONE"\n'
    )
    assert started_at
    assert tail.endswith('Z"\n---\n\nfix the parser\n')
    assert "fix the parser" in started.stdout
    assert "<promise>ALL DONE</promise>" in started.stdout


@pytest.mark.parametrize(
    "args",
    [("--max-iterations", "five", "task"), ("--completion-promise",), ("--max-iterations", "3"), ()],
)
def test_the_start_script_refuses_bad_arguments_and_writes_nothing(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    started = start_loop(tmp_path, *args)

    assert started.returncode == 1
    assert started.stderr.startswith("ralph-loop: ")
    assert not (tmp_path / RALPH_LOOP_STATE).exists()


@pytest.mark.parametrize(
    ("last_text", "ends"),
    [
        ("Done.\n<promise>ALL DONE</promise>", True),
        ("<promise>\n  ALL\n   DONE </promise>", True),  # whitespace collapsed
        ("ALL DONE", True),  # no tag: the whole message is compared
        ("<promise>ALL</promise> <promise>ALL DONE</promise>", False),  # only the first tag counts
        ("<promise>all done</promise>", False),  # exact, case included
        ("I will say <promise>ALL DONE", False),
    ],
)
def test_the_stop_hook_ends_the_loop_only_on_the_promise(tmp_path: Path, last_text: str, ends: bool) -> None:
    assert start_loop(tmp_path, "task", "--completion-promise", "ALL DONE").returncode == 0

    stopped = stop_hook(tmp_path, last_text)

    assert stopped.returncode == 0, stopped.stderr
    state = ralph_loop_state(tmp_path)
    if ends:
        assert state is None
        assert stopped.stdout.startswith("ralph-loop: promise 'ALL DONE' kept")
    else:
        assert state is not None
        assert state.fields["iteration"] == "2"
        answer = json.loads(stopped.stdout)
        # The reason is the prompt as the file holds it after the frontmatter: with its leading blank line.
        assert (answer["decision"], answer["reason"]) == ("block", "\ntask")
        assert "<promise>ALL DONE</promise>" in answer["systemMessage"]


def test_the_stop_hook_leaves_another_sessions_loop_alone_and_ends_at_the_limit(tmp_path: Path) -> None:
    assert start_loop(tmp_path, "task", "--max-iterations", "2", session_id="session-A").returncode == 0
    before = (tmp_path / RALPH_LOOP_STATE).read_text()

    other = stop_hook(tmp_path, "working", session_id="session-B")
    assert (other.returncode, other.stdout) == (0, "")
    assert (tmp_path / RALPH_LOOP_STATE).read_text() == before

    first = stop_hook(tmp_path, "working", session_id="session-A")
    assert json.loads(first.stdout)["decision"] == "block"
    second = stop_hook(tmp_path, "working", session_id="session-A")
    assert second.stdout.startswith("ralph-loop: iteration limit 2 reached")
    assert ralph_loop_state(tmp_path) is None


# ralph-loop beside tiergate in the CLI --------------------------------------------------------------------


@pytest.fixture
def stop_probe(tmp_path: Path) -> ProbePlugin:
    """Records every UserPromptSubmit's and Stop's input: what each neighbour's hooks receive."""
    return make_probe_plugin(tmp_path / "stop-probe", name="stop-probe", events=("UserPromptSubmit", "Stop"))


def ignore(project: Path, neighbour: str) -> None:
    """`[interop] <neighbour> = "ignore"` in the project's committed configuration."""
    write(project, {".tiergate.toml": f'[interop]\n{neighbour} = "ignore"\n'})
    commit_all(project, "tiergate leaves the neighbour alone")


@pytest.mark.e2e
def test_ralph_loop_beside_tiergate_blocks_with_its_prompt_until_the_promise_then_deletes_its_state(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path, stop_probe: ProbePlugin
) -> None:
    ignore(git_project, "ralph_loop")
    scripted_api.sequence(
        bash(f"cat {RALPH_LOOP_STATE}"),
        text("I looked at it."),
        text("It is done.\n<promise>DONE</promise>"),
        thread="main",
    )

    command = ralph_loop_command(TASK, promise="DONE", max_iterations=5)
    run = run_beside(run_claude, command, [RALPH_LOOP_PLUGIN, stop_probe.root])

    assert run.returncode == 0, run.describe()
    # UserPromptSubmit sees the command as typed, before the setup has written anything.
    assert [r["prompt"] for r in stop_probe.records("UserPromptSubmit")] == [command]
    assert command == f"/ralph-loop:ralph-loop '{TASK}' --completion-promise DONE --max-iterations 5"
    main_calls = scripted_api.messages_calls("main")
    # The command ran its setup in the CLI: the model read the state file it wrote, for this session.
    state_seen = main_calls[1].last_user_text()
    assert f'session_id: {run.session_id}\nmax_iterations: 5\ncompletion_promise: "DONE"\n' in state_seen
    assert f"---\n\n{TASK}" in state_seen
    # The first stop is blocked with the prompt; the promise ends the loop and the state file is gone.
    [feedback] = stop_feedback(scripted_api)
    assert feedback.startswith(f"Stop hook feedback:\n\n{TASK}")
    assert any(notice.startswith("Stop says: ralph-loop iteration 2") for notice in run.notices), run.notices
    assert ralph_loop_state(git_project) is None
    assert run.result["result"] == "It is done.\n<promise>DONE</promise>"
    # Every plugin's Stop hook ran at each stop and exited 0; tiergate, told to ignore ralph-loop, said
    # nothing, and only logged that it did not adopt the loop.
    for hook in (TIERGATE_HOOK, RALPH_LOOP_HOOK):
        assert [h.status for h in hook_runs_of(run, hook, "Stop")] == [0, 0], hook
    assert "tiergate" not in feedback
    assert not any("tiergate" in notice for notice in run.notices), run.notices
    assert {decision for _, decision in decisions(git_project)} == {"not-adopted"}
    # What each neighbour's Stop hook was handed.
    first, second = stop_probe.records("Stop")
    assert (first["stop_hook_active"], first["last_assistant_message"]) == (False, "I looked at it.")
    assert (second["stop_hook_active"], second["last_assistant_message"]) == (True, run.result["result"])


@pytest.mark.e2e
def test_ralph_loop_ignores_a_loop_another_session_started(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    started = start_loop(git_project, TASK, "--completion-promise", "DONE", session_id="another-session")
    assert started.returncode == 0, started.stderr
    before = (git_project / RALPH_LOOP_STATE).read_text()
    scripted_api.on(text("Nothing to do."), thread="main")

    run = run_beside(run_claude, "what is in this project?", [RALPH_LOOP_PLUGIN])

    assert run.returncode == 0, run.describe()
    assert stop_feedback(scripted_api) == []
    assert (git_project / RALPH_LOOP_STATE).read_text() == before
    assert [h.status for h in hook_runs_of(run, RALPH_LOOP_HOOK, "Stop")] == [0]


@pytest.mark.e2e
def test_when_ralph_loop_and_tiergate_both_block_a_stop_the_model_reads_both_and_the_state_file_is_rewritten(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    started = tiergate(git_project, "ralph", "start", "tiergate's task", "--max-iterations", "3")
    assert started.returncode == 0, started.stderr
    show_state = bash(f"cat {RALPH_LOOP_STATE}")
    scripted_api.sequence(show_state, text("First stop."), show_state, text("Second stop."), thread="main")
    scripted_api.on(text("Working on."), thread="main")

    run = run_beside(
        run_claude,
        ralph_loop_command("ralph-loop's task", promise="OTHER", max_iterations=2),
        [RALPH_LOOP_PLUGIN],
    )

    assert run.returncode == 0, run.describe()
    first_block = scripted_api.messages_calls("main")[2].last_user_text()
    # One user message carries both hooks' feedback, each its own reminder.
    assert first_block.count("Stop hook feedback:") == 2
    assert "Stop hook feedback:\n\nralph-loop's task" in first_block
    assert "tiergate's task" in first_block
    # ralph-loop counted the blocked stop by rewriting its file (iteration 1, then 2), then ended at its
    # limit of 2 and deleted it, while tiergate's loop went on to its own cap.
    states = [r.last_user_text() for r in scripted_api.messages_calls("main")[1:4:2]]
    assert ["iteration: 1\n" in states[0], "iteration: 2\n" in states[1]] == [True, True], states
    assert ralph_loop_state(git_project) is None
    assert any(n.startswith("Stop says: ralph-loop iteration 2") for n in run.notices), run.notices
    assert any("tiergate: loop halted: the iteration cap is reached (3/3)" in n for n in run.notices), (
        run.notices
    )


# oh-my-claudecode beside tiergate in the CLI --------------------------------------------------------------


@pytest.fixture(scope="session")
def omc_plugin() -> Path:
    return omc_plugin_dir()


CLAIM = "The work is done.\n<promise>DONE</promise>"


@pytest.mark.e2e
def test_omc_hooks_fire_beside_tiergate_and_tiergates_stop_still_answers(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path, omc_plugin: Path
) -> None:
    started = tiergate(git_project, "ralph", "start", TASK, "--max-iterations", "4")
    assert started.returncode == 0, started.stderr
    scripted_api.script(
        Rule(follow_spawn_directive, thread="main", last_user_contains="```tiergate-spawn", times=1),
        Rule(text(CLAIM), thread="main", last_user_contains="keep working", times=1),
    )
    scripted_api.sequence(
        tool_use("Write", {"file_path": str(git_project / "hello.py"), "content": "print('hello')\n"}),
        text("I wrote hello.py."),
        thread="main",
    )
    scripted_api.on(bash("python3 hello.py"), thread="subagent", after_tool_result=False)
    scripted_api.on(passing_verdict("ran `python3 hello.py`: it printed hello"), thread="subagent")
    scripted_api.on(text("Stopping here."), thread="main")

    run = run_beside(run_claude, "start working", [omc_plugin], timeout=180)

    assert run.returncode == 0, run.describe()
    session_id = run.session_id
    # OMC's hooks ran at every event tiergate's did, and none failed.
    events = ("SessionStart", "UserPromptSubmit", "SubagentStart", "SubagentStop", "Stop", "SessionEnd")
    for event in events:
        assert hook_runs_of(run, TIERGATE_HOOK, event), event
        assert hook_runs_of(run, OMC_HOOK, event), event
    omc_runs = hook_runs_of(run, OMC_HOOK)
    assert all(h.status == 0 for h in omc_runs), [(h.event, h.command, h.status, h.ms) for h in omc_runs]
    # ... and wrote its own state into the project, session by session, untracked and not ignored.
    written = omc_files(git_project)
    for name in ("session-started.json", "subagent-tracking-state.json"):
        assert f".omc/state/sessions/{session_id}/{name}" in written, written
    assert ".omc/project-memory.json" in written
    # tiergate's Stop answered beside OMC's: back to work first, then the claim met with a verifier to spawn.
    feedback = stop_feedback(scripted_api)
    assert "keep working" in feedback[0]
    assert "```tiergate-spawn" in feedback[1]
    assert all("[RALPH LOOP" not in f and "[AUTOPILOT" not in f for f in feedback)
    assert len(scripted_api.messages_calls("subagent")) >= 1
    # Beside OMC the loop finishes (issue 11): the change is the user's one file, OMC's .omc/ files are not
    # work, and the verifier is not blamed for them.
    assert ": 1 file, 1 line changed since the loop began" in feedback[1], feedback[1]
    made = [decision for _, decision in decisions(git_project)]
    assert made[-1] == "finalize", made
    assert not any("disqualif" in str(d) for d in made), made
    assert any("loop finished" in n for n in run.notices), run.notices


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("mode", "state_name", "feedback_opening"),
    [
        ("ralph", "ralph-state.json", "[RALPH LOOP - ITERATION 2/100] Work is NOT done."),
        ("autopilot", "autopilot-state.json", "[AUTOPILOT - Phase: unspecified] Autopilot not complete."),
    ],
)
def test_an_omc_mode_blocks_one_stop_per_prompt_and_keeps_its_state_after_the_session(
    scripted_api: ScriptedApi,
    run_claude: RunClaude,
    git_project: Path,
    omc_plugin: Path,
    stop_probe: ProbePlugin,
    mode: str,
    state_name: str,
    feedback_opening: str,
) -> None:
    # The keyword arms the mode awaiting confirmation; the model's Skill call confirms it, as OMC asks.
    scripted_api.sequence(
        tool_use("Skill", {"skill": f"oh-my-claudecode:{mode}"}),
        text("First stop."),
        text("Second stop."),
        thread="main",
    )

    run = run_beside(
        run_claude,
        f"{mode}: {TASK}",
        [omc_plugin, stop_probe.root],
        allowed_tools=TOOLS_WITH_SKILL,
        timeout=180,
    )

    assert run.returncode == 0, run.describe()
    [feedback] = stop_feedback(scripted_api)
    assert feedback.startswith(f"Stop hook feedback:\n{feedback_opening}")
    # The second stop comes with stop_hook_active set, which OMC never blocks: the turn ends there.
    assert [r["stop_hook_active"] for r in stop_probe.records("Stop")] == [False, True]
    assert run.result["result"] == "Second stop."
    # Nothing in the session declared the mode complete, and its state stays behind, active.
    state: dict[str, Any] = json.loads(
        (git_project / ".omc" / "state" / "sessions" / run.session_id / state_name).read_text()
    )
    owner = (state["active"], state["session_id"], state["project_path"])
    assert owner == (True, run.session_id, str(git_project))
    assert "awaiting_confirmation" not in state
    assert (state.get("iteration"), state.get("reinforcement_count")) == (
        (2, None) if mode == "ralph" else (None, 1)
    )


@pytest.mark.e2e
def test_omc_ralph_ends_when_the_model_clears_its_state_through_omcs_own_tool(
    scripted_api: ScriptedApi,
    run_claude: RunClaude,
    git_project: Path,
    omc_plugin: Path,
    stop_probe: ProbePlugin,
) -> None:
    ignore(git_project, "omc")
    # Prompt 1 arms ralph (blocked once); prompt 2 cancels it the way /oh-my-claudecode:cancel does: it loads
    # OMC's deferred state tool, then calls it.
    scripted_api.script(
        Rule(clear_omc_state("ralph"), thread="main", last_user_contains="Tool loaded.", times=1)
    )
    scripted_api.sequence(
        tool_use("Skill", {"skill": "oh-my-claudecode:ralph"}),
        LIST_OMC_SESSIONS,
        text("First stop."),
        text("Second stop."),
        LOAD_OMC_STATE_CLEAR,
        text("Ralph is cancelled."),
        thread="main",
    )

    run = run_beside(
        run_claude,
        [f"ralph: {TASK}", "cancel ralph"],
        [omc_plugin, stop_probe.root],
        allowed_tools=OMC_CLEARING_TOOLS,
        timeout=180,
    )

    assert run.returncode == 0, run.describe()
    assert [r["result"] for r in run.results] == ["Second stop.", "Ralph is cancelled."]
    # The second prompt's stop is a first stop (stop_hook_active false), and with the state cleared OMC lets
    # it go: one block in all, the first prompt's.
    assert [r["stop_hook_active"] for r in stop_probe.records("Stop")] == [False, True, False]
    assert len(stop_feedback(scripted_api)) == 1
    cleared = scripted_api.messages_calls("main")[-1].last_user_text()
    assert "Successfully cleared state for mode: ralph" in cleared
    # What is left to see: no ralph state, a cancel signal, and the tool call in the transcript.
    session = git_project / ".omc" / "state" / "sessions" / run.session_id
    assert not (session / "ralph-state.json").exists()
    assert (session / "cancel-signal-state.json").is_file()
    transcript = Path(stop_probe.records("Stop")[-1]["transcript_path"]).read_text()
    assert f'"name":"{OMC_STATE_CLEAR}"' in transcript
