"""Where a claim's checks read and write Python bytecode: a folder of the claim's own (`PYTHONPYCACHEPREFIX`).

No bytecode beside a source is read (none planted in the copy, an editable install or `__pycache__`). The
folder starts with the environment's own bytecode older than the loop's start (change time, which no user
can set back): the standard libraries' and the environment folders' `.pyc` files, symlinked in, so that
nothing is compiled anew at every claim. See docs/judging.md, "The claim's copy".
"""

# os on purpose: a standard library and an environment hold thousands of files.
# ruff: noqa: PTH103, PTH112, PTH118, PTH119, PTH120, PTH211
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
        if not made:
            os.makedirs(target, exist_ok=True)
        # A symlink, not a hard link: linking would move the file's change time, and no later claim
        # could trust it. Python replaces a symlink it writes over, never the file it points to.
        os.symlink(source, os.path.join(target, name))
        made += 1
    return made
