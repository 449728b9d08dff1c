#!/usr/bin/env python3
"""`/ralph-loop PROMPT [--max-iterations N] [--completion-promise TEXT]`: write the loop's state file.

The command file hands this script `$ARGUMENTS` through the shell, so quoting is the shell's: words outside
the two options are joined with spaces into the prompt. The state file is what ralph-loop writes
(docs/interop.md): YAML-like frontmatter, a blank line, then the prompt.
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path

STATE_FILE = Path(".claude") / "ralph-loop.local.md"
USAGE = "usage: /ralph-loop PROMPT [--max-iterations N] [--completion-promise TEXT]"


class UsageError(Exception):
    pass


def parse(argv: list[str]) -> tuple[str, int, str | None]:
    """(prompt, max_iterations (0: no limit), completion promise or None)."""
    words: list[str] = []
    max_iterations = 0
    promise: str | None = None
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        if word in ("--max-iterations", "--completion-promise"):
            value = rest.pop(0) if rest else ""
            if not value:
                raise UsageError(f"{word} needs a value")
            if word == "--max-iterations":
                if not value.isdigit():
                    raise UsageError(f"--max-iterations takes a whole number (0: no limit), not {value!r}")
                max_iterations = int(value)
            else:
                promise = value
        else:
            words.append(word)
    prompt = " ".join(words)
    if not prompt:
        raise UsageError("no prompt given")
    return prompt, max_iterations, promise


def state_text(prompt: str, max_iterations: int, promise: str | None, session_id: str, now: datetime) -> str:
    quoted_promise = f'"{promise}"' if promise else "null"
    started = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        "---\n"
        "active: true\n"
        "iteration: 1\n"
        f"session_id: {session_id}\n"
        f"max_iterations: {max_iterations}\n"
        f"completion_promise: {quoted_promise}\n"
        f'started_at: "{started}"\n'
        "---\n"
        "\n"
        f"{prompt}\n"
    )


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    try:
        prompt, max_iterations, promise = parse(argv)
    except UsageError as error:
        print(f"ralph-loop: {error}\n{USAGE}", file=sys.stderr)
        return 1
    session_id = os.environ.get("CLAUDE_CODE_SESSION_ID", "")
    STATE_FILE.parent.mkdir(exist_ok=True)
    STATE_FILE.write_text(state_text(prompt, max_iterations, promise, session_id, datetime.now(UTC)))
    limit = max_iterations or "none"
    print(f"ralph-loop started (iteration 1, iteration limit: {limit}).\n\n{prompt}")
    if promise:
        print(f"\nThe loop ends when you print <promise>{promise}</promise>, and only when it is true.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
