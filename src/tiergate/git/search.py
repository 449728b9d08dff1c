"""Words searched for in the work tree's files, tracked or untracked (not ignored), by `git grep`, with
tiergate's own attributes (`attributes.own`): a file is skipped as binary by its content, never by a
`.gitattributes`."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tiergate.git import attributes, indexcopy, runner


def grep_files(root: Path, words: Iterable[str], pathspecs: Iterable[str], object_id: str = "") -> list[str]:
    """Files, tracked or untracked (not ignored), that hold one of `words` as a whole word. `object_id`:
    any full id of the repository (its object format), which spares a git call."""
    patterns = [arg for word in words for arg in ("-e", word)]
    if not patterns:
        return []
    with attributes.own(root, object_id) as env:
        return _grep(root, patterns, pathspecs, env)


def _grep(root: Path, patterns: list[str], pathspecs: Iterable[str], env: dict[str, str]) -> list[str]:
    proc = runner.run(
        root,
        "grep",
        "-l",
        "-z",
        "-I",
        "-w",
        "-F",
        "--untracked",
        "--no-recurse-submodules",
        *patterns,
        "--",
        *pathspecs,
        ok=(0, 1),
        index=indexcopy.index_file(root),  # read, never written: grep does not refresh an index
        env=env,
    )
    return [os.fsdecode(p) for p in proc.stdout.split(b"\0") if p]
