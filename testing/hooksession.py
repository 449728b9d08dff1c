"""A scripted Claude Code session fed through tiergate's real hook entry point, in a real project.

`python -m tiergate hook <Event>` runs as a subprocess with the JSON the CLI sends, so a test exercises the
same path as Claude Code, without the CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from testing import warmstart
from testing.statefolder import state_dir, state_env
from tiergate.log import read_log
from tiergate.loop import store as state
from tiergate.loop.state import LoopState
from tiergate.project import Project

if TYPE_CHECKING:
    from collections.abc import Callable


class HookSession:
    def __init__(self, root: Path, project: Path, session_id: str) -> None:
        self.root = root
        self.project = project
        self.session_id = session_id
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": str(root / "home"),
            "CLAUDE_PROJECT_DIR": str(project),
            "PYTHONDONTWRITEBYTECODE": "1",
            # The test's own temporary folder (tests/conftest.py): what a hook killed mid-run leaves there
            # (a scratch folder, a baseline worktree) is the test's, not the machine's /tmp.
            "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
            # The test's state home (tests/conftest.py), where `state_dir` finds what the hooks wrote.
            **state_env(),
        }
        # Run in the hook's process before it starts (a resource limit, to simulate a full disk).
        self.preexec: Callable[[], None] | None = None
        # Start `python -m tiergate` cold, as Claude Code does, not forked warm (`testing.warmstart`):
        # for a test of the process itself (its parent, its imports).
        self.cold = False

    def hook(self, event: str, **fields: Any) -> dict[str, Any]:
        """The hook's JSON answer to `event` (empty when it printed nothing); it must exit 0 or 2."""
        result = self.run("hook", event, stdin=json.dumps(self.payload(event, **fields)))
        assert result.returncode in (0, 2), result.stderr
        return json.loads(result.stdout) if result.stdout.strip() else {}

    def payload(self, event: str, **fields: Any) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "cwd": str(self.project),
            "transcript_path": str(self.root / "session.jsonl"),
            "hook_event_name": event,
            "stop_hook_active": False,
            "background_tasks": [],
            **fields,
        }

    def start_hook(self, event: str, **fields: Any) -> subprocess.Popen[bytes]:
        """The hook for `event`, started and left running (to be killed mid-way, say); its input sent."""
        hook = subprocess.Popen(
            [sys.executable, "-m", "tiergate", "hook", event],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=self.env,
            cwd=self.project,
        )
        assert hook.stdin is not None
        hook.stdin.write(json.dumps(self.payload(event, **fields)).encode())
        hook.stdin.close()
        return hook

    def run(self, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        if self.preexec is None and not self.cold and not warmstart.cold():
            return warmstart.run(list(args), env=self.env, cwd=self.project, stdin=stdin, timeout=120)
        return subprocess.run(
            [sys.executable, "-m", "tiergate", *args],
            input=stdin,
            env=self.env,
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            preexec_fn=self.preexec,
        )

    def settle(self) -> None:
        """Wait for what tiergate runs in the background (the loop's baseline, begun at its start; a
        claim's checks): `tiergate wait`."""
        waited = self.run("wait")
        assert waited.returncode == 0, waited.stdout + waited.stderr

    def loop(self) -> LoopState:
        current = state.read(Project(self.project, state_dir(self.project, self.env)), self.session_id)
        assert current is not None
        return current

    def verifier_fails(self, agent_id: str, critique: str, command: str, output: str) -> dict[str, Any]:
        """The requested verifier starts, runs `command` (which printed `output`) and fails the claim with
        `critique`, every criterion MISSING; the SubagentStop hook's answer."""
        return self.verifier_says(agent_id, "FAIL", command, output, critique)

    def verifier_says(
        self,
        agent_id: str,
        verdict: str,
        command: str,
        output: str,
        critique: str = "",
        meanwhile: Callable[[], object] | None = None,
    ) -> dict[str, Any]:
        """The requested verifier starts, runs `command` (which printed `output`) and ends with `verdict`
        (a PASS with every criterion VERIFIED, else every one MISSING); `meanwhile` runs between its
        SubagentStart and its SubagentStop. The SubagentStop hook's answer."""
        verification = self.loop().verification
        assert verification is not None
        self.hook("SubagentStart", agent_id=agent_id, agent_type=verification.agent)
        if meanwhile is not None:
            meanwhile()
        status = "VERIFIED" if verdict == "PASS" else "MISSING"
        criteria = [
            {"criterion": label, "status": status, "evidence": f"$ {command} -> {output}"}
            for label in verification.evidence
        ]
        block = json.dumps({"verdict": verdict, "criteria": criteria, "critique": critique})
        transcript = verifier_transcript(self.root / f"agent-{agent_id}.jsonl", command, output)
        return self.hook(
            "SubagentStop",
            agent_id=agent_id,
            agent_type=verification.agent,
            agent_transcript_path=str(transcript),
            last_assistant_message=f"I looked.\n\n```tiergate-verdict\n{block}\n```",
        )

    def log(self) -> list[dict[str, Any]]:
        """Every record of the project's log (the hooks' and the background gate's)."""
        return list(read_log(Project(self.project, state_dir(self.project, self.env)), self.env))

    def decisions(self) -> list[dict[str, Any]]:
        log = read_log(Project(self.project, state_dir(self.project, self.env)), self.env)  # the hooks' key
        return [r for r in log if r.get("session_id") == self.session_id and "decision" in r]

    def stop_reasons(self) -> str:
        """The reasons of the session's last Stop decision, joined by spaces."""
        return " ".join([r for r in self.decisions() if r.get("event") == "Stop"][-1]["reasons"])

    def ran_at_base(self) -> bool:
        """Whether some check ran at the loop's base (its baseline file holds its result)."""
        from tiergate.gate import cache

        base = self.loop().base
        assert base is not None
        return bool(cache.load_baseline(Project(self.project, state_dir(self.project, self.env)), base))


def verifier_transcript(path: Path, command: str, output: str) -> Path:
    """A verifier's transcript showing that it ran `command` (what tiergate takes as fresh evidence)."""
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    use = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": command}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": output}
    lines = [
        {"type": "user", "timestamp": now, "message": {"role": "user", "content": "verify"}},
        {"type": "assistant", "timestamp": now, "message": {"id": "m1", "content": [use]}},
        {"type": "user", "timestamp": now, "message": {"role": "user", "content": [result]}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
