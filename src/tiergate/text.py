"""The text helpers every message uses: counts with their noun, and cutting a text to a size.

Pure and cheap to import (the hook's error line goes through `one_line`).
"""

from __future__ import annotations


def plural(n: int, noun: str) -> str:
    """'1 file', '2 files'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def cut(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    kept = text[: max(0, limit - 40)].rstrip()
    return f"{kept} [... {len(text) - len(kept)} more characters]"


def one_line(text: str, limit: int = 600) -> str:
    """`text` on a single line, cut to `limit` characters: a message, not a dump."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# Untrusted text --------------------------------------------------------------------------------------------
# File names, check output, test names, commands and task text are written by the agent under verification
# as much as by anyone: once in a packet or a block reason they must stay data. None may end a line (and so
# open a line of its own that reads like one of tiergate's headings), move the cursor (ANSI, carriage
# return) or open or close a fenced block (a ```tiergate-spawn or ```tiergate-verdict of its own).

BLOCK_MARKER = "  | "
_FENCE = "```"
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\", '"': '\\"', "`": "\\x60"}


def _escape(char: str) -> str:
    named = _NAMED_ESCAPES.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _unsafe(char: str) -> bool:
    # Not printable: every control character, the line and paragraph separators, NEL, and the rest
    # that str.splitlines() (or a terminal) would treat as a break or a command.
    return not char.isprintable() and char != " "


def quote_path(path: str) -> str:
    """`path` as it may be shown: unchanged when it is plain printable text, else in double quotes
    with newlines, control characters, backticks, quotes and backslashes escaped (like `repr`), so
    that it stays one recognisable name on one line."""
    if path and not path.startswith('"') and "`" not in path and not any(_unsafe(c) for c in path):
        return path
    body = "".join(_escape(c) if c in _NAMED_ESCAPES or _unsafe(c) else c for c in path)
    return f'"{body}"'


def quote_inline(text: str) -> str:
    """One piece of untrusted text inside a line of tiergate's own (a check's name or command, a test
    name, a failure message): line breaks and control characters escaped (a tab is kept), and runs of
    backticks that could make a fence broken up, so that the line stays one line of tiergate's."""
    out = "".join(_escape(c) if _unsafe(c) and c != "\t" else c for c in text)
    return _unfence(out)


def quote_block(text: str, marker: str = BLOCK_MARKER) -> str:
    """Multi-line untrusted text (a task, a check's output), each line after `marker`, so that no line
    starts at column 0 (where tiergate's headings are), each line as `quote_inline` makes it."""
    return "\n".join(marker + quote_inline(line) for line in text.splitlines())


def _unfence(text: str) -> str:
    # Three backticks in a row open or close a fence wherever a reader (or a regular expression) looks
    # for one; an escaped backtick in between keeps the text readable and fences nothing.
    while _FENCE in text:
        text = text.replace(_FENCE, "``\\x60")
    return text
