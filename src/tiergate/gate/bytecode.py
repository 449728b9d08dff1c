"""Where a claim's checks read and write Python bytecode: a folder of the claim's own (`PYTHONPYCACHEPREFIX`).

With it Python reads no bytecode from beside a source: none planted in the copy, in a workspace an editable
install reaches, or in the environment's `__pycache__` folders since the loop began. So that the checks do
not compile the standard library, pytest and the dependencies anew at every claim, the folder starts with
the environment's own bytecode from before the loop began: each `.pyc` of the interpreters' standard
library and of the environment's folders whose change time (which no user can set back) is older than
the loop's start, symlinked in. See docs/judging.md, "The claim's copy".
"""

# os on purpose: a standard library and an environment hold thousands of files.
# ruff: noqa: PTH103, PTH108, PTH112, PTH114, PTH115, PTH116, PTH118, PTH119, PTH120, PTH211
from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence

from tiergate.gate.request import Seed

_PYTHON = re.compile(r"python3\.\d+")
# A standard library's folders no check imports from: its own site-packages (an environment of its own,
# recorded as one where the checks use it), its test suite, and tools for a terminal or a window.
STDLIB_ASIDE = frozenset(
    {"site-packages", "dist-packages", "test", "idlelib", "tkinter", "lib2to3", "ensurepip", "turtledemo"}
)


def seed_of(folders: Iterable[str], interpreters: Iterable[str], before: float) -> Seed:
    """The seed of an environment's `folders` and the standard library of each of its `interpreters` (a
    `pythonX.Y` binary's `../lib/pythonX.Y`, where there is one)."""
    stdlib = []
    for binary in interpreters:
        real = os.path.realpath(binary)
        name = os.path.basename(real)
        if _PYTHON.fullmatch(name):
            folder = os.path.join(os.path.dirname(os.path.dirname(real)), "lib", name)
            if os.path.isdir(folder):
                stdlib.append(folder)
    return Seed(tuple(dict.fromkeys(folders)), before, tuple(dict.fromkeys(stdlib)))


def kept_folder(folder: str, seed: Seed | None) -> str:
    """`folder` (a folder of tiergate's state, kept from one claim to the next) made the bytecode folder of
    a claim of a loop with `seed`: everything in it that is not a link `seeded` would make for `seed` (a
    file a check's Python wrote, a link planted or pointing at a file changed since the loop began) is
    removed, and the links missing are made. Cheaper than making every link at every claim."""
    os.makedirs(folder, mode=0o700, exist_ok=True)
    roots = () if seed is None else tuple(f.rstrip("/") + "/" for f in (*seed.folders, *seed.stdlib))
    for top, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            if not (seed is not None and _trusted(folder, path, roots, seed.before)):
                os.unlink(path)
    seeded(folder, seed)
    return folder


def _trusted(folder: str, path: str, roots: tuple[str, ...], before: float) -> bool:
    """Whether `path` in `folder` is the link `seeded` makes to a `.pyc` under `roots` older than
    `before`: a link, at the place the target's source folder gives it, to such a file."""
    if not os.path.islink(path):
        return False
    target = os.readlink(path)
    name = os.path.basename(target)
    cache = os.path.dirname(target)
    if not target.startswith(roots) or os.path.basename(cache) != "__pycache__":
        return False
    if path != folder + os.path.join(os.path.dirname(cache), name) or ".opt-" in name:
        return False
    try:
        info = os.stat(target)
    except OSError:
        return False
    return name.endswith(".pyc") and stat.S_ISREG(info.st_mode) and info.st_ctime < before


def seeded(into: str, seed: Seed | None) -> int:
    """The folder `into` (made) with `seed`'s bytecode in it, where Python's prefix layout puts it; how
    many files."""
    os.makedirs(into, mode=0o700, exist_ok=True)
    if seed is None:
        return 0
    count = 0
    walks: list[tuple[str, frozenset[str]]] = [(f, frozenset()) for f in seed.folders] + [
        (f, STDLIB_ASIDE) for f in seed.stdlib
    ]
    for folder, aside in walks:
        for cache, names in _caches(folder, aside):
            count += _linked(cache, names, into + os.path.dirname(cache), seed.before)
    return count


def _caches(folder: str, aside: frozenset[str]) -> Iterable[tuple[str, Sequence[str]]]:
    """Each `__pycache__` folder under `folder` with its names, the folders named in `aside` left out
    below its top."""
    for top, dirs, names in os.walk(folder):
        if os.path.basename(top) == "__pycache__":
            dirs[:] = []
            yield top, names
        elif top == folder:
            dirs[:] = [d for d in dirs if d not in aside]


def _linked(cache: str, names: Sequence[str], target: str, before: float) -> int:
    made = 0
    for name in names:
        source = os.path.join(cache, name)
        try:
            info = os.lstat(source)
        except OSError:
            continue
        if not name.endswith(".pyc") or ".opt-" in name:  # only what Python without -O reads
            continue
        if info.st_ctime >= before or not stat.S_ISREG(info.st_mode):
            continue
        if os.path.lexists(os.path.join(target, name)):  # kept from a claim before (`kept_folder`)
            continue
        if not made:
            os.makedirs(target, exist_ok=True)
        # A symlink, not a hard link: linking would move the file's change time, and no later claim
        # could trust it. Python replaces a symlink it writes over, never the file it points to.
        os.symlink(source, os.path.join(target, name))
        made += 1
    return made
