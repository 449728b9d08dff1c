"""Searching the changed lines for the rules' constructs. Pure.

Speed: CPython's `re` finds a pattern that starts with a literal about as fast as `str.find` (a few ms
per MB), but an alternation of many patterns, or one starting with `\\b` or a character class, is tried
at every position (measured on 3.7 MB of code-like text: 90 rules as one alternation took 111 s, with a
leading `\\b` 7.5 s; one literal-first rule 4-10 ms). So the built-in rules start with a literal
(`model.word`), each is searched on its own, and it is searched once per side over all the changed
lines of the files its ecosystems read, joined into one text: the cost is rules x megabytes, never
rules x lines. Offsets map back to lines by bisection.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate

from tiergate.redact import redact
from tiergate.tier.content.model import ContentHit, ContentRule, Ecosystem, Side
from tiergate.tier.content.patch import FileLines, parse_patch

# How much of a long line an excerpt keeps around the match.
EXCERPT_CHARS = 80
_SIDES: tuple[Side, ...] = ("added", "removed")
_compiled: dict[str, re.Pattern[str]] = {}


def scan_patch(patch: bytes, ecosystems: Sequence[Ecosystem]) -> tuple[ContentHit, ...]:
    """The hits of `ecosystems`' rules in the added and removed lines of `patch` (git's unified diff,
    see `tiergate.tier.content.patch`), ordered by path, then side, then line."""
    return scan_files(parse_patch(patch), ecosystems)


def added_file(path: str, text: str) -> FileLines:
    """A new file (untracked, say) as changed lines: every line of it added."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    return FileLines(path, added_numbers=list(range(1, len(lines) + 1)), added=lines)


def scan_files(files: Iterable[FileLines], ecosystems: Sequence[Ecosystem]) -> tuple[ContentHit, ...]:
    """As `scan_patch`, for changed lines already read."""
    groups: dict[tuple[int, ...], list[FileLines]] = {}
    for changed in files:
        key = tuple(i for i, eco in enumerate(ecosystems) if eco.holds(changed.path))
        if key:
            groups.setdefault(key, []).append(changed)
    hits: set[ContentHit] = set()
    for key, members in groups.items():
        rules = tuple(dict.fromkeys(rule for i in key for rule in ecosystems[i].rules))
        for side in _SIDES:
            hits.update(_scan_side(members, [r for r in rules if r.reads(side)], side))
    return tuple(sorted(hits, key=lambda h: (h.path, h.side, h.line, h.construct)))


def _scan_side(members: list[FileLines], rules: list[ContentRule], side: Side) -> Iterable[ContentHit]:
    if not rules:
        return
    texts: list[str] = []
    owners: list[int] = []  # per line: its file's index in `members`
    numbers: list[int] = []
    for index, changed in enumerate(members):
        lines = changed.added if side == "added" else changed.removed
        texts.extend(lines)
        numbers.extend(changed.added_numbers if side == "added" else changed.removed_numbers)
        owners.extend([index] * len(lines))
    if not texts:
        return
    chunk = "\n".join(texts)
    starts = list(accumulate((len(t) + 1 for t in texts), initial=0))
    for rule in rules:
        near = _regex(rule.near) if rule.near else None
        for match in _regex(rule.pattern).finditer(chunk):
            at = bisect_right(starts, match.start()) - 1
            if match.end() > starts[at] + len(texts[at]) and match.end() > match.start():
                continue  # a user's pattern that ran across a line end: lines are searched one by one
            if near is not None and near.search(texts[at]) is None:
                continue
            offset = starts[at]
            yield ContentHit(
                path=members[owners[at]].path,
                line=numbers[at],
                side=side,
                construct=rule.construct,
                category=rule.category,
                # A secret's excerpt must not repeat it; redaction keeps the kind ("[redacted: ...]").
                excerpt=redact(excerpt(texts[at], match.start() - offset, match.end() - offset)),
            )


def _regex(pattern: str) -> re.Pattern[str]:
    compiled = _compiled.get(pattern)
    if compiled is None:
        compiled = _compiled[pattern] = re.compile(pattern)
    return compiled


def excerpt(text: str, start: int, end: int, width: int = EXCERPT_CHARS) -> str:
    """The line's text around `text[start:end]`, stripped, at most about `width` characters: cut at
    spaces (never inside a word, unless one word is longer than `width`), '…' where it was cut."""
    lead = len(text) - len(text.lstrip())
    text = text.strip()
    start, end = max(0, start - lead), max(0, end - lead)
    if len(text) <= width:
        return text
    end = min(end, start + width)
    room = max(0, width - (end - start)) // 2
    left, right = max(0, start - room), min(len(text), end + room)
    # Cut at a space inside the window; with none, at the match itself (a match starts and ends at a
    # word's edge: its patterns name identifiers and calls).
    if left > 0:
        space = text.find(" ", left, start)
        left = space + 1 if space != -1 else start
    if right < len(text):
        space = text.rfind(" ", end, right)
        right = space if space != -1 else end
    head = "…" if left > 0 else ""
    tail = "…" if right < len(text) else ""
    return f"{head}{text[left:right].strip()}{tail}"
