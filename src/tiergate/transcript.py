"""Reading Claude Code transcripts (JSON Lines) from the end, the one place that does: the last assistant
message, whether a verifier ran a command since it started, the /goal records around a Stop's turn, and
a subagent's model (from the meta file beside its transcript). A transcript grows to tens of megabytes
and a hook needs its end, so it is read backwards in blocks, only as far as needed and never past a
window from the end; only whole lines are parsed, and an unreadable file reads as nothing.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from datetime import UTC, datetime

from tiergate import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, BinaryIO

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
# How far back from the end of a verifier's transcript a command is looked for.
COMMAND_WINDOW_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 8 * 1024 * 1024
_BLOCK_SIZE = 256 * 1024
_SCAN_BLOCK = 1024 * 1024
# A command tool call as the CLI writes it (compact JSON); an escaped mention inside a string does not
# match, and every match is parsed and checked before it counts.
_COMMAND_USE = re.compile(rb'"name"\s*:\s*"Bash"')
_COMMAND_NAME = b'"Bash"'
_OVERLAP = 64


def last_assistant_text(
    path: str | os.PathLike[str] | None, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> str | None:
    """The text of the last assistant message that has any, as the CLI builds `last_assistant_message`
    (text blocks joined by newlines, stripped); None if there is none or the file cannot be read.

    Prefer the hook input's `last_assistant_message`: the transcript may lag behind (issue #25121).
    """
    message_id: object = None
    parts: list[str] = []
    for record in _tail_records(path, max_bytes, marker=b'"assistant"') or ():
        if record.get("type") != "assistant" or not isinstance(record.get("message"), dict):
            continue
        message = record["message"]
        if parts and (message_id is None or message.get("id") != message_id):
            break
        texts = [block["text"] for block in _blocks(message, "text") if isinstance(block.get("text"), str)]
        if texts or parts:
            message_id = message.get("id")
            parts[:0] = texts
    text = "\n".join(parts).strip()
    return text or None


_GOAL_STATUS = b'"goal_status"'


def goal_statuses(
    path: str | os.PathLike[str] | None, *, max_bytes: int = COMMAND_WINDOW_BYTES
) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...], str | None] | None:
    """The `goal_status` attachments of a session's transcript (Claude Code's /goal, CLI 2.1.332: one
    when it is set or cleared, one per evaluation at a Stop), split at the last assistant record: the
    last one before it (none, or one), those after it (the evaluation of the Stop that turn ends, oldest
    first), and that assistant record's last text block. None when the file cannot be read, or holds no
    goal record in its last `max_bytes` and is longer (nothing can be said of the goal then)."""
    fd = _open_regular(path)
    if fd is None:
        return None
    try:
        size = os.fstat(fd).st_size
    except OSError:
        os.close(fd)
        return None
    after: list[dict[str, Any]] = []
    text: str | None = None
    seen = False  # the last assistant record is behind us
    try:
        for line in _lines_from_end(fd, max_bytes):
            if _GOAL_STATUS in line:
                status = _goal_status(line)
                if status is None:
                    continue
                if seen:
                    return (status,), tuple(reversed(after)), text
                after.append(status)
            elif not seen and b'"assistant"' in line:
                record = _json(line)
                if isinstance(record, dict) and record.get("type") == "assistant":
                    seen, text = True, _last_text(record)
    except OSError:
        return None
    if size > max_bytes and not after:
        return None
    return (), tuple(reversed(after)), text


def _goal_status(line: bytes) -> dict[str, Any] | None:
    """The goal record on a line: `{"type": "attachment", "attachment": {"type": "goal_status", ...}}`.
    A mention of the words in a message or a tool's output is another record, and is not one."""
    record = _json(line)
    if not isinstance(record, dict) or record.get("type") != "attachment":
        return None
    attachment = record.get("attachment")
    if isinstance(attachment, dict) and attachment.get("type") == "goal_status":
        return attachment
    return None


