"""The report page's small HTML pieces: every string from the log escaped (`esc`, quotes included,
wherever it lands: the agent wrote much of it), counts, times, and the symbol and badge of each verdict,
outcome, tier and kind of step (a symbol is aria-hidden: the word beside it says the same)."""

from __future__ import annotations

import html
from datetime import datetime

from tiergate.report.loops import Loop

# A text symbol per outcome and verdict (aria-hidden: the word beside it says the same).
OUTCOME_SYMBOL = {"finished": "✓", "halted": "■", "cancelled": "✕", "running": "…"}
VERDICT_SYMBOL = {
    "PASS": "✓",
    "FAIL": "✗",
    "INCOMPLETE": "◐",
    "DISQUALIFIED": "⊘",
    "VOID": "○",
    "requested": "…",
}
STEP_SYMBOL = {
    "start": "▶", "claim": "◆", "refuted": "✗", "verifier": "•", "redo": "↻", "verdict": "●",
    "halt": "■", "finish": "★", "cancel": "✕", "error": "⚠", "note": "·", "task": "☑", "task-refused": "☒",
}  # fmt: skip
MAJOR_KINDS = frozenset({"start", "claim", "refuted", "redo", "verdict", "halt", "finish", "cancel", "error"})


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def loop_name(loop: Loop) -> str:
    return loop.task or f"session {loop.session_id[:12]}"


def count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def times(value: float) -> str:
    return f"{value:g}x"


def short(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word where there is one (the full text is in the title)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut) + "…"


def when(timestamp: str, *, time_only: bool = False) -> str:
    """`2026-12-01 14:25:21 UTC` (or the time alone) from the log's ISO timestamp; as it is if not one."""
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return timestamp
    return moment.strftime("%H:%M:%S" if time_only else "%Y-%m-%d %H:%M:%S UTC")


def verdict_badge(verdict: str) -> str:
    return (
        f'<span class="verdict verdict-{esc(verdict)}"><span aria-hidden="true">'
        f"{VERDICT_SYMBOL.get(verdict, '?')}</span> {esc(verdict)}</span>"
    )


def tier_badge(tier: str) -> str:
    return f'<span class="tier tier-{esc(tier)}">{esc(tier)}</span>' if tier else "-"
