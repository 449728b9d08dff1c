"""Scripted replies of a model that does what tiergate asks: spawn the verifier the Stop hook names, and,
as that verifier, answer with a verdict block covering the evidence its packet requires.

These read tiergate's texts the way a model would (the fenced `tiergate-spawn` block, the packet's list of
required evidence), so a test drives the same path a real session takes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from testing.claude.scripted_api import ApiRequest, Reply, Rule, ScriptedApi, agent, bash, text, tool_use

_SPAWN = re.compile(r"^```tiergate-spawn[ \t]*\n(?P<body>.*?)\n```[ \t]*$", re.MULTILINE | re.DOTALL)
_PACKET_ID = re.compile(r"tiergate evidence packet for verification (?P<id>[^\s(),]+)")
_REQUIRED = re.compile(r'^- "(?P<label>[^"]+)" \(asked by', re.MULTILINE)
_EVIDENCE_HEADING = "EVIDENCE YOU MUST PRODUCE"
# What the scripted implementer claims, and the evidence its scripted verifier reports for hello.py.
CLAIM = "The work is done.\n<promise>DONE</promise>"
EVIDENCE = "ran `python3 hello.py`: it printed hello, exit code 0"
# What the scripted implementer says once its verifier's verdict is back.
ANSWERED = "The verifier has answered."


def spawn_directive(message: str) -> dict[str, Any] | None:
    """The JSON object of the last `tiergate-spawn` block in `message`, if any."""
    blocks = list(_SPAWN.finditer(message))
    return json.loads(blocks[-1].group("body")) if blocks else None


def follow_spawn_directive(request: ApiRequest) -> Reply:
    """Spawn the verifier exactly as the last Stop feedback says, in the foreground."""
    directive = spawn_directive(request.last_user_text())
    if directive is None:
        return text("(scripted model: there is no tiergate-spawn block to follow)")
    return agent(
        directive["subagent_type"],
        directive["prompt"],
        directive["description"],
        model=directive["model"],
    )


def packet_of(request: ApiRequest) -> str:
    """The evidence packet in a verifier's request ("" if none reached it)."""
    conversation = request.conversation_text()
    start = conversation.find("tiergate evidence packet for verification")
    return conversation[start:] if start >= 0 else ""


def verification_id(request: ApiRequest) -> str | None:
    match = _PACKET_ID.search(packet_of(request))
    return match.group("id") if match else None


def required_evidence(request: ApiRequest) -> list[str]:
    """The labels the packet says the verdict must name, one criterion each."""
    packet = packet_of(request)
    section = packet[packet.find(_EVIDENCE_HEADING) :] if _EVIDENCE_HEADING in packet else ""
    return [m.group("label") for m in _REQUIRED.finditer(section)]


def verdict_message(
    verdict: str,
    criteria: Sequence[tuple[str, str, str]],
    *,
    critique: str = "",
    verification: str | None = None,
    prose: str = "I ran the checks myself.",
) -> str:
    """A verifier's final message: prose, then one `tiergate-verdict` block."""
    body: dict[str, Any] = {
        "verdict": verdict,
        "criteria": [{"criterion": c, "status": s, "evidence": e} for c, s, e in criteria],
        "critique": critique,
    }
    if verification is not None:
        body = {"verification_id": verification, **body}
    return f"{prose}\n\n```tiergate-verdict\n{json.dumps(body)}\n```"


def passing_verdict(evidence: str) -> Callable[[ApiRequest], Reply]:
    """A reply function: PASS with every required label VERIFIED by `evidence` (quoted command output)."""

    def reply(request: ApiRequest) -> Reply:
        labels = required_evidence(request) or ["the task is done"]
        criteria = [(label, "VERIFIED", evidence) for label in labels]
        return text(verdict_message("PASS", criteria, verification=verification_id(request)))

    return reply


def follow_tiergate(api: ScriptedApi) -> None:
    """The main thread spawns the verifier each `tiergate-spawn` block asks for, and says ANSWERED once the
    verifier's verdict is back."""
    api.script(
        Rule(follow_spawn_directive, thread="main", last_user_contains="```tiergate-spawn", name="spawn"),
        Rule(text(ANSWERED), thread="main", last_user_contains="tiergate-verdict"),
    )


def verify_by_running(api: ScriptedApi, command: str, evidence: str) -> None:
    """The verifier runs `command`, then passes every label its packet requires with `evidence`."""
    api.on(bash(command), thread="subagent", after_tool_result=False)
    api.on(passing_verdict(evidence), thread="subagent")


def script_implementer(api: ScriptedApi, project: Path, files: dict[str, str]) -> None:
    """Write `files`, stop without a claim, claim when sent back to work, spawn the verifier when asked."""
    writes = [
        tool_use("Write", {"file_path": str(project / name), "content": body}) for name, body in files.items()
    ]
    api.script(
        Rule(follow_spawn_directive, thread="main", last_user_contains="```tiergate-spawn", name="spawn"),
        Rule(text(CLAIM), thread="main", last_user_contains="keep working", name="claim"),
        Rule(text(ANSWERED), thread="main", last_user_contains="tiergate-verdict"),
    )
    api.sequence(*writes, text("I wrote the files."), thread="main")


def script_verifier(api: ScriptedApi) -> None:
    """Run `python3 hello.py`, then PASS with every label the packet requires."""
    api.on(bash("python3 hello.py"), thread="subagent", after_tool_result=False)
    api.on(passing_verdict(EVIDENCE), thread="subagent", after_tool_result=True)
