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
