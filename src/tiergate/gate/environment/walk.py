"""Taking the environment: every file and link under its folders with its stamp (`os.scandir`, one `lstat`
each, nothing read), its interpreters' files, and where PATH finds its programs. An adapter.

Left out, as state rather than code: `.pyc` files in `__pycache__` (the gate reads none written since the
loop began: `tiergate.gate.bytecode`), node_modules' tool caches (`.cache`, `.vite`: covered by the
sandbox) and tox or nox envs' logs and scratch folders.
"""

# os.path on purpose: a large environment holds tens of thousands of files, where pathlib's objects would
# only add to the cost of each.
# ruff: noqa: PTH112, PTH115, PTH118, PTH119, PTH120, PTH123
from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Mapping

from tiergate.gate.environment.envrecord import EnvironmentRecord, Stamp
from tiergate.gate.environment.places import Places, programs_on_path

BYTECODE = "__pycache__"
# A folder's children left out, by the folder's name.
SKIPPED_IN = {"node_modules": frozenset({".cache", ".vite"})}
# The children of a tox or nox env left out (each env is a folder of `.tox`), and of `.tox` itself.
_TOOL_ENVS = frozenset({".tox", ".nox"})
_ENV_STATE = frozenset({"log", "tmp", ".tmp", "dist"})


def take(places: Places, env: Mapping[str, str] | None = None) -> EnvironmentRecord:
    """The environment at `places` as it is now (`env`: whose PATH finds the programs; None: this
    process's)."""
    folders = {folder: files_under(folder) for folder in places.folders}
    files = {path: _stamp_of(path) for path in places.files}
    return EnvironmentRecord(folders, files, programs_on_path(places.programs, env))


def files_under(folder: str) -> dict[str, Stamp] | None:
    """Every file and link under `folder` by relative path (links not followed), with its stamp; None
    when `folder` is not there."""
    if not os.path.isdir(folder):
        return None
    found: dict[str, Stamp] = {}
    tool = os.path.basename(folder) in _TOOL_ENVS
    pending = [("", 0)]
    while pending:
        rel, depth = pending.pop()
        try:
            entries = os.scandir(os.path.join(folder, rel) if rel else folder)
        except OSError:
            continue
        prefix = f"{rel}/" if rel else ""
        with entries:
            skipped = _skipped(os.path.basename(rel) if rel else os.path.basename(folder), tool, depth)
            # The loop every file of a large environment goes through: kept to the syscall and a tuple.
            for entry in entries:
                name = entry.name
                if entry.is_dir(follow_symlinks=False):
                    if name not in skipped:
                        pending.append((prefix + name, depth + 1))
                    continue
                if name.endswith(".pyc") and rel.endswith(BYTECODE):
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                    if entry.is_symlink():
                        found[prefix + name] = (*_times(st), os.readlink(entry.path))
                    else:
                        found[prefix + name] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
                except OSError:
                    continue
    return found


def _skipped(name: str, tool: bool, depth: int) -> frozenset[str]:
    """The children left out of a folder named `name`, `depth` below the walk's folder (`tool`: a tox
    or nox folder)."""
    if tool and depth <= 1:
        return _ENV_STATE
    return SKIPPED_IN.get(name, frozenset())


def _stamp_of(path: str) -> Stamp | None:
    try:
        return _stamp(path, os.lstat(path))
    except OSError:
        return None


def _stamp(path: str, st: os.stat_result) -> Stamp:
    if stat.S_ISLNK(st.st_mode):
        with contextlib.suppress(OSError):
            return (*_times(st), os.readlink(path))
    return _times(st)


def _times(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def owners(before: EnvironmentRecord, after: EnvironmentRecord) -> dict[str, str]:
    """For each package top (`site/top`) that the RECORD of a distribution installed or changed since
    `before` lists, that distribution's metadata folder: full paths (`difference.differences`)."""
    found: dict[str, str] = {}
    for folder, files in after.folders.items():
        was = before.folders.get(folder) or {}
        if files is None or files == was:
            continue
        for rel, stamp in files.items():
            if rel.endswith(".dist-info/RECORD") and was.get(rel) != stamp:
                dist = os.path.join(folder, os.path.dirname(rel))
                found |= {f"{os.path.dirname(dist)}/{top}": dist for top in _record_tops(dist)}
    return found


def _record_tops(dist: str) -> set[str]:
    """The top entries of the site folder that a distribution's RECORD lists (its scripts elsewhere
    left out)."""
    try:
        with open(os.path.join(dist, "RECORD"), encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return set()
    tops = set()
    for line in lines:
        path = line.split(",", 1)[0].strip('"')
        first = path.split("/", 1)[0]
        if first and first != ".." and "/" in path:
            tops.add(first)
        elif first.endswith((".py", ".so", ".pyd")):
            tops.add(first.split(".")[0])
    return tops
