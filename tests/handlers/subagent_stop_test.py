"""The SubagentStop hook stays lean, through the real entry point in a real git project: every verifier
run ends here. No pydantic, no structlog, six git calls, and the same one-line input errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from testing import tiergatecli
from testing.gitrepo import init_repo, write
from testing.heavymodules import HEAVY
from testing.statefolder import state_dir, state_env

from tiergate.log import read_log
from tiergate.loop import store as state
from tiergate.project import Project

SESSION = "11111111-2222-3333-4444-555555555555"
AGENT = "a00000000000000a1"
CLAIM = "The parser handles empty input now.\n\n<promise>DONE</promise>"


class Verifying:
    """A project whose loop waits for the verdict of the verifier AGENT (brought there by the hooks)."""

    def __init__(self, root: Path, base_files: dict[str, str] | None = None) -> None:
        self.root = root
        files = {"src/parser.py": "def parse(t):\n    return t.split()\n", **(base_files or {})}
        self.project = init_repo(root / "project", files)
        state_dir(self.project).mkdir(parents=True)
        self.git_log = root / "git-calls.log"
        self.env = {
            "PATH": f"{self._git_shim()}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(root / "home"),
            **state_env(),
            "CLAUDE_PROJECT_DIR": str(self.project),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        self.hook("UserPromptSubmit", prompt="/tiergate:ralph fix the parser --max-iterations 4")
        (self.project / "src/parser.py").write_text("def parse(t):\n    return t.split() if t else []\n")
        reason = json.loads(self.hook("Stop", last_assistant_message=CLAIM).stdout)["reason"]
        self.agent_type = json.loads(reason.split("```tiergate-spawn\n")[1].split("\n```")[0])[
            "subagent_type"
        ]
        self.hook("SubagentStart", agent_id=AGENT, agent_type=self.agent_type)
        self.transcript = root / f"agent-{AGENT}.jsonl"
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        use = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest -q"}}
        record = {"type": "assistant", "timestamp": now, "message": {"id": "m1", "content": [use]}}
        self.transcript.write_text(json.dumps(record) + "\n")

    def _git_shim(self) -> Path:
        """A `git` first on PATH that logs each call, then runs the real one."""
        shim = self.root / "shim"
        shim.mkdir()
        real = shutil.which("git")
        assert real is not None
        (shim / "git").write_text(f'#!/bin/sh\necho "$*" >> "{self.git_log}"\nexec "{real}" "$@"\n')
        (shim / "git").chmod(0o755)
        return shim

    def hook(self, event: str, *flags: str, **fields: Any) -> subprocess.CompletedProcess[str]:
        payload = {"session_id": SESSION, "cwd": str(self.project), "hook_event_name": event, **fields}
        return tiergatecli.tiergate(
            self.project,
            *("hook", event),
            stdin=json.dumps(payload),
            environ=self.env,
            python_flags=flags,
            timeout=120,
        )

    def verdict(self) -> str:
        loop = state.read(Project(self.project, state_dir(self.project)), SESSION)
        assert loop is not None and loop.verification is not None
        criteria = [
            {"criterion": label, "status": "VERIFIED", "evidence": "$ pytest -q -> 3 passed"}
            for label in loop.verification.evidence
        ]
        block = json.dumps({"verdict": "PASS", "criteria": criteria, "critique": ""})
        return f"I ran the tests myself.\n\n```tiergate-verdict\n{block}\n```"

    def stop_verifier(self, *flags: str, **fields: Any) -> subprocess.CompletedProcess[str]:
        self.git_log.unlink(missing_ok=True)
        fields = {
            "agent_id": AGENT,
            "agent_type": self.agent_type,
            "agent_transcript_path": str(self.transcript),
            "last_assistant_message": self.verdict(),
            "stop_hook_active": False,
            **fields,
        }
        return self.hook("SubagentStop", *flags, **{k: v for k, v in fields.items() if v is not None})

    def git_calls(self) -> list[str]:
        return self.git_log.read_text().splitlines() if self.git_log.exists() else []


@pytest.fixture
def verifying(tmp_path: Path) -> Verifying:
    return Verifying(tmp_path)


def test_a_verdict_is_judged_without_pydantic_or_structlog_and_with_six_git_calls(
    verifying: Verifying,
) -> None:
    answer = verifying.stop_verifier("-X", "importtime")

    assert answer.returncode == 0, answer.stderr
    assert "returned PASS" in json.loads(answer.stdout)["systemMessage"]
    imported = {line.rsplit("|", 1)[1].strip() for line in answer.stderr.splitlines() if "|" in line}
    # (importlib.import_module, which loads the handler, is not timed; what the handler imports is.)
    assert "tiergate.hook.inputs" in imported, "the test must see the handler's imports"
    assert {name.split(".")[0] for name in imported} & HEAVY == set()
    calls = verifying.git_calls()
    # The top and HEAD; the index's flags and ctimes, the files written since the loop began entered
    # again, the diff; the base's ignore rules and the untracked files (tiergate.git: what is on disk,
    # read in a git directory of tiergate's own, where no filter is named and the config is not read).
    commands = [_subcommand(call.split()) for call in calls]
    assert commands == ["rev-parse", "ls-files", "update-index", "diff", "grep", "ls-files"], calls
    log = read_log(Project(verifying.project, state_dir(verifying.project)), verifying.env)
    [record] = [r for r in log if r["event"] == "SubagentStop"]
    assert record["decision"] == "verdict"
    assert list(record)[-2:] == ["level", "timestamp"]


def _subcommand(words: list[str]) -> str:
    while words[0].startswith("-"):
        words = words[2:] if words[0] == "-c" else words[1:]
    return words[0]


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"agent_id": None}, "SubagentStop input: agent_id: Field required"),
        ({"agent_id": 7}, "SubagentStop input: agent_id: Input should be a valid string"),
        ({"agent_type": ["x"]}, "SubagentStop input: agent_type: Input should be a valid string"),
        (
            {"last_assistant_message": 1, "agent_transcript_path": False},
            "SubagentStop input: last_assistant_message: Input should be a valid string (and 1 more)",
        ),
    ],
)
def test_an_input_that_does_not_fit_is_ignored_with_one_line(
    verifying: Verifying, fields: dict[str, Any], error: str
) -> None:
    answer = verifying.stop_verifier(**fields)  # a None value leaves the field out

    assert answer.returncode == 0
    message = json.loads(answer.stdout)["systemMessage"]
    assert message == f"tiergate: ignored the SubagentStop event: {error}"
    loop = state.read(Project(verifying.project, state_dir(verifying.project)), SESSION)
    assert loop is not None and loop.phase == "verifying"  # nothing decided on a broken input


def test_a_verifier_that_adds_modifies_and_deletes_files_is_disqualified_naming_each(tmp_path: Path) -> None:
    verifying = Verifying(tmp_path, {"docs/guide.md": "guide\n", "README.md": "readme\n"})
    write(verifying.project, {"tests/test_empty.py": "def test(): pass\n", "README.md": "tidied\n"})
    (verifying.project / "docs/guide.md").unlink()

    answer = verifying.stop_verifier()

    assert answer.returncode == 0, answer.stderr
    named = "added tests/test_empty.py; modified README.md; deleted docs/guide.md"
    message = json.loads(answer.stdout)["systemMessage"]
    assert "changed the workspace while verifying and was disqualified" in message
    assert named in message
    project = Project(verifying.project, state_dir(verifying.project))
    [record] = [r for r in read_log(project, verifying.env) if r["event"] == "SubagentStop"]
    assert record["decision"] == "request-again"
    assert any(named in reason for reason in record["reasons"]), record["reasons"]
    # Claude learns it with the next spawn directive; the start's manifest is gone with its run.
    reason = json.loads(verifying.hook("Stop", last_assistant_message="Done.").stdout)["reason"]
    assert named in reason and "verification v2" in reason
    assert list((state_dir(verifying.project) / "manifests").iterdir()) == []


def test_a_verifier_that_ran_no_command_is_not_disqualified_for_a_change_someone_else_made(
    verifying: Verifying,
) -> None:
    """The root cause of the intermittent false disqualification: whoever changed the workspace while
    the verifier ran (the main agent beside a background verifier, the user, a watcher), the verifier
    was blamed. Its own transcript shows no command, so it changed nothing: it is judged as usual."""
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    answer = {"type": "assistant", "timestamp": now, "message": {"id": "m1", "content": [{"type": "text"}]}}
    verifying.transcript.write_text(json.dumps(answer) + "\n")
    write(verifying.project, {"notes.md": "the main agent writes while the verifier runs\n"})

    first = verifying.stop_verifier()

    assert first.returncode == 2, first.stderr  # sent back for the command it did not run
    assert "no command you ran yourself" in first.stderr
    project = Project(verifying.project, state_dir(verifying.project))
    [record] = [r for r in read_log(project, verifying.env) if r["event"] == "SubagentStop"]
    assert record["decision"] == "redo"
    moved = record["reasons"][0]
    assert moved.startswith("workspace-moved:") and "added notes.md" in moved and "ran no command" in moved
    # Sent back, it runs the tests on the workspace as it now is: measured from there, it passes.
    use = {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "pytest -q"}}
    call = {"type": "assistant", "timestamp": now, "message": {"id": "m2", "content": [use]}}
    with verifying.transcript.open("a") as f:
        f.write(json.dumps(call) + "\n")
    second = verifying.stop_verifier()
    assert second.returncode == 0, second.stderr
    assert "returned PASS" in json.loads(second.stdout)["systemMessage"]
    decided = [r["decision"] for r in read_log(project, verifying.env) if r["event"] == "SubagentStop"]
    assert decided == ["redo", "verdict"]
