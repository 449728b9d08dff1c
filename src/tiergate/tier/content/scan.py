"""Searching the changed lines for the rules' constructs. Pure.

Each rule is its own pass over one text per side (the changed lines of the files its ecosystems read,
joined), so the cost is rules x megabytes, never rules x lines; offsets map back to lines by bisection.
A rule whose needle (`rule.needle`) is in no word of the change gets no pass. Why: docs/risk.md, "Speed".
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate, chain

from tiergate.redact import redact
from tiergate.tier.content.patch import MARKS, FileLines, Run, Side, parse_patch
from tiergate.tier.content.rule import (
    ContentHit,
    ContentRule,
    Ecosystem,
    needle,
    suffix_of,
    whole_word_needle,
)

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
    if not text:
        return FileLines(path)
    body = text[:-1] if text.endswith("\n") else text
    # Marked as a diff marks them, in one pass: '+' before every line.
    lines = f"+{body}".replace("\n", "\n+").split("\n")
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    return FileLines(path, added_runs=[Run(1, lines)])


def scan_files(files: Iterable[FileLines], ecosystems: Sequence[Ecosystem]) -> tuple[ContentHit, ...]:
    """As `scan_patch`, for changed lines already read."""
    by_ecosystem = _members(files, ecosystems)
    hits: set[ContentHit] = set()
    for i, members in by_ecosystem.items():
        judge = ecosystems[i].judge
        if judge is not None:
            for changed in members:
                hits.update(judge(changed))
    texts: dict[tuple[tuple[int, ...], Side], _Text] = {}  # shared by ecosystems reading the same files
    # The words come from the texts of all the files read (most often `common`'s own: every text file).
    every = list(_distinct(by_ecosystem))
    words = _Words([_text(texts, every, side).chunk for side in _SIDES])
    for i, members in by_ecosystem.items():
        eco = ecosystems[i]
        for side in _SIDES:
            # Rules whose needle the change cannot hold get no pass, and a side with none no text.
            rules = [r for r in eco.rules if r.reads(side) and words.may_match(r.pattern)]
            if rules:
                hits.update(_scan(_text(texts, members, side), eco, rules))
    return tuple(sorted(hits, key=lambda h: (h.path, h.side, h.line, h.construct)))


def _members(files: Iterable[FileLines], ecosystems: Sequence[Ecosystem]) -> dict[int, list[FileLines]]:
    """The files each ecosystem reads (by its index), in order."""
    by_ecosystem: dict[int, list[FileLines]] = {}
    # Most ecosystems go by suffix alone: a file's suffix says which of them to ask, with those that
    # go by name.
    by_suffix: dict[str, list[int]] = {}
    for changed in files:
        name = changed.path.rpartition("/")[2]
        suffix = suffix_of(name)
        candidates = by_suffix.get(suffix)
        if candidates is None:
            candidates = by_suffix[suffix] = [
                i for i, eco in enumerate(ecosystems) if eco.names or suffix in eco.suffixes
            ]
        for i in candidates:
            if ecosystems[i].names_file(name, suffix) and ecosystems[i].places(changed.path):
                by_ecosystem.setdefault(i, []).append(changed)
    return by_ecosystem


def judged_paths(files: Iterable[FileLines], ecosystems: Sequence[Ecosystem]) -> frozenset[str]:
    """The files whose changed lines an ecosystem's judge read: their path floor is the judge's."""
    judges = [eco for eco in ecosystems if eco.judge is not None and eco.judge_replaces_path_floor]
    return frozenset(f.path for f in files if any(eco.holds(f.path) for eco in judges))


def _distinct(by_ecosystem: dict[int, list[FileLines]]) -> Iterable[FileLines]:
    return {id(f): f for members in by_ecosystem.values() for f in members}.values()


def _text(texts: dict[tuple[tuple[int, ...], Side], _Text], members: list[FileLines], side: Side) -> _Text:
    key = (tuple(id(m) for m in members), side)
    text = texts.get(key)
    if text is None:
        text = texts[key] = _Text(members, side)
    return text


class _Text:
    """One side's changed lines of some files, joined into one text without their marks; where each
    line starts is worked out only when a rule matched (most passes find nothing)."""

    def __init__(self, members: list[FileLines], side: Side) -> None:
        self.members, self.side = members, side
        self.runs = [(index, run) for index, changed in enumerate(members) for run in changed.runs(side)]
        self.lines = list(chain.from_iterable(run.lines for _, run in self.runs))  # marked
        # The line index of each run's first line.
        self.run_starts = list(accumulate((len(run.lines) for _, run in self.runs), initial=0))
        # Every line starts with its side's mark: dropping the first character and the one after each
        # newline drops exactly the marks (`str.replace` goes left to right, never over its own output).
        self.chunk = "\n".join(self.lines)[1:].replace(f"\n{MARKS[side]}", "\n")
        self._starts: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        """Where each line starts in `chunk`: a marked line's length is its text's plus one newline."""
        if self._starts is None:
            self._starts = list(accumulate(map(len, self.lines), initial=0))
        return self._starts

    def owner(self, at: int) -> tuple[str, int]:
        """The path and the line number of line `at`."""
        r = bisect_right(self.run_starts, at) - 1
        index, run = self.runs[r]
        return self.members[index].path, run.number + at - self.run_starts[r]


def _scan(text: _Text, eco: Ecosystem, rules: list[ContentRule]) -> Iterable[ContentHit]:
    lines = text.lines
    for rule in rules:
        near = _regex(rule.near) if rule.near else None
        # Whether the last line asked held `near`: a line with many matches is searched once, not once
        # per match (a long line of them would cost its length squared).
        near_at, near_held = -1, False
        for match in _regex(rule.pattern).finditer(text.chunk):
            starts = text.starts
            at = bisect_right(starts, match.start()) - 1
            offset, line = starts[at], lines[at][1:]
            if match.end() > offset + len(line) and match.end() > match.start():
                continue  # a user's pattern that ran across a line end: lines are searched one by one
            if eco.comments and line.lstrip().startswith(eco.comments):
                continue  # prose about the code (see Ecosystem.comments)
            if near is not None:
                if at != near_at:
                    near_at, near_held = at, near.search(line) is not None
                if not near_held:
                    continue
            path, number = text.owner(at)
            yield ContentHit(
                path=path,
                line=number,
                side=text.side,
                construct=rule.construct,
                category=rule.category,
                excerpt=_shown(line, match.start() - offset, match.end() - offset),
            )


class _Words:
    """The distinct words of the changed text: whether a needle can be in it at all."""

    def __init__(self, texts: Iterable[str]) -> None:
        raw = "\n".join(texts).encode("utf-8", "surrogatepass").translate(_WORD_BYTES)
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
