"""Counting a check's runs from outside its sandbox: each run makes a file of its own in a folder, so that no
run opens a file an earlier one wrote (run by root, the sandbox's watch names each file a check opened
that changed since the loop began and that the check did not make, whoever wrote it)."""

from __future__ import annotations

from pathlib import Path


def counted(variable: str) -> str:
    """The shell command that counts a run in the folder the environment variable `variable` names."""
    return f'mktemp "${variable}/run-XXXXXX" > /dev/null'


def runs(folder: Path) -> int:
    """How many runs were counted in `folder`."""
    return len(list(folder.glob("run-*"))) if folder.is_dir() else 0
