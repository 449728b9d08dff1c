"""The workspace as a tree of its bytes, and a folder written from a tree byte for byte.

What the gate evaluates a claim on (`tiergate.gate.cleancopy`): the base commit with the change put in,
each file as its bytes on disk (`hash-object --no-filters`), written out the same way (no checkout). A
symlink reaching outside the tree's files is resolved and named. See docs/judging.md, "The claim's copy".
"""
# No attribute, filter, end-of-line or encoding conversion the repository's `.gitattributes` or config
# could ask for; a checkout would convert by the attributes the tree itself holds. A symlink whose target
# is not a file of the tree (an ignored folder, a path outside the repository) is resolved: the file it
# reaches goes into the tree as a file, and is named, since what it holds was in no change.

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from tiergate.frozen import frozen
from tiergate.git import indexcopy, objects, runner

# The most bytes a resolved symlink may bring into the tree: a link to a folder of data is left dangling.
MAX_RESOLVED = 8 * 1024 * 1024


@frozen
class RawTree:
    """A tree of the workspace: `tree` its id; `resolved` the symlinks of it that were resolved into
    files, each with what they reached ("tests/conftest.py -> build/conftest.py")."""

    tree: str
    resolved: tuple[str, ...] = ()


def workspace_tree(root: Path, commit: str, paths: Iterable[str]) -> RawTree:
    """`commit` with each of `paths` (repository-relative: the change's, deleted ones included) as it is
    on disk in the work tree at `root`, byte for byte."""
    with indexcopy.scratch_index() as index:
        runner.run(root, "read-tree", commit, index=index)
        entries, gone = _entries(root, sorted(set(paths)))
        if gone:
            removed = b"".join(os.fsencode(p) + b"\0" for p in gone)
            runner.run(root, "update-index", "-z", "--force-remove", "--stdin", stdin=removed, index=index)
        if entries:
            runner.run(root, "update-index", "-z", "--index-info", stdin=b"".join(entries), index=index)
        links = _resolved_links(root, index)
        tree = runner.text(runner.run(root, "write-tree", index=index).stdout)
        return RawTree(tree, links)


def _entries(root: Path, paths: Sequence[str]) -> tuple[list[bytes], list[str]]:
    """Index lines for the paths that exist (files by their bytes, symlinks as links), and the gone ones."""
    files: list[tuple[str, str]] = []
    links: list[tuple[str, bytes]] = []
    gone: list[str] = []
    for path in paths:
        try:
            info = (root / path).lstat()
        except OSError:
            gone.append(path)
            continue
        if stat.S_ISLNK(info.st_mode):
            links.append((path, os.fsencode((root / path).readlink())))
        elif stat.S_ISREG(info.st_mode):
            files.append((path, "100755" if info.st_mode & stat.S_IXUSR else "100644"))
        else:
            gone.append(path)  # a folder (a nested repository), a socket: no file of the tree
    blobs = _hash_files(root, [p for p, _ in files])
    lines = [_line(mode, blob, path) for (path, mode), blob in zip(files, blobs, strict=True)]
    for path, target in links:
        lines.append(_line("120000", _hash_bytes(root, target), path))
    return lines, gone


def _line(mode: str, blob: str, path: str) -> bytes:
    return f"{mode} {blob}\t".encode() + os.fsencode(path) + b"\0"


def _hash_files(root: Path, paths: Sequence[str]) -> list[str]:
    if not paths:
        return []
    # One path a line: a name with a newline goes one by one.
    plain = [p for p in paths if "\n" not in p]
    stdin = "".join(f"{p}\n" for p in plain).encode()
    out = runner.run(root, "hash-object", "-w", "--no-filters", "--stdin-paths", stdin=stdin).stdout
    found = dict(zip(plain, out.decode().split(), strict=True))
    for path in paths:
        if path not in found:
            found[path] = _hash_bytes(root, (root / path).read_bytes())
    return [found[p] for p in paths]


def _hash_bytes(root: Path, data: bytes) -> str:
    return runner.text(runner.run(root, "hash-object", "-w", "--no-filters", "--stdin", stdin=data).stdout)


