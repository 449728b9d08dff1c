"""Reading Claude Code transcripts (JSON Lines) from the end.

A session's transcript grows to tens of megabytes, and what a hook needs is near its end: the last
assistant message, the tools a verifier ran. So the file is read backwards in blocks, only as far as
needed and never past `max_bytes` from the end. Only whole lines are parsed; a line still being written,
a record of another kind or one that is not JSON is skipped, and an unreadable file reads as nothing.

Record shapes (CLI 2.1.332): `{"type": "assistant", "message": {"id", "content": [{"type": "text",
"text"}, {"type": "tool_use", "id", "name", "input"}, ...]}, "timestamp"}`, one content block per line,
lines of one API response sharing `message.id`; tool results come back in `{"type": "user", "message":
{"content": [{"type": "tool_result", "tool_use_id", "is_error"}]}}`.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
_BLOCK_SIZE = 256 * 1024


@dataclass(frozen=True)
class ToolRun:
    """One tool call of the agent, and whether its result is in the transcript yet."""

    tool_use_id: str
    name: str
    input: dict[str, Any]
    started_at: datetime | None
    finished: bool
    is_error: bool


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


def tool_runs_since(
    path: str | os.PathLike[str] | None,
    since: datetime | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> list[ToolRun] | None:
    """The tool calls made at or after `since` (all of those in the tail if None), oldest first; None
    if the file cannot be read. `since` should be timezone-aware: transcript timestamps are UTC."""
    records = _tail_records(path, max_bytes, marker=b'"tool_')
    if records is None:
        return None
    if since is not None and since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    results: dict[str, bool] = {}  # tool_use_id -> is_error
    runs: list[ToolRun] = []
    for record in records:
        started_at = _timestamp(record)
        if since is not None and started_at is not None and started_at < since:
            break
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        if record.get("type") == "user":
            for block in _blocks(message, "tool_result"):
                results[str(block.get("tool_use_id"))] = block.get("is_error") is True
        elif record.get("type") == "assistant":
            runs.extend(_tool_runs(message, started_at, results))
    runs.reverse()
    return runs


def _tool_runs(
    message: dict[str, Any], started_at: datetime | None, results: dict[str, bool]
) -> list[ToolRun]:
    runs = []
    for block in reversed(_blocks(message, "tool_use")):
        tool_use_id = str(block.get("id"))
        tool_input = block.get("input")
        runs.append(
            ToolRun(
                tool_use_id=tool_use_id,
                name=str(block.get("name")),
                input=tool_input if isinstance(tool_input, dict) else {},
                started_at=started_at,
                finished=tool_use_id in results,
                is_error=results.get(tool_use_id, False),
            )
        )
    return runs


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
