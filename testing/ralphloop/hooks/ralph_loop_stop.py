#!/usr/bin/env python3
"""ralph-loop's Stop hook, as its documented behaviour has it (docs/interop.md).

While `.claude/ralph-loop.local.md` exists for this session, every Stop is blocked with the loop's prompt as
the reason, and the iteration counted, until the last assistant text in the transcript keeps the promise
(`<promise>TEXT</promise>`), or the iteration limit is reached, or the state cannot be read; then the state
file is deleted and the stop goes ahead (exit 0, no decision).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

STATE_FILE = Path(".claude") / "ralph-loop.local.md"
# ralph-loop reads only the most recent assistant records of the transcript.
RECENT_ASSISTANT_RECORDS = 100
_PROMISE = re.compile(r"<promise>(.*?)</promise>", re.DOTALL)


def split_state(text: str) -> tuple[dict[str, str], str]:
    """The frontmatter fields (raw values) and the prompt: everything after the second `---` line."""
    lines = text.split("\n")
    fences = [i for i, line in enumerate(lines) if line == "---"][:2]
    if len(fences) < 2:
        return {}, ""
    fields: dict[str, str] = {}
    for line in lines[fences[0] + 1 : fences[1]]:
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key, value.lstrip(" "))
    # The prompt keeps its leading blank line and loses its trailing newlines, as ralph-loop's does.
    return fields, "\n".join(lines[fences[1] + 1 :]).rstrip("\n")


def promise_of(fields: dict[str, str]) -> str:
    value = fields.get("completion_promise", "")
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        value = value[1:-1]
    return "" if value == "null" else value


def last_assistant_text(transcript: Path) -> str | None:
    """The text of the last text block among the recent assistant records; None if there are none."""
    records = [_record(line) for line in transcript.read_text(errors="replace").splitlines()]
    assistant = [r for r in records if r is not None and r.get("message", {}).get("role") == "assistant"]
    if not assistant:
        return None
    texts = [
        str(block.get("text", ""))
        for record in assistant[-RECENT_ASSISTANT_RECORDS:]
        for block in _content(record)
        if block.get("type") == "text"
    ]
    return texts[-1] if texts else ""


def _record(line: str) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _content(record: dict[str, Any]) -> list[dict[str, Any]]:
    content = record.get("message", {}).get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def keeps_promise(text: str, promise: str) -> bool:
    """The first promise tag's text, whitespace collapsed, equals the promise exactly.

    With no tag at all, ralph-loop compares the whole message the same way.
    """
    match = _PROMISE.search(text)
    said = match.group(1) if match else text
    return bool(said.strip()) and " ".join(said.split()) == promise


def end(message: str, *, to_stderr: bool = True) -> int:
    """Let the stop go ahead and end the loop: the state file is deleted."""
    STATE_FILE.unlink(missing_ok=True)
    print(f"ralph-loop: {message}", file=sys.stderr if to_stderr else sys.stdout)
    return 0


def decide(payload: dict[str, Any]) -> int:
    if not STATE_FILE.is_file():
        return 0
    fields, prompt = split_state(STATE_FILE.read_text())
    owner = fields.get("session_id", "")
    if owner and owner != payload.get("session_id"):
        # Another session's loop: neither blocked nor touched.
        return 0
    ending = _unusable(fields, prompt) or _finished(fields, payload)
    if ending is not None:
        message, is_error = ending
        return end(message, to_stderr=is_error)
    return block(prompt, int(fields["iteration"]) + 1, promise_of(fields))


def _unusable(fields: dict[str, str], prompt: str) -> tuple[str, bool] | None:
    """Why the state cannot drive the loop (message, is an error), or None."""
    iteration, limit = fields.get("iteration", ""), fields.get("max_iterations", "")
    if not (iteration.isdigit() and limit.isdigit()):
        return f"state file unreadable (iteration {iteration!r}, max_iterations {limit!r}); loop ended", True
    if not prompt.strip():
        return "state file has no prompt; loop ended", True
    return None


def _finished(fields: dict[str, str], payload: dict[str, Any]) -> tuple[str, bool] | None:
    """Why the loop ends at this stop (message, is an error), or None to go on."""
    limit = int(fields["max_iterations"])
    if limit > 0 and int(fields["iteration"]) >= limit:
        return f"iteration limit {limit} reached; loop ended", False
    transcript = Path(str(payload.get("transcript_path", "")))
    if not transcript.is_file():
        return "no transcript; loop ended", True
    text = last_assistant_text(transcript)
    if text is None:
        return "no assistant message in the transcript; loop ended", True
    promise = promise_of(fields)
    if promise and keeps_promise(text, promise):
        return f"promise {promise!r} kept; loop ended", False
    return None


def block(prompt: str, iteration: int, promise: str) -> int:
    text = STATE_FILE.read_text()
    counted = re.sub(r"^iteration: .*$", f"iteration: {iteration}", text, count=1, flags=re.MULTILINE)
    temporary = STATE_FILE.with_name(f"{STATE_FILE.name}.tmp")
    temporary.write_text(counted)
    temporary.replace(STATE_FILE)
    if promise:
        notice = f"ralph-loop iteration {iteration}: print <promise>{promise}</promise> only when it is true"
    else:
        notice = f"ralph-loop iteration {iteration}: no completion promise, the loop goes on"
    print(json.dumps({"decision": "block", "reason": prompt, "systemMessage": notice}))
    return 0


def main() -> int:
    try:
        payload = json.loads(sys.stdin.read() or "{}")
    except ValueError:
        payload = {}
    return decide(payload if isinstance(payload, dict) else {})


if __name__ == "__main__":
    sys.exit(main())