def _resolved_links(root: Path, index: Path) -> tuple[str, ...]:
    """Each symlink of the index whose target is no file of it, replaced by the regular file it reaches
    in the work tree (when there is one, under MAX_RESOLVED); what was resolved."""
    listing = runner.run(root, "ls-files", "-s", "-z", index=index).stdout
    files: set[str] = set()
    links: list[tuple[str, str]] = []
    for record in listing.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        if not tab:
            continue
        path = os.fsdecode(raw)
        files.add(path)
        if meta.startswith(b"120000 "):
            links.append((path, meta.split(b" ")[1].decode()))
    if not links:
        return ()
    targets = objects.blobs(root, [blob for _, blob in links])
    resolved: list[str] = []
    lines: list[bytes] = []
    for (path, _), target in zip(links, targets, strict=True):
        if not leaves_tree(path, os.fsdecode(target), files):
            continue
        real = (root / path).resolve()
        found = _reached(real)
        # The link goes; what it reached takes its place (a folder's files under its name), or nothing
        # when that is too much to read: a copy never reaches out of itself.
        lines.append(b"0 " + b"0" * 40 + b"\t" + os.fsencode(path) + b"\0")
        lines.extend(_line("100644", _hash_bytes(root, data), f"{path}{sub}") for sub, data in found or ())
        left = "" if found is not None else " (left out: nothing there, or too much to copy)"
        resolved.append(f"{path} -> {_shown(root, real)}{left}")
    if lines:
        runner.run(root, "update-index", "-z", "--index-info", stdin=b"".join(lines), index=index)
    return tuple(resolved)


def leaves_tree(path: str, target: str, files: set[str]) -> bool:
    """Whether a symlink at `path` to `target` reaches out of a tree of `files`: out of the repository,
    or to a path that is no file of the tree nor a folder holding some (an ignored folder). Pure."""
    inside = _inside(path, target)
    return inside is None or not _reaches_file_of(inside, files)


def tree_files(root: Path, tree: str) -> set[str]:
    """The paths of the files of `tree`."""
    listing = runner.run(root, "ls-tree", "-r", "-z", "--name-only", "--full-tree", tree).stdout
    return {os.fsdecode(p) for p in listing.split(b"\0") if p}


def _inside(path: str, target: str) -> str | None:
    """The repository-relative path a link at `path` to `target` names, None when it leaves the tree."""
    if target.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    return None if joined == ".." or joined.startswith("../") else joined


def _reaches_file_of(target: str, files: set[str]) -> bool:
    """Whether `target` is a file of the tree, or a folder holding some."""
    return target in files or any(f.startswith(target + "/") for f in files)


def _reached(real: Path) -> list[tuple[str, bytes]] | None:
    """The files a link reaches, by their path below it ("" for a link to a file), up to MAX_RESOLVED
    bytes in all; None when it reaches nothing, or too much."""
    try:
        if real.is_file():
            files = [("", real)]
        elif real.is_dir():
            inner = sorted(f for f in real.rglob("*") if f.is_file())
            files = [(f"/{f.relative_to(real).as_posix()}", f) for f in inner]
        else:
            return None
        if sum(f.stat().st_size for _, f in files) > MAX_RESOLVED:
            return None
        return [(sub, f.read_bytes()) for sub, f in files]
    except OSError:
        return None


def _shown(root: Path, real: Path) -> str:
    try:
        return real.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(real)


def write_tree(root: Path, tree: str, into: Path) -> dict[str, tuple[int, int]]:
    """Every file of `tree` written into the folder `into`, byte for byte, with its mode; symlinks as
    symlinks. Submodules (commits) are left out: they hold nothing of this repository's. Each file's
    stamp (inode, change time) as it was written, taken from the open file before it is closed: a later
    write by anyone, even one made before the caller looks, moves it."""
    listing = runner.run(root, "ls-tree", "-r", "-z", "--full-tree", tree).stdout
    records: list[tuple[str, str, str]] = []
    for record in listing.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        if tab:
            mode, kind, blob = meta.decode().split(" ")
            if kind == "blob":
                records.append((os.fsdecode(raw), mode, blob))
    stamps: dict[str, tuple[int, int]] = {}
    for start in range(0, len(records), 2000):
        chunk = records[start : start + 2000]
        for (path, mode, _), data in zip(chunk, objects.blobs(root, [b for _, _, b in chunk]), strict=True):
            stamps[path] = _write(into / path, mode, data)
    return stamps


def _write(file: Path, mode: str, data: bytes) -> tuple[int, int]:
    file.parent.mkdir(parents=True, exist_ok=True)
    if mode == "120000":
        file.symlink_to(os.fsdecode(data))
        info = file.lstat()
        return info.st_ino, info.st_ctime_ns
    fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o755 if mode == "100755" else 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        info = os.fstat(fd)
        return info.st_ino, info.st_ctime_ns
    finally:
        os.close(fd)
