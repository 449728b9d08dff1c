"""The loop's hook adapters, through the real entry point (`python -m tiergate hook <Event>`) in real git
repositories: what each event answers, what it stores, and that other sessions are left alone."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from testing import tiergatecli
from testing.gitrepo import init_repo, write
from testing.statefolder import state_dir, state_env

from tiergate.log import LogRecords, read_log
from tiergate.loop import store as state
from tiergate.loop.state import LoopState, new_loop
from tiergate.project import Project

SESSION = "11111111-2222-3333-4444-555555555555"
OTHER = "99999999-8888-7777-6666-555555555555"
LOW = "tiergate:architect-low"
HEAVY = {"pydantic", "structlog", "filelock", "argparse", "dataclasses", "subprocess"}
CLAIM = "The parser handles empty input now; tests pass.\n\n<promise>DONE</promise>"


@dataclass(frozen=True)
class Answer:
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict[str, Any]:
        assert self.stdout.strip(), f"no answer (stderr: {self.stderr})"
        answer: dict[str, Any] = json.loads(self.stdout)
        return answer

    @property
    def block(self) -> str:
        assert self.json.get("decision") == "block", self.json
        reason: str = self.json["reason"]
        return reason

    @property
    def context(self) -> str:
        context: str = self.json["hookSpecificOutput"]["additionalContext"]
        return context

    @property
    def message(self) -> str:
        message: str = self.json["systemMessage"]
        return message

    @property
    def silent(self) -> bool:
        return self.returncode == 0 and self.stdout == ""


@dataclass
class Sandbox:
    root: Path
    project: Path
    env: dict[str, str]
    agents: int = 0

    @property
    def state(self) -> Project:
        return Project(root=self.project, state_dir=state_dir(self.project))

    def log(self) -> LogRecords:
        """The log's records, their seals checked with the key of the hooks' HOME."""
        return read_log(self.state, self.env)

    def hook(
        self, event: str, session: str = SESSION, python_flags: tuple[str, ...] = (), **fields: Any
    ) -> Answer:
        payload = {
            "session_id": session,
            "cwd": str(self.project),
            "transcript_path": str(self.root / f"{session}.jsonl"),
            "hook_event_name": event,
            **fields,
        }
        if event in ("Stop", "SubagentStop"):
            payload.setdefault("stop_hook_active", False)
            payload.setdefault("background_tasks", [])
        result = tiergatecli.tiergate(
            self.project,
            *("hook", event),
            stdin=json.dumps(payload),
            environ=self.env,
            python_flags=python_flags,
            timeout=120,
        )
        return Answer(result.returncode, result.stdout, result.stderr)

    def tiergate(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return tiergatecli.tiergate(self.project, *args, stdin=stdin, environ=self.env, timeout=120)

    def start(self, task: str = "Fix the parser bug: parse('') crashes", session: str = SESSION) -> Answer:
        answer = self.hook("UserPromptSubmit", session, prompt=f"/tiergate:ralph {task} --max-iterations 4")
        assert "loop started" in answer.message, answer
        return answer

    def stop(self, message: str = "Still working.", session: str = SESSION, **fields: Any) -> Answer:
        return self.hook("Stop", session, last_assistant_message=message, **fields)

    def claim(self, session: str = SESSION) -> dict[str, Any]:
        """Change the code, claim, and return the spawn directive."""
        write(self.project, {"src/parser.py": "def parse(text):\n    return text.split() if text else []\n"})
        return spawn_directive(self.stop(CLAIM, session).block)

    def start_verifier(self, agent_type: str | None = None, session: str = SESSION) -> tuple[str, Answer]:
        """Start a verifier: by default the one the pending verification asks for."""
        agent_type = agent_type or self.requested_agent()
        self.agents += 1
        agent_id = f"a{self.agents:016x}"
        return agent_id, self.hook("SubagentStart", session, agent_id=agent_id, agent_type=agent_type)

    def stop_verifier(
        self,
        agent_id: str,
        message: str,
        commands: tuple[str, ...] = ("pytest -q",),
        agent_type: str | None = None,
        model: str | None = None,
    ) -> Answer:
        agent_type = self.requested_agent() if agent_type is None else agent_type
        transcript = self.root / f"agent-{agent_id}.jsonl"
        write_transcript(transcript, commands)
        if model is not None:
            meta = {"agentType": agent_type, "model": model, "finished": True}
            transcript.with_suffix(".meta.json").write_text(json.dumps(meta))
        return self.hook(
            "SubagentStop",
            agent_id=agent_id,
            agent_type=agent_type,
            agent_transcript_path=str(transcript),
            last_assistant_message=message,
        )

    def requested_agent(self) -> str:
        verification = self.loop().verification
        return LOW if verification is None else verification.agent

    def loop(self, session: str = SESSION) -> LoopState:
        current = state.read(self.state, session)
        assert current is not None
        return current


def write_transcript(path: Path, commands: tuple[str, ...]) -> None:
    """A verifier transcript in the CLI's shape: each command a Bash tool_use and its tool_result."""
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    lines = [{"type": "user", "timestamp": now, "message": {"role": "user", "content": "verify"}}]
    for i, command in enumerate(commands):
        use = {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": {"command": command}}
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": "3 passed"}
        lines.append({"type": "assistant", "timestamp": now, "message": {"id": f"m{i}", "content": [use]}})
        lines.append({"type": "user", "timestamp": now, "message": {"role": "user", "content": [result]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def spawn_directive(reason: str) -> dict[str, Any]:
    (body,) = re.findall(r"```tiergate-spawn\n(.*?)\n```", reason, re.DOTALL)
    directive: dict[str, Any] = json.loads(body)
    return directive


def verdict(kind: str, labels: list[str], prose: str = "I ran the checks myself.", critique: str = "") -> str:
    criteria = [
        {"criterion": label, "status": "VERIFIED", "evidence": "$ pytest -q -> 3 passed"} for label in labels
    ]
    if kind != "PASS":
        criteria[-1]["status"] = "MISSING"
    block = json.dumps({"verdict": kind, "criteria": criteria, "critique": critique})
    return f"{prose}\n\n```tiergate-verdict\n{block}\n```"


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    project = init_repo(
        tmp_path / "project",
        {"README.md": "hi\n", "src/parser.py": "def parse(text):\n    return text.split()\n"},
    )
    state_dir(project).mkdir(parents=True)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path / "home"),
        **state_env(),
        "CLAUDE_PROJECT_DIR": str(project),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return Sandbox(tmp_path, project, env)


def labels(sandbox: Sandbox) -> list[str]:
    verification = sandbox.loop().verification
    assert verification is not None
    return list(verification.evidence)


# Starting, and sessions without a loop --------------------------------------------------------------------


def test_a_session_without_a_loop_is_answered_with_nothing_and_imports_nothing_heavy(
    sandbox: Sandbox,
) -> None:
    sandbox.start(session=OTHER)
    answer = sandbox.stop(CLAIM, python_flags=("-X", "importtime"))
    assert (answer.returncode, answer.stdout) == (0, "")
    imported = {line.rsplit("|", 1)[1].strip() for line in answer.stderr.splitlines() if "|" in line}
    assert "tiergate.handlers" in imported, "the test must see the handler's imports"
    assert imported & HEAVY == set()
    assert not {name for name in imported if name.startswith("tiergate.")} - {
        "tiergate.main",
        "tiergate.hook",
        "tiergate.hook.entry",
        "tiergate.hook.registry",
        "tiergate.project",
        "tiergate.seal",  # the user's state home, where the state folder is (os only)
        "tiergate.handlers",
    }
    assert state.read(sandbox.state, SESSION) is None


def test_ralph_starts_a_loop_that_sends_claude_back_until_it_claims(sandbox: Sandbox) -> None:
    started = sandbox.start()
    assert "Fix the parser bug" in started.context and "<promise>DONE</promise>" in started.context
    reason = sandbox.stop("I looked at the parser.").block
    assert "iteration 2/4" in reason and "Fix the parser bug" in reason
    loop = sandbox.loop()
    assert (loop.phase, loop.iteration, loop.max_iterations) == ("working", 2, 4)
    records = [r for r in sandbox.log() if r.get("session_id") == SESSION]
    assert [r["decision"] for r in records] == ["start", "continue"]
    assert all(r["reasons"] for r in records)


def test_merely_mentioning_the_command_starts_nothing(sandbox: Sandbox) -> None:
    answer = sandbox.hook("UserPromptSubmit", prompt="how does /tiergate:ralph work? ralph it")
    assert answer.silent
    assert state.read(sandbox.state, SESSION) is None


def plain_sandbox(tmp_path: Path) -> Sandbox:
    """A project outside git, with a state folder (so the hooks do not take the fast path)."""
    project = tmp_path / "plain"
    project.mkdir()
    state_dir(project).mkdir(parents=True)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "CLAUDE_PROJECT_DIR": str(project),
        **state_env(),
    }
    return Sandbox(tmp_path, project, env)


def test_a_loop_needs_a_git_repository(tmp_path: Path) -> None:
    sandbox = plain_sandbox(tmp_path)
    answer = sandbox.hook("UserPromptSubmit", prompt="/tiergate:ralph fix it")
    assert "cannot start a loop" in answer.message and "not a git repository" in answer.message
    assert "did not start a loop" in answer.context


def test_bad_arguments_start_nothing_and_say_so(sandbox: Sandbox) -> None:
    answer = sandbox.hook("UserPromptSubmit", prompt="/tiergate:ralph fix it --max-iterations zero")
    assert "whole number" in answer.message and "did not start a loop" in answer.context
    assert state.read(sandbox.state, SESSION) is None


def test_a_loop_started_from_the_shell_binds_to_the_next_session(sandbox: Sandbox) -> None:
    result = sandbox.tiergate(
        "ralph", "start", "Add CSV export", "--max-iterations", "7", "--promise", "SHIPPED"
    )
    assert result.returncode == 0 and "loop pending" in result.stdout
    answer = sandbox.hook("SessionStart", OTHER, source="startup")
    assert "Add CSV export" in answer.context and "<promise>SHIPPED</promise>" in answer.context
    assert "now runs in this session" in answer.message
    bound = sandbox.loop(OTHER)
    assert (bound.max_iterations, bound.promise, bound.session_id) == (7, "SHIPPED", OTHER)
    assert sandbox.hook("SessionStart", SESSION, source="startup").silent  # taken: nothing left for others
    status = json.loads(sandbox.tiergate("status", "--json").stdout)
    assert [(s["session_id"], s["phase"], s["iteration"]) for s in status] == [(OTHER, "working", 1)]


# The claim and the verifier -------------------------------------------------------------------------------


def test_a_claim_is_measured_and_answered_with_the_spawn_directive(sandbox: Sandbox) -> None:
    sandbox.start()
    directive = sandbox.claim()
    assert directive["subagent_type"].startswith("tiergate:architect") and directive["model"] in (
        "haiku",
        "sonnet",
        "opus",
    )
    loop = sandbox.loop()
    assert loop.phase == "verifying" and loop.verification is not None
    assert "verification v1" in directive["prompt"] and loop.verification.files_changed == 1
    assert "test showing the fix passes now" in loop.verification.evidence  # the task says "Fix"


def test_a_security_path_gets_the_thorough_verifier_whatever_the_prompt_says(sandbox: Sandbox) -> None:
    sandbox.start("quick trivial tweak to the login")
    write(sandbox.project, {"src/auth/login.py": "def login(user):\n    return user is not None\n"})
    directive = spawn_directive(sandbox.stop(CLAIM).block)
    assert (directive["subagent_type"], directive["model"]) == ("tiergate:architect", "opus")
    assert sandbox.loop().tier == "THOROUGH"


def test_a_verified_pass_lets_the_next_stop_through_and_finalizes(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.claim()
    agent_id, started = sandbox.start_verifier()
    assert "evidence packet for verification v1" in started.context
    assert "Fix the parser bug" in started.context
    passed = sandbox.stop_verifier(agent_id, verdict("PASS", labels(sandbox)))
    assert passed.returncode == 0 and "returned PASS" in passed.message
    final = sandbox.stop("The verifier passed it.")
    assert "loop finished" in final.message and "decision" not in final.json
    assert sandbox.stop("Anything else?").silent
    status = json.loads(sandbox.tiergate("status", "--json").stdout)
    assert [(s["phase"], s["verdict"], s["active"]) for s in status] == [("passed", "PASS", False)]
    history = json.loads(sandbox.tiergate("history", "--json").stdout)
    (row,) = history["verifications"]
    assert (row["verdict"], row["id"], row["agent"], row["files_changed"]) == ("PASS", "v1", row["agent"], 1)
    assert row["duration_s"] is not None and history["total"]["ran"] == 1


def test_a_hedged_pass_is_sent_back_to_the_verifier_with_exit_2(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.claim()
    agent_id, _ = sandbox.start_verifier()
    hedged = sandbox.stop_verifier(agent_id, verdict("PASS", labels(sandbox), prose="It should work now."))
    assert hedged.returncode == 2 and "hedging" in hedged.stderr and '"should"' in hedged.stderr
    assert sandbox.loop().phase == "verifying"
    fixed = sandbox.stop_verifier(agent_id, verdict("PASS", labels(sandbox)))
    assert fixed.returncode == 0 and sandbox.loop().phase == "passed"


def test_a_pass_without_a_command_the_verifier_ran_is_sent_back(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.claim()
    agent_id, _ = sandbox.start_verifier()
    answer = sandbox.stop_verifier(agent_id, verdict("PASS", labels(sandbox)), commands=())
    assert answer.returncode == 2 and "no command you ran yourself" in answer.stderr


def test_a_fail_critique_reaches_claude_at_its_next_stop(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.claim()
    agent_id, _ = sandbox.start_verifier()
    failed = sandbox.stop_verifier(
        agent_id, verdict("FAIL", labels(sandbox), critique="parse(None) still raises TypeError")
    )
    assert failed.returncode == 0 and "returned FAIL" in failed.message
    reason = sandbox.stop("Let me look at the result.").block
    assert "parse(None) still raises TypeError" in reason and "iteration 2/4" in reason


def test_a_verifier_that_edits_a_file_is_disqualified_and_the_verification_requested_again(
    sandbox: Sandbox,
) -> None:
    sandbox.start()
    sandbox.claim()
    agent_id, _ = sandbox.start_verifier()
    write(sandbox.project, {"src/parser.py": "# the verifier 'fixed' it\n"})
    answer = sandbox.stop_verifier(agent_id, verdict("PASS", labels(sandbox)))
    assert answer.returncode == 0 and "changed the workspace" in answer.message
    loop = sandbox.loop()
    assert loop.phase == "verifying" and loop.verdict is None
    assert loop.verification is not None and loop.verification.id == "v2"
    reason = sandbox.stop("The verifier passed.").block
    assert "disqualified" in reason and "verification v2" in spawn_directive(reason)["prompt"]


def test_a_verifier_run_on_a_weaker_model_is_disqualified(sandbox: Sandbox) -> None:
    sandbox.start()
    write(sandbox.project, {"src/auth/session.py": "TTL = 60\n"})  # THOROUGH: opus
    sandbox.stop(CLAIM)
    agent_id, _ = sandbox.start_verifier()
    answer = sandbox.stop_verifier(agent_id, verdict("PASS", labels(sandbox)), model="claude-haiku-5-5")
    assert answer.returncode == 0 and "ran on claude-haiku-5-5, weaker than the opus" in answer.message
    assert sandbox.loop().verdict is None and sandbox.loop().phase == "verifying"
    history = json.loads(sandbox.tiergate("history", "--json").stdout)["verifications"]
    assert [(v["verdict"], v["model"]) for v in history] == [("DISQUALIFIED", "opus"), ("requested", "opus")]


def test_a_verdict_written_by_the_main_agent_never_counts(sandbox: Sandbox) -> None:
    sandbox.start()
    reason = sandbox.stop(verdict("PASS", ["everything"]) + "\n<promise>DONE</promise>").block
    assert "tiergate-spawn" in reason  # a claim, so a verifier is asked for; the block is ignored
    assert "only the verdict of the verifier" in reason
    assert sandbox.loop().verdict is None and sandbox.loop().phase == "verifying"


def test_verifier_events_without_their_start_or_of_a_fork_are_ignored(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.claim()
    before = sandbox.loop()
    unmatched = sandbox.stop_verifier("a-never-started", verdict("PASS", labels(sandbox)))
    phantom = sandbox.stop_verifier("a-fork", "summary", agent_type="")
    assert unmatched.silent and phantom.silent
    assert sandbox.loop() == before


def test_a_lower_tier_verifier_cannot_answer(sandbox: Sandbox) -> None:
    sandbox.start()
    write(sandbox.project, {"src/auth/token.py": "TOKEN_TTL = 60\n"})
    sandbox.stop(CLAIM)
    _, answer = sandbox.start_verifier(LOW)
    assert "asks for tiergate:architect " in answer.context
    verification = sandbox.loop().verification
    assert verification is not None and verification.runs == ()


# Termination and isolation ----------------------------------------------------------------------------------


def test_a_second_session_in_the_project_is_untouched(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.claim()
    assert sandbox.stop(CLAIM, OTHER).silent
    assert sandbox.hook("SubagentStart", OTHER, agent_id="a1", agent_type=LOW).silent
    assert sandbox.hook("UserPromptSubmit", OTHER, prompt="hello").silent
    assert state.read(sandbox.state, OTHER) is None
    assert sandbox.loop().phase == "verifying"


def test_slash_cancel_ends_the_loop_and_the_next_stop_goes_through(sandbox: Sandbox) -> None:
    sandbox.start()
    answer = sandbox.hook("UserPromptSubmit", prompt="/tiergate:cancel")
    assert "loop cancelled" in answer.message and "cancelled the loop" in answer.context
    assert sandbox.stop("ok").silent
    assert sandbox.loop().phase == "cancelled"
    again = sandbox.hook("UserPromptSubmit", prompt="/tiergate:cancel")
    assert "nothing to cancel" in again.message


def test_tiergate_cancel_ends_every_loop_of_the_project(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.start(session=OTHER)
    result = sandbox.tiergate("cancel")
    assert result.returncode == 0 and result.stdout.count("cancelled the loop") == 2
    assert sandbox.stop("ok").silent and sandbox.stop("ok", OTHER).silent
    assert "nothing to cancel" in sandbox.tiergate("cancel").stdout


def test_the_iteration_cap_halts_the_loop_and_tells_the_user(sandbox: Sandbox) -> None:
    sandbox.start()
    for i in range(3):
        write(sandbox.project, {"notes.txt": f"step {i}\n"})  # progress, so only the cap can end it
        assert sandbox.stop(f"step {i}").block
    halted = sandbox.stop("step 4")
    assert "decision" not in halted.json and "loop halted" in halted.message and "cap" in halted.message
    assert sandbox.loop().phase == "halted"
    assert sandbox.stop("step 5").silent


def test_an_api_error_and_background_work_are_never_blocked(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.hook("StopFailure", error="rate_limit", last_assistant_message="")
    assert "API error (rate_limit)" in sandbox.stop("...").message
    running = [{"id": "a1", "type": "subagent", "status": "running", "description": "Verify claim v1"}]
    assert sandbox.stop("waiting", background_tasks=running).silent
    assert sandbox.stop("back").block  # the loop itself goes on


def test_an_api_error_lets_through_only_a_stop_of_the_turn_it_ended(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.hook("StopFailure", error="rate_limit", prompt_id="p1", last_assistant_message="API Error")
    assert sandbox.loop().interrupted_turn == "p1"
    same_turn = sandbox.stop("...", prompt_id="p1")
    assert "decision" not in same_turn.json and "API error (rate_limit)" in same_turn.message
    # The rate limit ends turn p1; the user resumes (turn p3) and Claude claims: the claim is verified.
    sandbox.hook("StopFailure", error="rate_limit", prompt_id="p2", last_assistant_message="API Error")
    assert sandbox.hook("UserPromptSubmit", prompt="go on", prompt_id="p3").silent
    write(sandbox.project, {"src/parser.py": "def parse(text):\n    return text.split() if text else []\n"})
    directive = spawn_directive(sandbox.stop(CLAIM, prompt_id="p3").block)
    assert directive["subagent_type"].startswith("tiergate:architect")
    assert directive["run_in_background"] is False
    decisions = [(r["event"], r["decision"]) for r in sandbox.log() if r.get("session_id") == SESSION]
    assert decisions[1:] == [
        ("StopFailure", "recorded"),
        ("Stop", "pass"),
        ("StopFailure", "recorded"),
        ("UserPromptSubmit", "user-prompt"),
        ("Stop", "spawn"),
    ]


def test_a_task_notification_is_logged_as_such_not_as_the_user(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.stop("one")
    before = sandbox.loop()
    notification = (
        "<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n</task-notification>"
    )
    assert sandbox.hook("UserPromptSubmit", prompt=notification, prompt_id="p9").silent
    assert sandbox.hook("UserPromptSubmit", prompt="  " + notification).silent
    assert sandbox.loop() == before  # the no-progress count goes on
    assert sandbox.hook("UserPromptSubmit", prompt="and now from me").silent
    records = [r for r in sandbox.log() if r["event"] == "UserPromptSubmit"]
    assert [r["decision"] for r in records] == [
        "start",
        "task-notification",
        "task-notification",
        "user-prompt",
    ]
    assert "not the user" in records[1]["reasons"][0]


def test_a_prompt_in_a_loop_session_imports_only_what_a_prompt_needs(sandbox: Sandbox) -> None:
    sandbox.start()
    answer = sandbox.hook("UserPromptSubmit", prompt="and now from me", python_flags=("-X", "importtime"))
    assert answer.silent
    # Every prompt of a loop session pays for its imports: not typing, not git, not the verifiers' half of
    # the loop, not the parsers of the foreign loops' commands (this prompt is none of them).
    imported = {line.rsplit("|", 1)[1].strip() for line in answer.stderr.splitlines() if "|" in line}
    assert "tiergate.loop.store" in imported, "the test must see the handler's imports"
    assert imported & (HEAVY - {"dataclasses"}) == set()
    assert imported & {"typing", "tiergate.git", "tiergate.loop.adoption", "tiergate.loop.verifiers"} == set()
    records = [r for r in sandbox.log() if r["event"] == "UserPromptSubmit"]
    assert [r["decision"] for r in records] == ["start", "user-prompt"]


def test_compaction_and_the_session_end_leave_one_record_each_in_a_loop_session(sandbox: Sandbox) -> None:
    sandbox.start()
    assert sandbox.hook("PreCompact", trigger="manual", custom_instructions="keep it").silent
    end = sandbox.hook("SessionEnd", reason="other", python_flags=("-X", "importtime"))
    assert end.silent
    # Claude Code gives SessionEnd hooks 1.5 s: the record costs a state read and one appended line. Nothing
    # is run (no git, no check: no subprocess), nothing is measured, no heavy library is loaded.
    imported = {line.rsplit("|", 1)[1].strip() for line in end.stderr.splitlines() if "|" in line}
    assert "tiergate.loop.store" in imported, "the test must see the handler's imports"
    assert imported & (HEAVY - {"dataclasses"}) == set()
    assert "typing" not in imported
    assert {n for n in imported if n.startswith(("tiergate.git", "tiergate.gate", "tiergate.tier"))} == set()
    assert sandbox.hook("PreCompact", OTHER, trigger="auto").silent  # no loop there: nothing
    assert sandbox.hook("SessionEnd", OTHER, reason="other").silent
    records = [r for r in sandbox.log() if r["event"] in ("PreCompact", "SessionEnd")]
    assert [(r["event"], r["decision"], r["session_id"]) for r in records] == [
        ("PreCompact", "compaction", SESSION),
        ("SessionEnd", "session-end", SESSION),
    ]
    assert "compaction (manual)" in records[0]["reasons"][0]
    assert records[1]["phase"] == "working" and sandbox.loop().active


def test_a_session_on_its_way_out_does_not_take_a_loop_started_from_the_shell(sandbox: Sandbox) -> None:
    assert sandbox.tiergate("ralph", "start", "Add CSV export").returncode == 0
    assert sandbox.hook("SessionEnd", OTHER, reason="other").silent
    assert state.read(sandbox.state, OTHER) is None
    assert sandbox.hook("PreCompact", SESSION, trigger="auto").silent
    bound = state.read(sandbox.state, SESSION)  # any other event of a session takes it
    assert bound is not None and bound.task == "Add CSV export" and bound.active
    records = [(r["event"], r["decision"]) for r in sandbox.log() if r.get("session_id") == SESSION]
    assert records == [("PreCompact", "bind"), ("PreCompact", "compaction")]


def test_after_compaction_session_start_restates_the_loop(sandbox: Sandbox) -> None:
    sandbox.start()
    sandbox.claim()
    context = sandbox.hook("SessionStart", source="compact").context
    assert "tiergate loop active (iteration 1/4, phase verifying)" in context
    assert "compacted" in context and "Fix the parser bug" in context
    assert "<promise>DONE</promise>" in context
    assert "verification v1" in context and sandbox.requested_agent() in context
    assert "Never write a tiergate-verdict block yourself" in context


def test_a_configuration_broken_during_the_loop_does_not_matter_to_it(sandbox: Sandbox) -> None:
    # The loop kept the rules it started with: the claim is checked with them, the edit is the change.
    sandbox.start()
    (sandbox.project / ".tiergate.toml").write_text("[tiers]\nno_such_key = 1\n")
    write(sandbox.project, {"src/parser.py": "x = 1\n"})
    answer = sandbox.stop(CLAIM)
    assert "```tiergate-spawn" in answer.block and "could not check" not in answer.block
    assert not [r for r in sandbox.log() if r.get("event") == "claim_check_error"]


def test_an_error_while_checking_a_claim_blocks_once_then_halts(sandbox: Sandbox) -> None:
    sandbox.start()
    # The loop's kept configuration damaged on disk: the claim cannot be checked with it.
    broken = replace(sandbox.loop(), config={"tiers": {"no_such_key": 1}})
    state.update(sandbox.state, SESSION, lambda _: (broken, None))
    write(sandbox.project, {"src/parser.py": "x = 1\n"})
    first = sandbox.stop(CLAIM)
    assert "could not check your completion claim" in first.block and "internal error" in first.message
    assert first.message.endswith(f"details in the log ({sandbox.state.state_dir / 'log.jsonl'})")
    second = sandbox.stop(CLAIM)
    assert "decision" not in second.json and "loop halted" in second.message
    errors = [r for r in sandbox.log() if r.get("event") == "claim_check_error"]
    assert errors and "no_such_key" in errors[0]["error"] and "Traceback" in errors[0]["traceback"]


def test_many_hook_processes_at_once_lose_no_update(tmp_path: Path) -> None:
    # Outside git there is no fingerprint, so no block counts as idle and every Stop must advance the loop.
    sandbox = plain_sandbox(tmp_path)
    start = new_loop(SESSION, "count", now=time.time(), base=None, promise="DONE", max_iterations=100)
    state.update(sandbox.state, SESSION, lambda _: (start, None))
    processes = 16
    with ThreadPoolExecutor(processes) as pool:
        answers = list(pool.map(lambda i: sandbox.stop(f"turn {i}"), range(processes)))
    iterations = sorted(int(re.search(r"iteration (\d+)/100", a.block).group(1)) for a in answers)  # type: ignore[union-attr]
    assert iterations == list(range(2, 2 + processes))
    assert sandbox.loop().iteration == 1 + processes
    assert sum(1 for r in sandbox.log() if r.get("decision") == "continue") == processes


def test_a_lowered_claude_code_block_cap_lowers_the_no_progress_limit(sandbox: Sandbox) -> None:
    sandbox.env["CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"] = "2"
    sandbox.start()
    assert sandbox.stop("one").block and sandbox.stop("two").block
    halted = sandbox.stop("three")
    assert "decision" not in halted.json and "no progress: 3 stops in a row" in halted.message
