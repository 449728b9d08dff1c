"""The Rust tests a change edits inside its code files: whether it touches any (`touches_tests`), and the
scratch copy's blobs of those files with their tests as at the base (`base_test_entries`, for
`tiergate.gate.scratch`). The adapter of the pure splice, `tiergate.gate.pertest.rustsplice`.

The base's file is read from git's objects, never the workspace. `tests/*.rs` files are tests by their
path (`tiergate.gate.pertest.testinfra`) and swapped whole; these are the change's other `.rs` files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from tiergate.gate.pertest.rustsplice import holds_tests, with_base_tests
from tiergate.gate.pertest.testinfra import tests_among
from tiergate.git import objects, runner

SUFFIX = ".rs"


def touches_tests(top: Path, commit: str, paths: Iterable[str]) -> bool:
    """Whether a Rust file among `paths` (relative to the repository's top `top`) holds tests, in the
    workspace or at `commit`, that differ from `commit`'s."""
    rust = _code_files(paths)
    if not rust:
        return False
    based = _texts(top, _listed(top, commit, rust))
    for path in rust:
        try:
            claim = _decoded((top / path).read_bytes())
        except OSError:  # deleted: whatever tests it held at the base are gone with it
            if holds_tests(path, based.get(path, "")):
                return True
            continue
        if with_base_tests(path, claim, based.get(path)) != claim:
            return True
    return False


def base_test_entries(top: Path, commit: str, tree: str, paths: Sequence[str]) -> dict[str, bytes]:
    """`update-index --index-info` lines, by path, for the Rust files among `paths` as the workspace's
    `tree` holds them, whose tests differ from `commit`'s: each with its tests as at `commit`, its blob
    written to the repository's objects."""
    rust = _code_files(paths)
    if not rust:
        return {}
    listed = _listed(top, tree, rust)
    based = _texts(top, _listed(top, commit, rust))
    entries = {}
    for path, claim in _texts(top, listed).items():
        spliced = with_base_tests(path, claim, based.get(path))
        if spliced == claim:
            continue
        encoded = spliced.encode("utf-8", "surrogateescape")
        blob = runner.run(top, "hash-object", "-w", "--stdin", "--no-filters", stdin=encoded).stdout.strip()
        entries[path] = listed[path][0] + b" " + blob + b"\t" + os.fsencode(path) + b"\0"
    return entries


def _code_files(paths: Iterable[str]) -> list[str]:
    """The Rust files among `paths` that are not tests by their path (those are put back whole)."""
    rust = [p for p in paths if p.endswith(SUFFIX)]
    return sorted(set(rust) - set(tests_among(rust)))


def _texts(top: Path, listed: dict[str, tuple[bytes, str]]) -> dict[str, str]:
    """The text of each file `listed` names, by path."""
    found = objects.blobs(top, [oid for _, oid in listed.values()])
    return {path: _decoded(data) for path, data in zip(listed, found, strict=True)}


def _listed(top: Path, tree: str, paths: Sequence[str]) -> dict[str, tuple[bytes, str]]:
    """(mode, blob id) of each of `paths` that `tree` (a tree or a commit) holds as a file (not a link),
    by path."""
    out = runner.run(top, "--literal-pathspecs", "ls-tree", "-z", "--full-tree", tree, "--", *paths).stdout
    wanted = set(paths)
    listed = {}
    for record in out.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        if tab and os.fsdecode(raw) in wanted:
            mode, kind, oid = meta.split(b" ")
            if kind == b"blob" and mode in (b"100644", b"100755"):
                listed[os.fsdecode(raw)] = (mode, oid.decode())
    return listed


def _decoded(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")
