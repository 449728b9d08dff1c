"""The scripted Claude Code session: each hook event as the CLI sends it, answered by the real hook.

Every event runs `python -m tiergate hook <Event>` as its own process, as hooks.json has Claude Code run
it: the event's JSON on stdin (the fields CLI 2.1.332 sends), CLAUDE_PROJECT_DIR naming the example, the
transcripts where the CLI keeps them, and the user's environment minus what would move the demo's state.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tiergate.demo import OffScriptError
from tiergate.demo.example import GIT_ENV
from tiergate.frozen import frozen
from tiergate.text import one_line

HOOK_TIMEOUT_SECONDS = 60
# Settings of the user's that would put the demo's state outside its temporary directory, or change
# the loop's limits under the script.
_DROPPED_ENV = ("TIERGATE_STATE_DIR", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "CLAUDE_PROJECT_DIR")
# What tiergate says when it failed open: never part of the story.
_FAILED_OPEN = ("internal error", "ignored the ")


@frozen
class Answer:
    """What one hook process answered: its exit code, the JSON on its stdout ({} if none), its stderr."""

    event: str
    exit_code: int
    output: Mapping[str, Any]
    stderr: str

    @property
    def block(self) -> str | None:
        reason = self.output.get("reason")
        return reason if self.output.get("decision") == "block" and isinstance(reason, str) else None

    @property
    def context(self) -> str | None:
        specific = self.output.get("hookSpecificOutput")
        context = specific.get("additionalContext") if isinstance(specific, dict) else None
        return context if isinstance(context, str) else None

    @property
    def message(self) -> str:
        """The notice for the user (systemMessage), "" if none."""
        message = self.output.get("systemMessage")
        return message if isinstance(message, str) else ""

    def describe(self) -> str:
        """One line for a failure report: the exit code and the first thing the answer says (of its
        notices, the latest: earlier ones repeat what other events said)."""
        notices = self.message.strip().splitlines()
        said = self.block or self.context or self.stderr.strip() or (notices[-1] if notices else "")
        return f"exit {self.exit_code}, " + (f'"{one_line(said, 300)}"' if said else "no output")


class Transcript:
    """A JSON Lines transcript in the CLI's shape, appended to as the conversation goes on."""

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        self._session_id = session_id
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def user(self, content: str | list[dict[str, Any]]) -> None:
        self._append("user", {"role": "user", "content": content})

    def assistant(self, *content: dict[str, Any]) -> None:
        message = {"id": f"msg_demo_{secrets.token_hex(6)}", "role": "assistant", "content": list(content)}
        self._append("assistant", message)

    def text(self, text: str) -> None:
        self.assistant({"type": "text", "text": text})

    def bash(self, command: str, exit_code: int, output: str) -> None:
        """A Bash tool call and its result, as the CLI records a command the agent ran."""
        tool_id = f"toolu_demo_{secrets.token_hex(6)}"
        self.assistant({"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}})
        result = {
            "type": "tool_result",
            "tool_use_id": tool_id,
            "content": output,
            "is_error": exit_code != 0,
        }
        self.user([result])

    def _append(self, kind: str, message: dict[str, Any]) -> None:
        record = {
            "type": kind,
            "sessionId": self._session_id,
            "uuid": str(uuid.uuid4()),
            "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "message": message,
        }
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")


@dataclass
class Subagent:
    """A subagent of the session, and whether its last stop was sent back (exit 2)."""

    agent_id: str
    agent_type: str
    transcript: Transcript
    sent_back: bool = False


class Session:
    """One Claude Code session in the example project: the conversation as it goes on.

    `home` stands for ~/.claude: the transcripts go under its `projects/` folder."""

    def __init__(self, project: Path, home: Path) -> None:
        self.project = project
        self.id = "demo-" + uuid.uuid4().hex[:12]
        self.folder = home / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
        self.transcript = Transcript(self.folder / f"{self.id}.jsonl", self.id)
        kept = {key: value for key, value in os.environ.items() if key not in _DROPPED_ENV}
        self.env = {**kept, **GIT_ENV, "CLAUDE_PROJECT_DIR": str(project)}
        self.blocked = False  # the last Stop was blocked, so the next one has stop_hook_active

    def start(self) -> Answer:
        return self.hook("SessionStart", source="startup")

    def prompt(self, text: str) -> Answer:
        self.transcript.user(text)
        self.blocked = False
        return self.hook("UserPromptSubmit", prompt=text, permission_mode="default")

    def stop(self, message: str) -> Answer:
        """Claude ends its turn with `message` as its final text."""
        self.transcript.text(message)
        answer = self.hook(
            "Stop",
            permission_mode="default",
            stop_hook_active=self.blocked,
            last_assistant_message=message,
            background_tasks=[],
            session_crons=[],
        )
        self.blocked = answer.block is not None
        return answer

    def start_subagent(self, agent_type: str, prompt: str) -> tuple[Subagent, Answer]:
        """Claude spawns `agent_type` through the Agent tool, in the foreground."""
        agent_id = "a" + secrets.token_hex(8)
        transcript = Transcript(self.folder / self.id / "subagents" / f"agent-{agent_id}.jsonl", self.id)
        answer = self.hook("SubagentStart", agent_id=agent_id, agent_type=agent_type)
        transcript.user(prompt)
        if answer.context:
            transcript.user(answer.context)
        return Subagent(agent_id, agent_type, transcript), answer

    def stop_subagent(self, agent: Subagent, message: str) -> Answer:
        """The subagent ends its turn with `message` as its final text."""
        agent.transcript.text(message)
        answer = self.hook(
            "SubagentStop",
            permission_mode="default",
            stop_hook_active=agent.sent_back,
            agent_id=agent.agent_id,
            agent_type=agent.agent_type,
            agent_transcript_path=str(agent.transcript.path),
            last_assistant_message=message,
            background_tasks=[],
            session_crons=[],
        )
        agent.sent_back = answer.exit_code == 2
        if agent.sent_back:
            agent.transcript.user(f"SubagentStop hook feedback:\n{answer.stderr}")
        return answer

    def end(self) -> Answer:
        return self.hook("SessionEnd", reason="other")

    def hook(self, event: str, **fields: Any) -> Answer:
        payload = {
            "session_id": self.id,
            "transcript_path": str(self.transcript.path),
            "cwd": str(self.project),
            "hook_event_name": event,
            **fields,
        }
        result = self._run(["hook", event], json.dumps(payload))
        return _answer(event, result)

    def tiergate(self, *args: str) -> str:
        """A tiergate command, run in the example project as a user would from a shell: what it printed."""
        [printed] = self.tiergate_together(args)
        return printed

    def tiergate_together(self, *commands: Sequence[str]) -> list[str]:
        """tiergate commands that only read the loop's state, run at the same time rather than one after
        the other (each as `tiergate`): what each printed, in their order."""
        env = {key: value for key, value in self.env.items() if key != "CLAUDE_PROJECT_DIR"}
        deadline = time.monotonic() + HOOK_TIMEOUT_SECONDS
        started: list[subprocess.Popen[str]] = []
        try:
            for args in commands:
                started.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "tiergate", *args],
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        cwd=self.project,
                        env=env,
                        text=True,
                    )
                )
            return [_printed(*pair, deadline) for pair in zip(commands, started, strict=True)]
        finally:
            for process in started:
                if process.poll() is None:  # left behind by a command that failed or took too long
                    process.kill()
                    process.communicate()

    def _run(self, args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
        try:
            return self._process(args, stdin)
        except subprocess.TimeoutExpired:
            raise OffScriptError(f"`tiergate {' '.join(args)}` took over {HOOK_TIMEOUT_SECONDS} s") from None

    def _process(self, args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
        """`python -m tiergate ARGS` in the project, as Claude Code starts a hook; TimeoutExpired past
        HOOK_TIMEOUT_SECONDS."""
        return subprocess.run(
            [sys.executable, "-m", "tiergate", *args],
            input=stdin,
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=HOOK_TIMEOUT_SECONDS,
            check=False,
        )


def _printed(args: Sequence[str], process: subprocess.Popen[str], deadline: float) -> str:
    """What a tiergate command printed on stdout, once it exited 0; OffScriptError otherwise."""
    command = f"`tiergate {' '.join(args)}`"
    try:
        stdout, stderr = process.communicate(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise OffScriptError(f"{command} took over {HOOK_TIMEOUT_SECONDS} s") from None
    if process.returncode != 0:
        raise OffScriptError(f"{command} exited {process.returncode}: {one_line(stderr or stdout, 300)}")
    return stdout


def _answer(event: str, result: subprocess.CompletedProcess[str]) -> Answer:
    """The hook's answer, or OffScriptError if it is not one the protocol allows or tiergate failed open."""
    text = result.stdout.strip()
    try:
        output = json.loads(text) if text else {}
    except ValueError:
        output = None
    if not isinstance(output, dict):
        raise OffScriptError(
            f"the {event} hook wrote something that is not a JSON answer: {one_line(text, 300)}"
        )
    answer = Answer(event, result.returncode, output, result.stderr)
    if result.returncode not in (0, 2):
        raise OffScriptError(f"the {event} hook exited {result.returncode}: {one_line(result.stderr, 300)}")
    if any(sign in answer.message for sign in _FAILED_OPEN):
        raise OffScriptError(f"the {event} hook failed open: {one_line(answer.message, 300)}")
    return answer
