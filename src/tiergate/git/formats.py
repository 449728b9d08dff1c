"""Git's formats, read and made without running git: `diff --raw --numstat -z` records, C-quoted paths,
blob ids, and .gitignore rules moved to the top of the work tree. Pure: no I/O; the other modules of
`tiergate.git` ask git and hand its output here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import replace

from tiergate.frozen import frozen

# Not `from typing import TYPE_CHECKING`: importing typing alone costs a hook several milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import hashlib

SUBMODULE_MODE = "160000"


@frozen
class DiffEntry:
    """One path of `git diff --raw --numstat` between a base and the working tree."""

    status: str  # git's letter: A, C, D, M, R, T, U or X
    path: str  # the new path (the old one for a deletion)
    old_path: str | None  # set for renames and copies
    old_mode: str
    new_mode: str
    old_id: str  # the blob id in the base (all zeros for an addition)
    additions: int | None  # None when git sees a binary file
    deletions: int | None


def parse_raw_numstat(out: bytes) -> list[DiffEntry]:
    """Parse `git diff --raw --numstat -z`: all raw records come first, then all numstat records."""
    fields = out.split(b"\0")
    raws: list[tuple[list[str], str, str | None]] = []
    i = 0
    while i < len(fields) and fields[i].startswith(b":"):
        meta = fields[i][1:].decode().split(" ")
        if meta[4][0] in "RC":
            raws.append((meta, os.fsdecode(fields[i + 2]), os.fsdecode(fields[i + 1])))
            i += 3
        else:
            raws.append((meta, os.fsdecode(fields[i + 1]), None))
            i += 2
    counts: dict[str, tuple[int | None, int | None]] = {}
    while i < len(fields) and fields[i]:
        added, deleted, path = fields[i].split(b"\t", 2)
        if path:
            i += 1
        else:  # a rename or copy: the old and the new path follow
            path = fields[i + 2]
            i += 3
        counts[os.fsdecode(path)] = (_count(added), _count(deleted))
    return [
        DiffEntry(
            status=meta[4][0],
            path=path,
            old_path=old_path,
            old_mode=meta[0],
            new_mode=meta[1],
            old_id=meta[2],
            additions=counts.get(path, (0, 0))[0],
            deletions=counts.get(path, (0, 0))[1],
        )
        for meta, path, old_path in raws
    ]


# In a patch, every line of a hunk starts with '+', '-', ' ' or '\\': a line that starts otherwise is a
# file's header (`diff --git`, `Binary files ... differ`) or a hunk's (`@@ -a,b +c,d @@`). The newline
# before the line is part of the pattern: a literal first character lets `re` skip from one newline to
# the next, where `^` with re.M would be tried at every position (3x slower on a 3.6 MB patch).
_PATCH_MARKS = re.compile(rb"\n(?:(diff --git )|@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@|(Binary files ))")


def with_patch_counts(entries: list[DiffEntry], patch: bytes) -> list[DiffEntry] | None:
    """`entries` (`git diff --raw -z`, no numstat) with their line counts read from the same run's
    patch (`-p`): a file's additions and deletions are its hunks' new and old counts, a binary file has
    none. git lists the patch's files in the raw records' order, one `diff --git` each; when the patch
    does not line up with the records (an unmerged path, a type change shown as two patches, a header
    naming another path), None.

    This spares git the second line diff of every file that `--numstat` beside `-p` costs: on a
    2,000-file change, a third of the claim's git time."""
    added: list[int] = []
    deleted: list[int] = []
    binary: list[bool] = []
    text = b"\n" + patch  # the first line has a newline before it too
    for match in _PATCH_MARKS.finditer(text):
        if match[1] is not None:
            if len(added) == len(entries) or not _names(text, match.end(), entries[len(added)].path):
                return None
            added.append(0)
            deleted.append(0)
            binary.append(False)
        elif not added:
            return None
        elif match[4] is not None:
            binary[-1] = True
        else:
            added[-1] += 1 if match[3] is None else int(match[3])
            deleted[-1] += 1 if match[2] is None else int(match[2])
    if len(added) != len(entries):
        return None
    return [
        replace(e, additions=None if b else a, deletions=None if b else d)
        for e, a, d, b in zip(entries, added, deleted, binary, strict=True)
    ]


def _names(patch: bytes, at: int, path: str) -> bool:
    """Whether the `diff --git` header at `at` can name `path` as its new side (a quoted header, of a
    name git C-quotes, is taken on trust)."""
    line = patch[at : patch.find(b"\n", at)]
    name = os.fsencode(path)
    return line.endswith(b" b/" + name) or line.endswith(b'"')


def _count(field: bytes) -> int | None:
    return None if field == b"-" else int(field)


def rebase_ignore_rules(folder: str, lines: Iterable[str]) -> list[str]:
    """The rules of the .gitignore in `folder` ('' for the top) rewritten relative to the top, with git's
    meaning kept: a pattern with a slash before its end is relative to the .gitignore's folder, one
    without matches at any depth below it."""
    rules = []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        if not folder:
            rules.append(line)
            continue
        negated = line.startswith("!")
        body = line[1:] if negated else line
        anchored = "/" in body.rstrip().rstrip("/")
        rebased = f"/{folder}/{body.lstrip('/')}" if anchored else f"/{folder}/**/{body}"
        rules.append(("!" if negated else "") + rebased)
    return rules


def blob_hasher(size: int, hex_length: int = 40) -> hashlib._Hash:
    """A hash that, fed `size` bytes of content, gives the id git gives that content as a blob.

    SHA-1, or SHA-256 in a repository whose ids are 64 hex digits long.
    """
    import hashlib

    digest = hashlib.sha256() if hex_length == 64 else hashlib.sha1(usedforsecurity=False)
    digest.update(b"blob %d\0" % size)
    return digest


def blob_id(content: bytes, hex_length: int = 40) -> str:
    digest = blob_hasher(len(content), hex_length)
    digest.update(content)
    return digest.hexdigest()


_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_path(name: str) -> str:
    """A path as git prints it in a patch header: C-quoted when it holds quotes, backslashes or controls."""
    if not (len(name) >= 2 and name[0] == name[-1] == '"'):
        return name
    raw = bytearray()
    body, i = name[1:-1], 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 == len(body):
            raw += os.fsencode(char)
            i += 1
        elif body[i + 1] in _ESCAPES:
            raw.append(_ESCAPES[body[i + 1]])
            i += 2
        else:  # three octal digits: one byte of a multi-byte character
            raw.append(int(body[i + 1 : i + 4], 8))
            i += 4
    return os.fsdecode(bytes(raw))
