"""Failing closed, pure: what an active loop's Stop does when the loop's state cannot be trusted.

The state is corrupt, tampered with, gone or cannot be written, or deciding the claim failed: the first
such Stop is blocked once (if a sealed marker can remember it; a block tiergate cannot remember could
repeat forever), the next halts the loop and says the claim was NOT verified. Never a PASS, never a new
green point. The documented exception to failing open: docs/ARCHITECTURE.md.
"""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.frozen import frozen
from tiergate.text import quote_inline

if TYPE_CHECKING:
    from typing import Literal

    Action = Literal["block", "halt"]


@frozen
class Choice:
    action: Action
    why: str


def choose(*, blocked_before: bool, marker_kept: bool) -> Choice:
    """Block or halt, and why. `blocked_before`: this loop's marker says it was blocked once already
    for a problem with its state; `marker_kept`: the marker of a block now could be written."""
    if blocked_before:
        return Choice("halt", "the stop before this one was blocked for it already")
    if not marker_kept:
        return Choice("halt", "tiergate could not record a block (it would repeat at every stop)")
    return Choice("block", "not accepted; the next stop halts the loop unless its state is sound")


def block_reason(problem: str) -> str:
    """What Claude reads: the claim is not accepted, and what to do (nothing to tiergate's files)."""
    return (
        f"tiergate cannot accept this claim: the loop's state {quote_inline(problem)}. The claim is NOT "
        "accepted and was not verified. Do not write, move or delete tiergate's state files. Tell the user "
        "what you have done so far; at the next stop the loop halts."
    )


def block_message(problem: str) -> str:
    return (
        f"tiergate: the loop's state {quote_inline(problem)}; this claim is not accepted (stop blocked "
        "once). At the next stop the loop halts, its claim not verified."
    )


def halt_message(problem: str, why: str, kept_at: str | None) -> str:
    kept = f" The damaged file is kept at {kept_at} for a post-mortem." if kept_at else ""
    return (
        f"tiergate: loop halted: its state {quote_inline(problem)} ({why}). The claim was NOT verified: "
        f"no PASS, and the last green point is unchanged.{kept} See `tiergate status` and "
        "`tiergate history`; to go on, start a new loop with /tiergate:ralph <task>."
    )
