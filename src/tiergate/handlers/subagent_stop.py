"""SubagentStop: a verifier stops. Only a run recorded at SubagentStart is read: its workspace
fingerprint is compared, its verdict judged, and its own transcript searched for a command it ran."""

from __future__ import annotations

import json
import os
import re
import stat
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, BinaryIO

from tiergate import loop, state, transcript
from tiergate.fingerprint import fingerprint
from tiergate.handlers import common
from tiergate.verdict import judge

if TYPE_CHECKING:
    from tiergate.project import Project
    from tiergate.protocol import HookReply

# A verifier's first tool call comes after the SubagentStart hook recorded its start; the margin only
# absorbs the clock's granularity.
START_MARGIN_SECONDS = 5.0
# How far back from the end of a verifier's transcript a command is looked for.
TRANSCRIPT_TAIL_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 8 * 1024 * 1024
_BLOCK = 1024 * 1024
# A command tool call as the CLI writes it (compact JSON); an escaped mention inside a string does not
# match, and every match is parsed and checked before it counts.
_COMMAND_USE = re.compile(rb'"name"\s*:\s*"Bash"')
_OVERLAP = 64


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    from tiergate.protocol import parse_input

    stop = parse_input("SubagentStop", payload)
    if stop.is_phantom:
        return None
    current = state.read(project, stop.session_id)
    if current is None or not current.active:
        return None
    run = loop.run_for(current, stop.agent_id)
    event = loop.SubagentStop(agent_id=stop.agent_id, agent_type=stop.agent_type)
    if run is not None and current.verification is not None:
        message = stop.last_assistant_message
        if message is None:
            message = transcript.last_assistant_text(stop.agent_transcript_path)
        since = datetime.fromtimestamp(run.started_at - START_MARGIN_SECONDS, UTC)
        judgement = judge(
            message,
            required=current.verification.evidence,
            commands_run=1 if ran_a_command(stop.agent_transcript_path, since) else 0,
            verification_id=current.verification.id,
        )
        workspace = fingerprint(project.root, current.base)
        model = model_of(stop.agent_transcript_path)
        event = loop.SubagentStop(stop.agent_id, stop.agent_type, judgement, workspace, model)
    return common.reply(common.apply(project, "SubagentStop", stop.session_id, event))


def ran_a_command(path: str | None, since: datetime) -> bool:
    """Whether the transcript at `path` shows a Bash tool call made at or after `since`.

    The search runs backwards over raw blocks at C speed and parses only the lines holding a Bash tool
    call, so a 50 MB transcript of tool output costs a fraction of what parsing every line would; the
    first call found after `since` answers, and the first one before it ends the search.
    """
    handle_ = _open_regular(path)
    if handle_ is None:
        return False
    with handle_ as f:
        end = f.seek(0, os.SEEK_END)
        floor = max(0, end - TRANSCRIPT_TAIL_BYTES)
        position = end
        while position > floor:
            start = max(floor, position - _BLOCK)
            f.seek(start)
            block = f.read(position - start + _OVERLAP)
            for match in reversed([m for m in _COMMAND_USE.finditer(block) if m.start() < position - start]):
                when = _command_time(_record_at(f, start + match.start()))
                if when is not None:
                    # The latest call decides: calls only get older further back.
                    return when >= since
            position = start
    return False


def model_of(agent_transcript: str | None) -> str | None:
    """The model the subagent ran on, from the `agent-<id>.meta.json` Claude Code keeps beside its
    transcript (CLI 2.1.332: `{"agentType", "model": "claude-haiku-5-5", ...}`); None if not recorded."""
    if not agent_transcript or not agent_transcript.endswith(".jsonl"):
        return None
    handle_ = _open_regular(agent_transcript.removesuffix(".jsonl") + ".meta.json")
    if handle_ is None:
        return None
    with handle_ as f:
        try:
            meta = json.loads(f.read(64 * 1024))
        except ValueError:
            return None
    model = meta.get("model") if isinstance(meta, dict) else None
    return model if isinstance(model, str) and model else None


def _open_regular(path: str | None) -> BinaryIO | None:
    # O_NONBLOCK and a check of what was opened: a path naming a FIFO must not hang the hook.
    if not path:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


def _record_at(f: BinaryIO, offset: int) -> object:
    """The JSON record on the line holding `offset` (None if it is not one, or too long to read)."""
    begin = offset
    while begin > 0:
        step = min(64 * 1024, begin)
        f.seek(begin - step)
        newline = f.read(step).rfind(b"\n")
        if newline != -1:
            begin = begin - step + newline + 1
            break
        begin -= step
        if offset - begin > MAX_LINE_BYTES:
            return None
    f.seek(begin)
    line = f.readline(MAX_LINE_BYTES)
    try:
        return json.loads(line)
    except ValueError:
        return None


def _command_time(record: object) -> datetime | None:
    """When an assistant record calling Bash was written; None for any other record."""
    if not isinstance(record, dict) or record.get("type") != "assistant":
        return None
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or not any(
        isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Bash" for b in content
    ):
        return None
    try:
        moment = datetime.fromisoformat(str(record.get("timestamp")))
    except ValueError:
        return datetime.max.replace(tzinfo=UTC)  # a call without a readable time is still a call
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
