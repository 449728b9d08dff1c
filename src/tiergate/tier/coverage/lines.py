"""Line coverage as data: which lines of which file are executable, and which ran; pure.

The records `tiergate.tier.coverage.datafiles` reads from coverage files on disk, and the gate measures itself
(`tiergate.gate.coverage.measuring`), both judged by `tiergate.tier.coverage.judgement`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tiergate.frozen import frozen
from tiergate.tier.mutation.fates import MutationRun

Format = Literal[
    "coverage.py JSON",
    "coverage.py data",
    "Cobertura XML",
    "LCOV",
    "Python line coverage, measured at the gate",
    "Node V8 coverage, measured at the gate",
]

GATE_FORMATS: frozenset[str] = frozenset(
    {"Python line coverage, measured at the gate", "Node V8 coverage, measured at the gate"}
)


@frozen
class FileLines:
    executable: frozenset[int]
    hit: frozenset[int]

    def __or__(self, other: FileLines) -> FileLines:
        return FileLines(self.executable | other.executable, self.hit | other.hit)


@frozen
class CoverageData:
    source: str  # the data file, repository-relative; or the gate's check that measured it
    format: Format
    files: Mapping[str, FileLines]  # repository-relative path (as written when outside) -> its lines


@dataclass
class LineMap:
    """Line coverage merged over data files: a line is executable, or hit, if any of them says so."""

    files: dict[str, FileLines] = field(default_factory=dict)
    _by_name: dict[str, set[str]] = field(default_factory=dict)

    def add(self, data: CoverageData) -> None:
        for path, lines in data.files.items():
            known = self.files.get(path)
            self.files[path] = lines if known is None else known | lines
            self._by_name.setdefault(posixpath.basename(path), set()).add(path)

    def get(self, path: str) -> FileLines | None:
        if path in self.files:
            return self.files[path]
        near = [
            key
            for key in self._by_name.get(posixpath.basename(path), ())
            if key.endswith("/" + path) or path.endswith("/" + key)
        ]
        return self.files[near[0]] if len(near) == 1 else None


# Lines that hold only closing brackets and separators: no statement of their own, like coverage.py's
# view of Python (a `}` line ends a block that the line above it already shows run or not).
_CLOSERS = frozenset("})];,")
_COMMENT_STARTS = ("//", "/*", "*")
_LEADING = " \t\r})]"  # what comes before a line's first character of code


def v8_file_lines(source: str, functions: Sequence[Mapping[str, Any]]) -> FileLines:
    """The lines of a JavaScript file that V8's block coverage of one process (`functions`, as
    NODE_V8_COVERAGE writes them per script) shows executable and run. A line is executable when it
    holds code (not blank, not a comment line, not closing brackets only); it ran when the innermost
    range holding its first character of code has a count above 0. V8's offsets count UTF-16 units."""
    # Ranges nest: a function's range, then its blocks that ran a different number of times. The brackets
    # a line begins with close the block before it (`} else if (...) {`), which may never have run.
    ranges = sorted(
        (int(r["startOffset"]), int(r["endOffset"]), int(r["count"]))
        for f in functions
        for r in f.get("ranges", [])
    )
    executable: set[int] = set()
    hit: set[int] = set()
    offset = 0
    for number, line in enumerate(source.split("\n"), start=1):
        text = line.strip()
        if text and not text.startswith(_COMMENT_STARTS) and not set(text) <= _CLOSERS:
            executable.add(number)
            first = offset + _utf16_length(line[: len(line) - len(line.lstrip(_LEADING))])
            if _count_at(ranges, first) > 0:
                hit.add(number)
        offset += _utf16_length(line) + 1
    return FileLines(frozenset(executable), frozenset(hit))


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _count_at(ranges: list[tuple[int, int, int]], offset: int) -> int:
    """The count of the innermost (shortest) range holding `offset`; 0 when none does."""
    best: tuple[int, int] | None = None  # (length, count)
    for start, end, count in ranges:
        if start > offset:
            break
        if offset < end and (best is None or end - start <= best[0]):
            best = (end - start, count)
    return 0 if best is None else best[1]


@frozen
class NodeRun:
    """One Node process of a measured run: the test files it ran (relative to where it ran), the change's
    lines it ran (`node --test` runs each test file in a process of its own)."""

    tests: tuple[str, ...]
    lines: Mapping[str, FileLines]


@frozen
class GateCoverage:
    """What the gate measured of the change's code `files`: one record per check that measured, and
    for each test check that did not, why (one line each, naming the check)."""

    files: tuple[str, ...]
    measured: tuple[CoverageData, ...] = ()
    off: tuple[str, ...] = ()
    # What became of the changed lines' mutants, run by the same tests (`tiergate.gate.mutation`); None:
    # no mutation step was asked for.
    mutation: MutationRun | None = None

    def summary(self) -> dict[str, Any]:
        """For the decision log: who measured, which files, why the others did not, the mutants' score."""
        return {
            "files": list(self.files),
            "measured": [d.source for d in self.measured],
            "off": list(self.off),
            **({"mutation": self.mutation.summary()} if self.mutation is not None else {}),
        }

    def to_record(self) -> dict[str, Any]:
        return {
            "files": list(self.files),
            "measured": [
                {
                    "source": d.source,
                    "format": d.format,
                    "files": {p: [sorted(ln.executable), sorted(ln.hit)] for p, ln in d.files.items()},
                }
                for d in self.measured
            ],
            "off": list(self.off),
            "mutation": None if self.mutation is None else self.mutation.to_record(),
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> GateCoverage:
        """The record `to_record` wrote; ValueError (or KeyError, TypeError) when it is not one."""
        measured = []
        for item in record["measured"]:
            if item["format"] not in GATE_FORMATS:
                raise ValueError(f"not a format of the gate: {item['format']!r}")
            files = {
                str(path): FileLines(frozenset(map(int, executable)), frozenset(map(int, hit)))
                for path, (executable, hit) in item["files"].items()
            }
            measured.append(CoverageData(str(item["source"]), item["format"], files))
        mutation = record.get("mutation")
        return cls(
            tuple(map(str, record["files"])),
            tuple(measured),
            tuple(map(str, record["off"])),
            None if mutation is None else MutationRun.from_record(mutation),
        )
