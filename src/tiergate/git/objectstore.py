"""A git directory asked without a work tree: tiergate's backup store, or a repository's git dir.

Blobs hashed from files by path, trees written from and read into entries, and objects copied from one
git dir to another in one pack (`pack-objects | index-pack`, which checks them).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tiergate.git import formats, objects, runner

Entries = dict[str, tuple[str, str]]  # path -> (mode, blob id)

# A temporary index never splits nor goes sparse, whatever the repository's config says.
_PLAIN_INDEX = ("-c", "core.splitIndex=false", "-c", "index.sparse=false")


def run_in(git_dir: Path, *args: str, stdin: bytes = b"", env: Mapping[str, str] | None = None) -> bytes:
    """git ARGS in the git directory `git_dir`, no work tree: its stdout."""
    return runner.run(git_dir, f"--git-dir={git_dir}", *args, stdin=stdin, env=env).stdout


def hash_files(git_dir: Path, files: Sequence[Path], *, write: bool) -> list[str]:
    """The blob ids of `files` (absolute paths) as they are, no conversion and no attributes read;
    written into `git_dir` when `write`."""
    stdin = b"".join(formats.c_quoted(os.fsencode(f)) + b"\n" for f in files)
    out = run_in(
        git_dir, "hash-object", *(("-w",) if write else ()), "--no-filters", "--stdin-paths", stdin=stdin
    )
    return runner.text(out).split()


def write_tree(git_dir: Path, entries: Mapping[str, tuple[str, str]]) -> str:
    """The tree of `entries` (their blobs already in `git_dir`), written there through a fresh index."""
    info = b"".join(f"{mode} {oid}\t".encode() + os.fsencode(p) + b"\0" for p, (mode, oid) in entries.items())
    with tempfile.TemporaryDirectory(prefix="tiergate-index-", dir=git_dir) as scratch:
        env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        run_in(git_dir, *_PLAIN_INDEX, "update-index", "-z", "--index-info", stdin=info, env=env)
        return runner.text(run_in(git_dir, *_PLAIN_INDEX, "write-tree", env=env))


def entries(git_dir: Path, tree: str) -> Entries:
    """The files of `tree`; for an object id, kept for the process (what it holds never changes)."""
    key = (str(git_dir), tree)
    kept = _entries.get(key)
    if kept is not None:
        return dict(kept)
    out = run_in(git_dir, "ls-tree", "-r", "-z", "--full-tree", tree)
    found: Entries = {}
    for record in out.split(b"\0"):
        if record:
            meta, _, path = record.partition(b"\t")
            mode, _kind_name, oid = os.fsdecode(meta).split(" ")
            found[os.fsdecode(path)] = (mode, oid)
    if objects.is_object_id(tree):
        _entries[key] = dict(found)
    return found


_entries: dict[tuple[str, str], Entries] = {}


def objects_of(git_dir: Path, roots: Iterable[str]) -> list[str]:
    """The ids of the trees (or parentless commits) `roots` and of every object they hold, in one call."""
    trees = tuple(roots)
    if not trees:
        return []
    # A gitlink names a commit of another repository, which rev-list does not follow: nothing to copy.
    return runner.text(run_in(git_dir, "rev-list", "--objects", "--no-object-names", *trees, "--")).split()


def copy_objects(source: Path, dest: Path, roots: Iterable[str]) -> None:
    """Every object of the trees (or parentless commits) `roots` that `dest` lacks, from `source` (git
    dirs both)."""
    held = objects_of(source, roots)
    if held:
        copy_ids(source, dest, held)


def copy_ids(source: Path, dest: Path, ids: Iterable[str]) -> None:
    """The objects `ids` that `dest` lacks, from `source`, through a pack that index-pack checks."""
    copy_missing(source, dest, missing(dest, ids))


def copy_missing(source: Path, dest: Path, absent: Sequence[str]) -> None:
    """The objects `absent` (all of them missing in `dest`), from `source`."""
    if absent:
        pack = run_in(source, "pack-objects", "-q", "--stdout", stdin=lines(absent))
        run_in(dest, "index-pack", "--stdin", stdin=pack)


def missing(git_dir: Path, ids: Iterable[str]) -> list[str]:
    """Those of the objects `ids` that `git_dir` does not have."""
    asked = lines(ids)
    if not asked:
        return []
    checked = runner.text(run_in(git_dir, "cat-file", "--batch-check=%(objectname)", stdin=asked))
    return [line.split()[0] for line in checked.splitlines() if line.endswith(" missing")]


def lines(items: Iterable[str]) -> bytes:
    """`items`, each once, one a line: what git's `--stdin` options read."""
    return "".join(f"{i}\n" for i in dict.fromkeys(items)).encode()
