"""Reading git's unified diff (`git diff -U0 -M`) into the changed lines of each file, per side. Pure.

The one diff reader: the content rules read its lines, the coverage judgement its new-side line numbers.
Hunks are counted from their `@@` headers, paths unquoted as git quotes them, source maps (`generated`)
left unread; a `-U0` hunk is sliced out of the line list whole, so no line is copied. See docs/risk.md,
"Reading the patch".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from tiergate.git.formats import unquote_path

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_DEV_NULL = "/dev/null"


Side = Literal["added", "removed"]
MARKS: dict[Side, str] = {"added": "+", "removed": "-"}


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive changed lines of one side of a file: the first one's number on that side (the new
    file's for added lines, the old file's for removed ones), and the lines as a diff shows them, each
    starting with its side's mark ('+' or '-')."""

    number: int
    lines: list[str]


@dataclass
class FileLines:
    """The changed lines of one file, per side, in the order of the diff, as runs of consecutive lines."""

    path: str
    added_runs: list[Run] = field(default_factory=list)
    removed_runs: list[Run] = field(default_factory=list)

    def runs(self, side: Side) -> list[Run]:
        return self.added_runs if side == "added" else self.removed_runs

    @property
    def added(self) -> list[str]:
        return _texts(self.added_runs)

    @property
    def added_numbers(self) -> list[int]:
        return _numbers(self.added_runs)

    @property
    def removed(self) -> list[str]:
        return _texts(self.removed_runs)

    @property
    def removed_numbers(self) -> list[int]:
        return _numbers(self.removed_runs)


def _texts(runs: list[Run]) -> list[str]:
    return [line[1:] for run in runs for line in run.lines]


def _numbers(runs: list[Run]) -> list[int]:
    return [n for run in runs for n in range(run.number, run.number + len(run.lines))]


def _extend(runs: list[Run], number: int, marked: str) -> None:
    """Add a line to the side's runs: to the last run if it is that run's next line, else as a new run."""
    if runs and runs[-1].number + len(runs[-1].lines) == number:
        runs[-1].lines.append(marked)
    else:
        runs.append(Run(number, [marked]))


# A file's header: every line of a hunk starts with '+', '-', ' ' or '\\', so this is never one of them.
_DIFF = b"diff --git "
GENERATED_SUFFIXES = (".map",)


def generated(path: str) -> bool:
    """Whether the content rules leave a file unread as generated (see the module)."""
    return path.lower().endswith(GENERATED_SUFFIXES)


def parse_patch(patch: bytes) -> list[FileLines]:
    """Every file of `patch` with at least one added or removed line (generated files left out)."""
    files: list[FileLines] = []
    lines = _without_generated(patch).decode("utf-8", "surrogateescape").split("\n")
    old_path = ""
    current: FileLines | None = None
    i, end = 0, len(lines)
    while i < end:
        line = lines[i]
        i += 1
        if line.startswith("diff --git "):
            old_path, current = "", None
        elif line.startswith("--- "):
            # Outside a hunk (hunks are read to their counts), this is always a file's header.
            old_path, current = _side_path(line[4:], "a/"), None
        elif line.startswith("+++ ") and current is None:
            new_path = _side_path(line[4:], "b/")
            current = FileLines(new_path if new_path != _DEV_NULL else old_path)
            files.append(current)
        elif current is not None and line.startswith("@@ ") and (hunk := _HUNK.match(line)) is not None:
            i = _read_hunk(lines, i, hunk, current)
    return [f for f in files if f.added_runs or f.removed_runs]


def _without_generated(patch: bytes) -> bytes:
    """`patch` without the files whose `diff --git` header names a generated file as its new side; cut
    out before anything is decoded, since they are most of the bytes when they are there at all."""
    if not any(
        f"{suffix}\n".encode() in patch or f'{suffix}"\n'.encode() in patch for suffix in GENERATED_SUFFIXES
    ):
        return patch
    # Where each file starts (`bytes.find` runs at memchr speed; a `^` regex is tried at every line).
    starts = [0] if patch.startswith(_DIFF) else []
    at = patch.find(b"\n" + _DIFF)
    while at != -1:
        starts.append(at + 1)
        at = patch.find(b"\n" + _DIFF, at + 1)
    if not starts:
        return patch
    kept = [patch[: starts[0]]]
    for start, end in zip(starts, [*starts[1:], len(patch)], strict=True):
        newline = patch.find(b"\n", start, end)
        header = patch[start : end if newline == -1 else newline]
        if not header.rstrip(b'"').decode("utf-8", "surrogateescape").lower().endswith(GENERATED_SUFFIXES):
            kept.append(patch[start:end])
    return b"".join(kept)


def _read_hunk(lines: list[str], i: int, hunk: re.Match[str], into: FileLines) -> int:
    old_at, old_count = int(hunk[1]), _count(hunk[2])
    new_at, new_count = int(hunk[3]), _count(hunk[4])
    removed, added = lines[i : i + old_count], lines[i + old_count : i + old_count + new_count]
    if _all_marked(removed, "-", old_count) and _all_marked(added, "+", new_count):
        if removed:
            into.removed_runs.append(Run(old_at, removed))
        if added:
            into.added_runs.append(Run(new_at, added))
        i += old_count + new_count
    else:
        i = _read_hunk_lines(lines, i, (old_at, old_count, new_at, new_count), into)
    # The marker for the hunk's last line comes after its count has run out.
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    return i


def _all_marked(run: list[str], mark: str, count: int) -> bool:
    # A -U0 hunk holds no context; a "\ No newline" marker inside it would show at one end of a run.
    return len(run) == count and (not run or (run[0][:1] == mark and run[-1][:1] == mark))


def _read_hunk_lines(lines: list[str], i: int, counts: tuple[int, int, int, int], into: FileLines) -> int:
    old_at, old_count, new_at, new_count = counts
    end = len(lines)
    while (old_count > 0 or new_count > 0) and i < end:
        line = lines[i]
        i += 1
        mark = line[:1]
        if mark == "+":
            _extend(into.added_runs, new_at, line)
            new_at, new_count = new_at + 1, new_count - 1
        elif mark == "-":
            _extend(into.removed_runs, old_at, line)
            old_at, old_count = old_at + 1, old_count - 1
        elif mark == " ":
            old_at, new_at, old_count, new_count = old_at + 1, new_at + 1, old_count - 1, new_count - 1
        elif mark != "\\":
            i -= 1  # a malformed hunk: stop reading it rather than take a header for a line
            break
    return i


def _count(field: str | None) -> int:
    return 1 if field is None else int(field)


def _side_path(name: str, prefix: str) -> str:
    # git ends a name holding a space with a tab in ---/+++ lines.
    if name.endswith("\t"):
        name = name[:-1]
    name = unquote_path(name)
    if name == _DEV_NULL:
        return name
    return name[len(prefix) :] if name.startswith(prefix) else name
