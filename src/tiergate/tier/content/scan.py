"""Searching the changed lines for the rules' constructs. Pure.

Speed, measured (CPython 3.11, werkzeug's history as text): `re` finds a pattern that starts with a
literal about as fast as `str.find`, 1-2 ms per MB; one alternation of many patterns, or a pattern
starting with `\\b` or a character class, is tried at every position (90 rules as one alternation: 111 s
on 3.7 MB; with a leading `\\b`, 7.5 s; a trie of them by first character was slower than separate
passes). So each rule is its own pass over one text per side: the changed lines of all the files its
ecosystems read, joined. The cost is then rules x megabytes, never rules x lines; offsets map back to
lines by bisection. Most rules never get a pass: a rule's needle (the identifier its pattern starts
with, `model.needle`) must be part of some word of the change, and the change's distinct words, joined,
are a small text to ask (a 3.7 MB change has ~10,000 of them).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate

from tiergate.redact import redact
from tiergate.tier.content.model import ContentHit, ContentRule, Ecosystem, Side, needle, whole_word_needle
from tiergate.tier.content.patch import FileLines, parse_patch

# How much of a long line an excerpt keeps around the match.
EXCERPT_CHARS = 80
_SIDES: tuple[Side, ...] = ("added", "removed")
_compiled: dict[str, re.Pattern[str]] = {}
# Every byte that is not an ASCII letter, digit or '_' becomes a space: what is left is the change's words.
_WORD_BYTES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == ord("_")) else 32 for c in range(256))


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
    by_ecosystem: dict[int, list[FileLines]] = {}
    for changed in files:
        for i, eco in enumerate(ecosystems):
            if eco.holds(changed.path):
                by_ecosystem.setdefault(i, []).append(changed)
    hits: set[ContentHit] = set()
    for i, members in by_ecosystem.items():
        judge = ecosystems[i].judge
        if judge is not None:
            for changed in members:
                hits.update(judge(changed))
    words = _Words("\n".join(t for f in _distinct(by_ecosystem) for t in (*f.added, *f.removed)))
    texts: dict[tuple[tuple[int, ...], Side], _Text] = {}  # shared by ecosystems reading the same files
    for i, members in by_ecosystem.items():
        eco = ecosystems[i]
        for side in _SIDES:
            # Rules whose needle the change cannot hold get no pass, and a side with none no text.
            rules = [r for r in eco.rules if r.reads(side) and words.may_match(r.pattern)]
            if rules:
                key = (tuple(id(m) for m in members), side)
                text = texts.get(key) or texts.setdefault(key, _Text(members, side))
                hits.update(_scan(text, eco, rules))
    return tuple(sorted(hits, key=lambda h: (h.path, h.side, h.line, h.construct)))


def judged_paths(files: Iterable[FileLines], ecosystems: Sequence[Ecosystem]) -> frozenset[str]:
    """The files whose changed lines an ecosystem's judge read: their path floor is the judge's."""
    judges = [eco for eco in ecosystems if eco.judge is not None]
    return frozenset(f.path for f in files if any(eco.holds(f.path) for eco in judges))


def _distinct(by_ecosystem: dict[int, list[FileLines]]) -> Iterable[FileLines]:
    return {id(f): f for members in by_ecosystem.values() for f in members}.values()


class _Text:
    """One side's changed lines of some files, joined into one text, and where each line starts."""

    def __init__(self, members: list[FileLines], side: Side) -> None:
        self.members, self.side = members, side
        self.lines: list[str] = []
        self.owners: list[int] = []  # per line: its file's index in `members`
        self.numbers: list[int] = []
        for index, changed in enumerate(members):
            lines = changed.added if side == "added" else changed.removed
            self.lines.extend(lines)
            self.numbers.extend(changed.added_numbers if side == "added" else changed.removed_numbers)
            self.owners.extend([index] * len(lines))
        self.chunk = "\n".join(self.lines)
        # Line i starts after the lengths of the lines before it and their newlines.
        self.starts = [n + i for i, n in enumerate(accumulate(map(len, self.lines), initial=0))]


def _scan(text: _Text, eco: Ecosystem, rules: list[ContentRule]) -> Iterable[ContentHit]:
    starts, lines = text.starts, text.lines
    for rule in rules:
        near = _regex(rule.near) if rule.near else None
        # Whether the last line asked held `near`: a line with many matches is searched once, not once
        # per match (a long line of them would cost its length squared).
        near_at, near_held = -1, False
        for match in _regex(rule.pattern).finditer(text.chunk):
            at = bisect_right(starts, match.start()) - 1
            offset, line = starts[at], lines[at]
            if match.end() > offset + len(line) and match.end() > match.start():
                continue  # a user's pattern that ran across a line end: lines are searched one by one
            if eco.comments and line.lstrip().startswith(eco.comments):
                continue  # prose about the code (see Ecosystem.comments)
            if near is not None:
                if at != near_at:
                    near_at, near_held = at, near.search(line) is not None
                if not near_held:
                    continue
            yield ContentHit(
                path=text.members[text.owners[at]].path,
                line=text.numbers[at],
                side=text.side,
                construct=rule.construct,
                category=rule.category,
                excerpt=_shown(line, match.start() - offset, match.end() - offset),
            )


class _Words:
    """The distinct words of the changed text: whether a needle can be in it at all."""

    def __init__(self, text: str) -> None:
        raw = text.encode("utf-8", "surrogatepass").translate(_WORD_BYTES)
        self._set = set(raw.split())
        self._joined: bytes | None = None  # made when a needle that may sit inside a word asks
        self._known: dict[str, bool] = {}

    def may_match(self, pattern: str) -> bool:
        """False when `pattern` cannot match: its needle is not a word of the text, nor (unless the
        needle is always a whole word in a match) part of one. True for a pattern without a needle."""
        known = self._known.get(pattern)
        if known is None:
            key = needle(pattern).encode()
            known = not key or key in self._set
            if not known and not whole_word_needle(pattern):
                if self._joined is None:
                    self._joined = b" ".join(self._set)
                known = key in self._joined
            self._known[pattern] = known
        return known


def _regex(pattern: str) -> re.Pattern[str]:
    compiled = _compiled.get(pattern)
    if compiled is None:
        # MULTILINE: `^` and `$` mean the start and end of a line, as they would in one line searched alone.
        compiled = _compiled[pattern] = re.compile(pattern, re.MULTILINE)
    return compiled


def _shown(text: str, start: int, end: int) -> str:
    # Bytes that were not UTF-8 show as U+FFFD; a secret's excerpt must not repeat it, and redaction
    # keeps its kind ("[redacted: ...]").
    cut = excerpt(text, start, end)
    return redact(cut.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


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
