"""The working tree as bytes, for backups and rollbacks: scanned into git objects exactly as it is on
disk (`git.store` hashes and copies them), and a tree's files written back by tiergate itself.

See docs/state.md, section "How a workspace is kept".
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from tiergate.errors import UserError
from tiergate.frozen import frozen
from tiergate.git import formats, objectstore, repository, runner, untracked
from tiergate.git.objectstore import Entries

GITLINK = "160000"


@frozen
class Disk:
    """The working tree as scanned: what a backup of it holds, and what a rollback must know."""

    files: Entries
    index: Entries | None  # stage 0 entries; None: the index has conflicts
    sparse: frozenset[str]  # skip-worktree entries absent from disk, taken as the index has them
    empty_dirs: tuple[str, ...]
    head: str | None
    links: Mapping[str, bytes]  # the symlinks' targets, by path


# -- reading the working tree ----------------------------------------------------------------------------


def scan(root: Path, target: Mapping[str, tuple[str, str]] | None = None) -> Disk:
    """Hash the working tree, writing nothing (`keep` writes the objects): tracked files as they are on
    disk, untracked files git does not ignore, and, with a `target`, the ignored files in its way."""
    head = repository.head_sha(root)
    index: Entries = {}
    unmerged, skip, paths = False, set(), set()
    files: Entries = {}
    for record in runner.run(root, "ls-files", "-z", "-s", "-v").stdout.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        tag, mode, oid, stage = os.fsdecode(meta).split(" ")
        path = os.fsdecode(raw_path)
        if stage != "0":
            unmerged = True
        else:
            index[path] = (mode, oid)
        if tag in ("S", "s"):
            skip.add(path)
        if mode == GITLINK:
            files[path] = (mode, oid)  # a submodule: its pointer as the index has it, its files left alone
        else:
            paths.add(path)
    # Untracked files git does not ignore; a nested repository is one entry ending in '/': left alone.
    paths.update(p for p in untracked.untracked_by_git_rules(root) if not p.endswith("/"))
    found: dict[str, str | bytes] = {}  # path -> a file's mode, or a symlink's target
    sparse: set[str] = set()
    for path in sorted(paths):
        kind = _kind(root / path)
        if kind is not None:
            found[path] = kind
        elif path in skip and path in index and not on_disk(root, path):
            files[path] = index[path]  # outside a sparse checkout: not a deletion
            sparse.add(path)
    extra_dirs: list[str] = []
    if target is not None:
        found.update(_in_the_way(root, target, set(found) | set(files), extra_dirs))
    ids = _hash(root, None, found)
    files.update({p: ("120000" if isinstance(k, bytes) else k, ids[p]) for p, k in found.items()})
    empty = sorted({*_empty_dirs(root, found), *extra_dirs})
    links = {p: k for p, k in found.items() if isinstance(k, bytes)}
    return Disk(files, None if unmerged else index, frozenset(sparse), tuple(empty), head, links)


def keep(root: Path, disk: Disk, into: Path, also: Iterable[str] = ()) -> None:
    """Put every blob `disk` names (its files', its index's), and the repository's objects `also`, into
    the git dir `into`: those the repository has, copied in one pack; the others (new and changed files)
    hashed from disk again, and checked to be what the scan saw."""
    entries = [*disk.files.values(), *(disk.index or {}).values()]
    wanted = {oid for mode, oid in entries if mode != GITLINK} | set(also)
    missing = objectstore.missing(into, wanted)
    source = repository.git_dir(root)
    if missing and source != into:
        lacking = set(objectstore.missing(source, missing))
        # All of them missing in `into`, as just asked: copied, they are there (index-pack checked them).
        objectstore.copy_missing(source, into, [oid for oid in missing if oid not in lacking])
        missing = [oid for oid in missing if oid in lacking]
    paths: dict[str, str | bytes] = {}
    for path, (mode, oid) in disk.files.items():
        if oid in missing and mode != GITLINK:
            paths[path] = disk.links[path] if mode == "120000" else mode
    written = _hash(root, into, paths)
    changed = [p for p, oid in written.items() if oid != disk.files[p][1]]
    if changed:
        raise UserError(f"{changed[0]} changed while tiergate saved the workspace; nothing was touched")


def _kind(path: Path) -> str | bytes | None:
    """A file's git mode ("100644", "100755"), a symlink's target (bytes), or None (missing, a directory,
    or not a file git keeps)."""
    try:
        info = path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(info.st_mode):
        return os.fsencode(str(path.readlink()))
    if stat.S_ISREG(info.st_mode):
        return "100755" if info.st_mode & stat.S_IXUSR else "100644"
    return None


def on_disk(root: Path, path: str) -> bool:
    try:
        (root / path).lstat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def _in_the_way(
    root: Path, target: Mapping[str, tuple[str, str]], listed: set[str], empty: list[str]
) -> Iterator[tuple[str, str | bytes]]:
    """The ignored files (not in `listed`) standing where `target` puts a file or needs a directory;
    empty directories met on the way go into `empty`. Nothing is followed through a symlink."""
    directory: dict[str, bool] = {}  # prefix -> a real directory, to look below
    for path, (mode, _) in sorted(target.items()):
        if mode == GITLINK or path in listed:
            continue
        parts = path.split("/")
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            if prefix in listed:
                break  # a file in the backup already (removed before the target's are written)
            if prefix in directory:
                if directory[prefix]:
                    continue
                break
            try:
                info = (root / prefix).lstat()
            except (FileNotFoundError, NotADirectoryError):
                directory[prefix] = False
                break
            directory[prefix] = stat.S_ISDIR(info.st_mode) and depth < len(parts)
            if stat.S_ISDIR(info.st_mode):
                if depth == len(parts):  # a directory where the target has a file: all of it is in the way
                    yield from _everything_under(root, prefix, listed, empty)
                continue
            kind = _kind(root / prefix)
            if kind is not None:
                yield prefix, kind
            break


def _everything_under(
    root: Path, top: str, listed: set[str], empty: list[str]
) -> Iterator[tuple[str, str | bytes]]:
    for here, dirs, names in os.walk(root / top):
        rel = Path(here).relative_to(root).as_posix()
        if ".git" in dirs or ".git" in names:
            raise UserError(f"a repository ({rel}) stands where the rollback's target has a file; move it")
        if not dirs and not names:
            empty.append(rel)
        for name in names + [d for d in dirs if (Path(here) / d).is_symlink()]:
            path = f"{rel}/{name}"
            kind = _kind(root / path)
            if kind is not None and path not in listed:
                yield path, kind


def _empty_dirs(root: Path, files: Iterable[str]) -> list[str]:
    """The working tree's empty directories (the leaves: their parents come with them): directories
    beside those holding `files` that hold no file at any depth. A directory holding anything else (an
    ignored file, a nested repository's `.git`) is not looked into further: one listing tells."""
    holding = {""} | {"/".join(p.split("/")[:n]) for p in files for n in range(1, p.count("/") + 1)}
    found: list[str] = []
    for directory in sorted(holding):
        with contextlib.suppress(OSError), os.scandir(root / directory) as entries:
            for entry in entries:
                rel = f"{directory}/{entry.name}" if directory else entry.name
                if rel not in holding and entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                    leaves = _only_directories(Path(entry.path))
                    found += [rel if leaf == "." else f"{rel}/{leaf}" for leaf in leaves]
    return found


def _only_directories(top: Path) -> list[str]:
    """The leaf directories under `top` (relative, "." for itself) when it holds no file at any depth;
    else none."""
    leaves = []
    for here, dirs, names in os.walk(top):
        if names or any((Path(here) / d).is_symlink() for d in dirs):
            return []
        if not dirs:
            leaves.append(Path(here).relative_to(top).as_posix())
    return leaves


def _hash(root: Path, into: Path | None, found: Mapping[str, str | bytes]) -> dict[str, str]:
    """Blob ids of the files (as they are on disk, no conversion of any kind) and of the symlinks'
    targets (the bytes in `found`), written into the git dir `into` when given."""
    if not found:
        return {}
    with tempfile.TemporaryDirectory(prefix="tiergate-links-") as scratch:
        sources = []
        for n, (path, kind) in enumerate(found.items()):
            if isinstance(kind, bytes):  # a symlink: its target is the blob, hashed from a scratch copy
                (Path(scratch) / str(n)).write_bytes(kind)
                sources.append(Path(scratch) / str(n))
            else:
                sources.append(root / path)
        ids = objectstore.hash_files(into or repository.git_dir(root), sources, write=into is not None)
    return dict(zip(found, ids, strict=True))


# -- making a tree's files on disk -----------------------------------------------------------------------


def plan(root: Path, current: Disk, target: Entries, exact: bool) -> tuple[list[str], list[str]]:
    """(paths to remove, paths to write) to make the files `target`: only what differs."""
    dirs = _directories(target)
    remove = [
        p
        for p, (mode, _) in current.files.items()
        if p not in target
        and mode != GITLINK
        and p not in current.sparse
        and (not _another_tools(p, current) or _in_the_way_of(p, target, dirs))
    ]
    write = [
        p
        for p, entry in target.items()
        if entry[0] != GITLINK and p not in current.sparse and current.files.get(p) != entry
    ]
    if not exact:
        # A commit holds git's normalized content: a file that git's own conversion turns into the commit's
        # blob is the commit's file (a CRLF checkout of an LF blob, say).
        same_mode = [
            p for p in write if p in current.files and current.files[p][0] == target[p][0] != "120000"
        ]
        if same_mode:
            stdin = b"".join(formats.c_quoted(os.fsencode(p)) + b"\n" for p in same_mode)
            cleaned = runner.text(
                runner.run(root, "hash-object", "--stdin-paths", stdin=stdin).stdout
            ).split()
            alike = {p for p, oid in zip(same_mode, cleaned, strict=True) if oid == target[p][1]}
            write = [p for p in write if p not in alike]
    return remove, write


def materialize(
    root: Path,
    target: Entries,
    plan: tuple[list[str], list[str]],
    exact: bool,
    empty_dirs: Sequence[str],
    current: Disk,
) -> None:
    """Make the files `target` (their blobs in the repository) by the `plan` (see `plan`), and the
    directories `empty_dirs`: tiergate writes them itself, byte for byte (or, not `exact`, as git's
    checkout conversion makes them), each through a temporary file renamed over the old one."""
    remove, write = plan
    # What stands where a target file goes (a file at one of its directories, anything under it) goes
    # first; the other removals wait for the target's files, .gitignore included: an untracked file
    # the target's rules ignore is then left alone, as any ignored file is.
    dirs = _directories(target)
    first = [p for p in remove if _in_the_way_of(p, target, dirs)]
    for path in first:
        _remove(root, path)
    contents = _contents(root, [(p, target[p][1]) for p in write], converted=not exact)
    for path in sorted(write):
        _write(root, path, target[path][0], contents[path])
    later = [p for p in remove if p not in set(first)]
    untracked = [p for p in later if current.index is None or p not in current.index]
    if untracked:
        stdin = b"".join(os.fsencode(p) + b"\0" for p in untracked)
        out = runner.run(root, "check-ignore", "--no-index", "-z", "--stdin", stdin=stdin, ok=(0, 1)).stdout
        ignored = {os.fsdecode(p) for p in out.split(b"\0") if p}
        later = [p for p in later if p not in ignored]
    for path in later:
        _remove(root, path)
    for directory in empty_dirs:
        with contextlib.suppress(OSError):
            (root / directory).mkdir(parents=True, exist_ok=True)


def _directories(target: Mapping[str, object]) -> set[str]:
    return {"/".join(p.split("/")[:n]) for p in target for n in range(1, p.count("/") + 1)}


def _in_the_way_of(path: str, target: Mapping[str, object], dirs: set[str]) -> bool:
    """Whether `path` stands where a target file goes: at one of its directories, or under a target file."""
    return path in dirs or any(q in target for q in _prefixes(path))


def _another_tools(path: str, current: Disk) -> bool:
    """Another tool's state (OMC's `.omc/`, a plugin's `.claude/*.local.md`): not the loop's work, so a
    rollback leaves it (the tools beside the loop would lose their place) unless it stands in the way,
    and a workspace that differs from the target only there is not dirty. A backup still saves it."""
    from tiergate import foreign

    executable = current.files.get(path, ("", ""))[0] == "100755"
    return foreign.is_tool_state(path, executable)


def _prefixes(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:n]) for n in range(1, len(parts))]


