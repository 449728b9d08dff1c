"""Git's formats, read and made without running git: `diff --raw --numstat -z` records, C-quoted paths,
blob ids, an index file's entries, and .gitignore rules moved to the top of the work tree. Pure: no I/O;
the other modules of `tiergate.git` ask git (or read its files) and hand the bytes here.
"""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Iterable
from dataclasses import replace

from tiergate import TYPE_CHECKING
from tiergate.frozen import frozen

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
    none. None when the patch, one `diff --git` a record in their order, does not line up with them (an
    unmerged path, a type change shown as two patches, a header naming another path)."""
    # This spares git the second line diff of every file that `--numstat` beside `-p` costs: on a
    # 2,000-file change, a third of the claim's git time.
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


def c_quoted(raw: bytes) -> bytes:
    """A path as git reads a C-quoted line (`--stdin-paths`): any name survives, newlines included."""
    out = bytearray(b'"')
    for byte in raw:
        if byte in b'"\\':
            out += b"\\" + bytes([byte])
        elif 0x20 <= byte < 0x7F:
            out.append(byte)
        else:
            out += b"\\%03o" % byte
    return bytes(out + b'"')


@frozen
class IndexEntry:
    """A stage-0 file entry of an index file (`index_entries`): what `update-index --index-info` takes."""

    path: bytes
    mode: int
    oid: str

    @property
    def info_line(self) -> bytes:
        """The entry as an `update-index -z --index-info` line: no stat data, so git reads the file."""
        return b"%o %s\t%s\0" % (self.mode, self.oid.encode(), self.path)


# The modes of a file entry: a regular file, an executable one, a symlink (not a submodule, not a sparse
# index's directory).
_FILE_MODES = frozenset({0o100644, 0o100755, 0o120000})
# An entry's stat data: ctime (seconds, nanoseconds), mtime, dev, ino, mode, uid, gid, size.
_STAT = struct.Struct(">10I")


def index_entries(data: bytes, oid_size: int, since: int = 0) -> list[IndexEntry] | None:
    """The stage-0 file entries of the index file `data` whose stat data records a ctime of `since` or
    later (seconds), read as git reads versions 2 to 4 (gitformat-index); object ids of `oid_size` bytes
    (20 for SHA-1, 32 for SHA-256). None for what this reader does not take: another version, a split
    index (most of its entries are in a shared file), or bytes that are no index; the caller then asks git."""
    if len(data) < 12 or data[:4] != b"DIRC" or int.from_bytes(data[4:8], "big") not in (2, 3, 4):
        return None
    found: list[IndexEntry] = []
    try:
        at = _entries(data, oid_size, since, found)
    except (ValueError, IndexError, struct.error):  # cut short, or a name without its NUL
        return None
    return found if at is not None and _plain_extensions(data, at, oid_size) else None


def _entries(data: bytes, oid_size: int, since: int, found: list[IndexEntry]) -> int | None:
    """Put the entries of the index `data` that `index_entries` returns into `found`; where they end, or
    None for an entry this reader does not take."""
    version, count = int.from_bytes(data[4:8], "big"), int.from_bytes(data[8:12], "big")
    at, previous = 12, b""
    for _ in range(count):
        start = at
        ctime, _, _, _, _, _, mode, _, _, _ = _STAT.unpack_from(data, start)
        name = start + 40 + oid_size + 2
        flags = int.from_bytes(data[name - 2 : name], "big")
        if flags & 0x4000:  # extended flags: two bytes more, from version 3 on
            if version < 3:
                return None
            name += 2
        if version == 4:  # the name is the previous one's, some bytes cut, then this
            strip, name = _varint(data, name)
            end = data.index(b"\0", name)
            if strip > len(previous):
                return None
            path = previous[: len(previous) - strip] + data[name:end]
            previous, at = path, end + 1
        else:
            end = data.index(b"\0", name)
            path = data[name:end]
            at = start + ((end - start + 8) & ~7)  # NUL-padded to a multiple of 8 bytes
        if ctime >= since and (flags >> 12) & 3 == 0 and mode in _FILE_MODES:
            found.append(IndexEntry(path, mode, data[start + 40 : start + 40 + oid_size].hex()))
    return at


def _plain_extensions(data: bytes, at: int, oid_size: int) -> bool:
    """Whether the extensions from `at` run up to the checksum, none of them a split index's `link` (it
    names the shared file that holds most entries)."""
    while at + 8 <= len(data) - oid_size:
        if data[at : at + 4] == b"link":
            return False
        at += 8 + int.from_bytes(data[at + 4 : at + 8], "big")
    return at == len(data) - oid_size


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset varint at `at` (index version 4's name prefix), and where what follows it starts."""
    byte = data[at]
    value = byte & 0x7F
    while byte & 0x80:
        at += 1
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, at + 1
