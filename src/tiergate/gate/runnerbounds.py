"""Keeping pytest inside the tree the gate runs it in (a claim's copy, the base's worktree).

pytest reads configuration and conftests above its folder, and a copy's parents are writable by anyone.
So every pytest started there gets, in `PYTEST_ADDOPTS` after the user's, `--confcutdir` at the tree; and
where the tree holds no configuration above the project, an empty one of tiergate's (`-c`) with the
`--rootdir` pytest would have taken within the tree, so that test ids stay. See docs/judging.md.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

VARIABLE = "PYTEST_ADDOPTS"
EMPTY = "tiergate-pytest.ini"
# Where pytest reads its configuration, in the order it tries them in one folder, with the table or section
# a file must hold to count ("": any).
_CONFIGS = (
    ("pytest.ini", ""),
    (".pytest.ini", ""),
    ("pytest.toml", ""),
    (".pytest.toml", ""),
    ("pyproject.toml", "[tool.pytest"),
    ("tox.ini", "[pytest]"),
    ("setup.cfg", "[tool:pytest]"),
)


def pytest_bounds(cwd: Path, top: Path, holder: Path) -> dict[str, str]:
    """What a pytest run in `cwd`, inside the tree at `top`, adds to its environment; `holder`: a folder of
    tiergate's own, outside the tree, for the empty configuration."""
    options = [f"--confcutdir={top}"]
    folders = _up(cwd, top)
    if not any(_configures(folder) for folder in folders):
        empty = holder / EMPTY
        empty.write_text("[pytest]\n")
        options += ["-c", str(empty), f"--rootdir={_rootdir(folders, cwd)}"]
    own = os.environ.get(VARIABLE, "")
    return {VARIABLE: " ".join([*([own] if own else []), *(shlex.quote(o) for o in options)])}


def _up(cwd: Path, top: Path) -> list[Path]:
    """`cwd` and its parents up to `top`, nearest first."""
    found = [cwd]
    while found[-1] != top and found[-1].parent != found[-1] and top in found[-1].parents:
        found.append(found[-1].parent)
    return found


def _configures(folder: Path) -> bool:
    for name, section in _CONFIGS:
        try:
            text = (folder / name).read_text(errors="replace")
        except OSError:
            continue
        if not section or section in text:
            return True
    return False


def _rootdir(folders: list[Path], cwd: Path) -> Path:
    for marker in ("setup.py", "pyproject.toml"):
        for folder in folders:
            if (folder / marker).is_file():
                return folder
    return cwd