def _json(line: bytes) -> object:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _last_text(record: dict[str, Any]) -> str | None:
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    texts = [b["text"] for b in _blocks(message, "text") if isinstance(b.get("text"), str)]
    return str(texts[-1]) if texts else None


def ran_a_command(path: str | os.PathLike[str] | None, since: datetime) -> bool:
    """Whether the transcript at `path` shows a Bash tool call made at or after `since` (UTC-aware).

    The search runs backwards over raw blocks at C speed and parses only the lines holding a Bash tool
    call, so a 50 MB transcript of tool output costs a fraction of what parsing every line would; the
    latest call found decides (calls only get older further back).
    """
    fd = _open_regular(path)
    if fd is None:
        return False
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    with os.fdopen(fd, "rb") as f:
        end = f.seek(0, os.SEEK_END)
        floor = max(0, end - COMMAND_WINDOW_BYTES)
        position = end
        while position > floor:
            start = max(floor, position - _SCAN_BLOCK)
            f.seek(start)
            # A little past the block, so that a match cut by the block's end is seen whole.
            block = f.read(position - start + _OVERLAP)
            # A plain substring test first: most blocks hold no Bash call, and the regex scans slower.
            if _COMMAND_NAME not in block:
                position = start
                continue
            matches = [m for m in _COMMAND_USE.finditer(block) if m.start() < position - start]
            for match in reversed(matches):
                when = _command_time(_record_at(f, start + match.start()))
                if when is not None:
                    return when >= since
            position = start
    return False


def ran_no_command(path: str | os.PathLike[str] | None) -> bool:
    """Whether the transcript at `path` certainly shows no Bash tool call at all. A verifier's only
    tool that can change a file is Bash (agents/*.md), so such a verifier changed nothing.

    Certain means: the file is readable and within COMMAND_WINDOW_BYTES, and every line that names Bash
    (the CLI also records the tool definitions) parses as a record that is not a Bash call. Anything
    less certain is False."""
    fd = _open_regular(path)
    if fd is None:
        return False
    with os.fdopen(fd, "rb") as f:
        data = f.read(COMMAND_WINDOW_BYTES + 1)
    if len(data) > COMMAND_WINDOW_BYTES:
        return False
    for line in data.splitlines():
        if _COMMAND_NAME in line and _COMMAND_USE.search(line):
            try:
                record = json.loads(line)
            except ValueError:
                return False
            if _command_time(record) is not None:
                return False
    return True


def agent_model(agent_transcript: str | None) -> str | None:
    """The model a subagent ran on, from the `agent-<id>.meta.json` Claude Code keeps beside its
    transcript (CLI 2.1.332: `{"agentType", "model": "claude-haiku-5-5", ...}`); None if not recorded."""
    if not agent_transcript or not agent_transcript.endswith(".jsonl"):
        return None
    fd = _open_regular(agent_transcript.removesuffix(".jsonl") + ".meta.json")
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as f:
        try:
            meta = json.loads(f.read(64 * 1024))
        except ValueError:
            return None
    model = meta.get("model") if isinstance(meta, dict) else None
    return model if isinstance(model, str) and model else None


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
    if not isinstance(message, dict) or not any(
        b.get("name") == "Bash" for b in _blocks(message, "tool_use")
    ):
        return None
    # A call without a readable time is still a call.
    return _timestamp(record) or datetime.max.replace(tzinfo=UTC)


# Record shapes (CLI 2.1.332): `{"type": "assistant", "message": {"id", "content": [{"type": "text",
# "text"}, {"type": "tool_use", "id", "name", "input"}, ...]}, "timestamp"}`, one content block per line,
# lines of one API response sharing `message.id`; tool results come back in `{"type": "user", "message":
# {"content": [{"type": "tool_result", "tool_use_id", "is_error"}]}}`. A line still being written, a record
# of another kind or one that is not JSON is skipped.
def _blocks(message: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict) and block.get("type") == kind]