def _remove(root: Path, path: str) -> None:
    with contextlib.suppress(FileNotFoundError, NotADirectoryError, IsADirectoryError):
        (root / path).unlink()
    _prune_empty(root, path)


def _prune_empty(root: Path, path: str) -> None:
    """Remove the directories the removal of `path` left empty, up to the top."""
    parent = (root / path).parent
    while parent != root:
        try:
            parent.rmdir()
        except OSError:
            return
        parent = parent.parent


def _contents(root: Path, wanted: Sequence[tuple[str, str]], converted: bool) -> dict[str, bytes]:
    """The bytes to write for each path: the blob as it is, or (`converted`) as git's checkout
    conversion makes it for that path (eol, ident, encoding; filter drivers are blanked by runner.run)."""
    found: dict[str, bytes] = {}
    plain = [(p, oid) for p, oid in wanted if not converted]
    if plain:
        out = runner.run(
            root, "cat-file", "--batch", stdin="".join(f"{oid}\n" for _, oid in plain).encode()
        ).stdout
        at = 0
        for path, _ in plain:
            header_end = out.index(b"\n", at)
            size = int(out[at:header_end].split()[2])
            found[path] = out[header_end + 1 : header_end + 1 + size]
            at = header_end + 1 + size + 1
    # One call a file: `cat-file --batch --filters` gives the blob's size, not the converted one's.
    for path, oid in wanted if converted else ():
        found[path] = runner.run(root, "cat-file", "--filters", f"--path={path}", oid).stdout
    return found


def _write(root: Path, path: str, mode: str, data: bytes) -> None:
    """Put `data` at `path` as a file (mode 100644 or 100755) or a symlink (120000): through a temporary
    file beside it, renamed over it, so that a kill leaves the old file or the new one."""
    where = root
    for part in path.split("/")[:-1]:
        where = where / part
        try:
            info = where.lstat()
        except FileNotFoundError:
            where.mkdir()
            continue
        if not stat.S_ISDIR(info.st_mode):
            raise UserError(f"cannot write {path}: {where.relative_to(root)} is not a directory")
    final = root / path
    if final.is_dir() and not final.is_symlink():
        _remove_empty_tree(final, path)
    temporary = final.with_name(f".tiergate-{os.getpid()}-{final.name[:40]}.tmp")
    temporary.unlink(missing_ok=True)
    if mode == "120000":
        temporary.symlink_to(os.fsdecode(data))
    else:
        fd = os.open(
            temporary,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
            0o777 if mode == "100755" else 0o666,
        )
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
    temporary.replace(final)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _remove_empty_tree(top: Path, path: str) -> None:
    for here, _dirs, names in os.walk(top, topdown=False):
        if names:
            raise UserError(f"cannot write {path}: a directory holding files stands there")
        Path(here).rmdir()
