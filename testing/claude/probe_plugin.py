"""A throw-away Claude Code plugin whose hooks record what the CLI gives them and answer as a test scripts.

It pins the CLI behaviour tiergate depends on without involving tiergate: each hook writes its stdin (and the
CLAUDE* environment) to `records/`, then answers with the n-th scripted answer for its n-th firing.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from testing.claude.scripted_api import ScriptedApi, bash, text, tool_use
from testing.procwatch import shell_wait_for

ALL_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "PreCompact",
    "SessionEnd",
    "StopFailure",
)

# Runs under the test's own interpreter; stdlib only, so it costs about a bare interpreter start.
_HOOK_SCRIPT = """\
import json, os, sys
from pathlib import Path

event = sys.argv[1]
root = Path(__file__).resolve().parent.parent
records = root / "records"
records.mkdir(exist_ok=True)
payload = sys.stdin.read()
env = {k: v for k, v in os.environ.items() if k.startswith("CLAUDE")}
seq = 0
while True:
    try:
        fd = os.open(records / f"{event}-{seq:03d}.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        break
    except FileExistsError:
        seq += 1
with os.fdopen(fd, "w") as record:
    json.dump({"payload": json.loads(payload), "env": env}, record)
# A hook may be told to wait before it answers, and to note the transcript's lines as it saw them then.
delay_file = root / "delays" / f"{event}.json"
if delay_file.exists():
    import time
    time.sleep(json.loads(delay_file.read_text()))
    transcript = json.loads(payload).get("transcript_path") or ""
    seen = open(transcript).read() if os.path.isfile(transcript) else ""
    (records / f"{event}-{seq:03d}.transcript").write_text(seen)
answers_file = root / "answers" / f"{event}.json"
answers = json.loads(answers_file.read_text()) if answers_file.exists() else []
if seq < len(answers):
    answer = answers[seq]
    sys.stdout.write(answer["stdout"])
    sys.stderr.write(answer["stderr"])
    sys.exit(answer["exit_code"])
"""


@dataclass(frozen=True)
class HookAnswer:
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


def json_answer(payload: Mapping[str, Any]) -> HookAnswer:
    return HookAnswer(stdout=json.dumps(payload))


def context_answer(event: str, context: str) -> HookAnswer:
    """hookSpecificOutput.additionalContext for `event`."""
    return json_answer({"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}})


NO_ANSWER = HookAnswer()


@dataclass(frozen=True)
class ProbePlugin:
    root: Path
    name: str

    def answer(self, event: str, *answers: HookAnswer) -> None:
        """The n-th firing of `event` answers `answers[n]`; later firings answer nothing (exit 0)."""
        folder = self.root / "answers"
        folder.mkdir(exist_ok=True)
        data = [{"stdout": a.stdout, "stderr": a.stderr, "exit_code": a.exit_code} for a in answers]
        (folder / f"{event}.json").write_text(json.dumps(data))

    def delay(self, event: str, seconds: float) -> None:
        """Every firing of `event` waits `seconds` before it answers, then notes the transcript as it saw
        it (`transcript_seen`)."""
        folder = self.root / "delays"
        folder.mkdir(exist_ok=True)
        (folder / f"{event}.json").write_text(json.dumps(seconds))

    def transcript_seen(self, event: str) -> list[list[dict[str, Any]]]:
        """The transcript's records as each delayed firing of `event` saw them, in firing order."""
        files = sorted((self.root / "records").glob(f"{event}-*.transcript"))
        return [[json.loads(line) for line in path.read_text().splitlines() if line] for path in files]

    def records(self, event: str) -> list[dict[str, Any]]:
        """The payloads `event` received, in firing order."""
        return [record["payload"] for record in self._records(event)]

    def after(self, event: str) -> str:
        """A shell command that returns once `event` has fired (`procwatch.shell_wait_for`)."""
        records = shlex.quote(str(self.root / "records"))
        return shell_wait_for(f"ls {records}/{event}-*.json >/dev/null 2>&1")

    def environments(self, event: str) -> list[dict[str, str]]:
        return [record["env"] for record in self._records(event)]

    def _records(self, event: str) -> list[dict[str, Any]]:
        files = sorted((self.root / "records").glob(f"{event}-*.json"))
        return [json.loads(path.read_text()) for path in files]

    def add_agent(self, name: str, *, model: str | None, body: str, description: str = "A probe.") -> None:
        frontmatter = [f"name: {name}", f"description: {description}"]
        if model is not None:
            frontmatter.append(f"model: {model}")
        text = "---\n" + "\n".join(frontmatter) + "\n---\n" + body + "\n"
        (self.root / "agents" / f"{name}.md").write_text(text)

    def add_command(self, name: str, body: str, description: str = "A probe command.") -> None:
        (self.root / "commands" / f"{name}.md").write_text(f"---\ndescription: {description}\n---\n{body}\n")


def make_probe_plugin(
    root: Path,
    name: str = "probe",
    events: Sequence[str] = ALL_EVENTS,
    matchers: Mapping[str, str] | None = None,
) -> ProbePlugin:
    """A plugin at `root` with a recording hook on each of `events` (matchers per event where given)."""
    for folder in (".claude-plugin", "hooks", "agents", "commands", "records"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    manifest = {"name": name, "version": "0.0.1", "description": "Records hooks.", "author": {"name": "t"}}
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    (root / "hooks" / "probe_hook.py").write_text(_HOOK_SCRIPT)
    hooks = {event: [_hook_entry(event, (matchers or {}).get(event))] for event in events}
    (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=2))
    return ProbePlugin(root, name)


@pytest.fixture(name="probe")
def probe_fixture(tmp_path: Path) -> ProbePlugin:
    """A recording plugin on every event, with one agent: `probe:checker`, on haiku."""
    plugin = make_probe_plugin(tmp_path / "probe-plugin")
    plugin.add_agent("checker", model="haiku", body="You are the probe checker.")
    return plugin


def script_background_checker(api: ScriptedApi, probe: ProbePlugin) -> None:
    """The main agent launches `probe:checker` without `run_in_background: false`, says "launched", and
    "saw the result" on its next turn; the checker answers "checker verdict" only after the main turn's
    Stop, as a slow one would, whatever the machine's load."""
    launch = {"description": "verify", "prompt": "check", "subagent_type": "probe:checker"}
    api.sequence(tool_use("Agent", launch), text("launched"), text("saw the result"), thread="main")
    api.sequence(bash(f"{probe.after('Stop')}; echo slow"), text("checker verdict"), thread="subagent")


def _hook_entry(event: str, matcher: str | None) -> dict[str, Any]:
    handler = {
        "type": "command",
        "command": sys.executable,
        "args": ["${CLAUDE_PLUGIN_ROOT}/hooks/probe_hook.py", event],
    }
    return {"hooks": [handler]} if matcher is None else {"matcher": matcher, "hooks": [handler]}