def _timestamp(record: dict[str, Any]) -> datetime | None:
    value = record.get("timestamp")
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _open_regular(path: str | os.PathLike[str] | None) -> int | None:
    """A read descriptor on `path` if it is a readable regular file, else None.

    O_NONBLOCK, then a check of what was opened: a transcript path naming a FIFO must not hang the hook,
    and a device or a directory is not a transcript.
    """
    if path is None or os.fspath(path) in ("", b""):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def _tail_records(
    path: str | os.PathLike[str] | None, max_bytes: int, *, marker: bytes
) -> Iterator[dict[str, Any]] | None:
    """The JSON object records of the file's tail, last first; None if it is not a readable file.
    Lines without `marker` are not parsed: most of a transcript is tool output no caller here wants."""
    fd = _open_regular(path)
    return None if fd is None else _records(fd, max_bytes, marker)


def _records(fd: int, max_bytes: int, marker: bytes) -> Iterator[dict[str, Any]]:
    try:
        for line in _lines_from_end(fd, max_bytes):
            if marker not in line:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                yield record
    except OSError:
        return


def _lines_from_end(fd: int, max_bytes: int) -> Iterator[bytes]:
    """The whole lines of the last `max_bytes` of the file, last first; closes `fd`. The line cut by
    the limit is dropped; an unterminated last line is yielded (the caller's JSON check decides)."""
    with os.fdopen(fd, "rb") as f:
        end = f.seek(0, os.SEEK_END)
        floor = max(0, end - max_bytes)
        position = end
        pending: list[bytes] = []  # pieces of the line being assembled, last piece first
        while position > floor:
            size = min(_BLOCK_SIZE, position - floor)
            position -= size
            f.seek(position)
            block = f.read(size)
            stop = len(block)
            newline = block.rfind(b"\n", 0, stop)
            while newline != -1:
                line = b"".join([block[newline + 1 : stop], *reversed(pending)])
                pending.clear()
                if line.strip():
                    yield line
                stop = newline
                newline = block.rfind(b"\n", 0, stop)
            pending.append(block[:stop])
        if position == 0:
            first = b"".join(reversed(pending))
            if first.strip():
                yield first


def turn_tool_calls(
    path: str | os.PathLike[str] | None, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[tuple[str, Any], ...]:
    """The tool calls (name, input) the assistant made since the last prompt or hook feedback came in:
    the turn a Stop ends, oldest first. A tool result is not a new turn; an unreadable file has none."""
    calls: list[tuple[str, Any]] = []
    for record in _tail_records(path, max_bytes, marker=b'"type"') or ():
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        if record.get("type") == "user" and not record.get("isMeta") and _opens_turn(message):
            break
        if record.get("type") == "assistant":
            for block in reversed(_blocks(message, "tool_use")):
                if isinstance(block.get("name"), str):
                    calls.append((block["name"], block.get("input")))
    return tuple(reversed(calls))


def _opens_turn(message: dict[str, Any]) -> bool:
    """A user message that is a prompt (or a hook's feedback), not a tool's result."""
    content = message.get("content")
    if isinstance(content, str):
        return True
    return not _blocks(message, "tool_result") and bool(_blocks(message, "text"))


def last_text_block(path: str | os.PathLike[str] | None, *, max_bytes: int = DEFAULT_MAX_BYTES) -> str | None:
    """The last text content block of the assistant's records, alone (not joined with the message's other
    blocks): what ralph-loop's Stop hook compares with its promise. None if there is none."""
    for record in _tail_records(path, max_bytes, marker=b'"assistant"') or ():
        if record.get("type") != "assistant" or not isinstance(record.get("message"), dict):
            continue
        texts = [b["text"] for b in _blocks(record["message"], "text") if isinstance(b.get("text"), str)]
        if texts:
            return str(texts[-1])
    return None
