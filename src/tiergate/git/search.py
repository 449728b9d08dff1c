"""Words searched for in the work tree's files, tracked or untracked (not ignored), by `git grep`."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tiergate.git import runner


def grep_files(repo: Path, words: Iterable[str], pathspecs: Iterable[str]) -> list[str]:
    """Files, tracked or untracked (not ignored), that hold one of `words` as a whole word."""
    patterns = [arg for word in words for arg in ("-e", word)]
    if not patterns:
        return []
    proc = runner.run(
        repo,
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
    )
    return [os.fsdecode(p) for p in proc.stdout.split(b"\0") if p]
