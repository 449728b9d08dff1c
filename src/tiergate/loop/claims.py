"""Completion claims: did the main agent's final message claim the task done, and what kind of claim?
A claim is the loop's promise tag (`<promise>DONE</promise>` by default) at the very end of the message;
one only quoted or mentioned (an open code fence, inline code, a quote line) does not count. The kinds
decide the evidence a verifier must bring: every kind the task names (none: Implemented), plus any the
agent declares (`Claim: Debugged`), which adds a kind and never removes one. Pure: text in, facts out.
"""

from __future__ import annotations

import re
from enum import StrEnum

from tiergate.frozen import frozen

DEFAULT_PROMISE = "DONE"
VERDICT_INFO = "tiergate-verdict"


class ClaimType(StrEnum):
    FIXED = "Fixed"
    IMPLEMENTED = "Implemented"
    REFACTORED = "Refactored"
    DEBUGGED = "Debugged"


# What each kind of claim must be backed by (seed: "Evidence Types"). The labels are what a verifier's
# criteria must name; Implemented shares its labels with the LIGHT and STANDARD tiers on purpose, so
# that the same evidence is asked for once.
CLAIM_EVIDENCE: dict[ClaimType, tuple[str, ...]] = {
    ClaimType.FIXED: ("test showing the fix passes now",),
    ClaimType.IMPLEMENTED: ("lsp_diagnostics clean", "build pass"),
    ClaimType.REFACTORED: ("all tests still pass",),
    ClaimType.DEBUGGED: ("root cause identified at file:line",),
}

# Words of a task that name a kind of claim, matched as whole words (stems end in \w*).
_TASK_WORDS: dict[ClaimType, str] = {
    ClaimType.FIXED: r"fix\w*|bug\w*|bugfix\w*|broken|regression\w*|crash\w*|repair\w*",
    ClaimType.REFACTORED: (
        r"refactor\w*|restructur\w*|reorgani[sz]\w*|clean(?:s|ed|ing)?[ -]up|cleanup|renam\w*"
    ),
    ClaimType.DEBUGGED: r"debug\w*|investigat\w*|diagnos\w*|root[ -]cause\w*|(?:find|figure)[ -]out[ -]why",
    ClaimType.IMPLEMENTED: r"implement\w*|add|adds|added|adding|creat\w*|support\w*|feature\w*|write|new",
}
_TASK_PATTERNS = {
    kind: re.compile(rf"(?<!\w)(?:{words})(?!\w)", re.IGNORECASE) for kind, words in _TASK_WORDS.items()
}
_DECLARATION = re.compile(
    r"^[ \t>*_-]*claim(?:[ _-]?type)?[ \t*_]*:[ \t*_]*(fixed|implemented|refactored|debugged)\b",
    re.IGNORECASE | re.MULTILINE,
)
# Straight and typographic quotation marks (double and single, English and continental).
_QUOTE_MARKS = "\"'`\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e"
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)


@frozen
class ClaimCheck:
    """What the final message says: a claim or not, and notes on near misses worth telling the agent."""

    claimed: bool
    notes: tuple[str, ...] = ()
    wrote_verdict: bool = False


def promise_tag(promise: str) -> str:
    return f"<promise>{promise}</promise>"


def check_claim(message: str | None, promise: str = DEFAULT_PROMISE) -> ClaimCheck:
    """Whether `message` ends with the promise as a claim (not a quote or an example of it)."""
    text = message or ""
    wrote_verdict = _has_fenced_block(text, VERDICT_INFO)
    notes = [_VERDICT_NOTE] if wrote_verdict else []
    tag = re.compile(rf"<promise>\s*{re.escape(promise.strip())}\s*</promise>\s*\Z", re.IGNORECASE)
    match = tag.search(text)
    if match is None:
        if re.search(rf"<promise>\s*{re.escape(promise.strip())}\s*</promise>", text, re.IGNORECASE):
            notes.append(f"{promise_tag(promise)} appears, but not at the very end of the message")
        return ClaimCheck(claimed=False, notes=tuple(notes), wrote_verdict=wrote_verdict)
    before = text[: match.start()]
    why_not = _quoted(before)
    if why_not:
        notes.append(f"{promise_tag(promise)} at the end is {why_not}, so it is not a claim")
        return ClaimCheck(claimed=False, notes=tuple(notes), wrote_verdict=wrote_verdict)
    return ClaimCheck(claimed=True, notes=tuple(notes), wrote_verdict=wrote_verdict)


_VERDICT_NOTE = (
    "your message holds a tiergate-verdict block: it is ignored, because only the verdict of the verifier "
    "tiergate asked for counts, never one the implementer writes"
)


def _quoted(before: str) -> str | None:
    """Why a tag following `before` is a quotation rather than a claim, or None if it is a claim."""
    if len(_FENCE.findall(before)) % 2 == 1:
        return "inside an unclosed code block"
    line = before.rsplit("\n", 1)[-1]
    if line.count("`") % 2 == 1:
        return "inside inline code"
    if line.lstrip().startswith(">"):
        return "on a quoted line"
    stripped = line.rstrip()
    if stripped and stripped[-1] in _QUOTE_MARKS:
        return "inside quotation marks"
    return None


def _has_fenced_block(text: str, info: str) -> bool:
    return (
        re.search(rf"^[ \t]{{0,3}}(?:`{{3,}}|~{{3,}})[ \t]*{re.escape(info)}[ \t]*$", text, re.MULTILINE)
        is not None
    )


def claim_types(task: str, message: str | None = None) -> tuple[ClaimType, ...]:
    """The kinds of claim: those the task names, plus those the final message declares (in table order)."""
    found = {kind for kind, pattern in _TASK_PATTERNS.items() if pattern.search(task)}
    found |= {ClaimType(m.group(1).capitalize()) for m in _DECLARATION.finditer(message or "")}
    if not found:
        found = {ClaimType.IMPLEMENTED}
    return tuple(kind for kind in ClaimType if kind in found)


def claim_evidence(kinds: tuple[ClaimType, ...]) -> tuple[tuple[str, ClaimType], ...]:
    """The evidence labels the kinds call for, each with the kind that asks for it."""
    return tuple((label, kind) for kind in kinds for label in CLAIM_EVIDENCE[kind])
