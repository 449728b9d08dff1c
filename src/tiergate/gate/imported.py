"""Where a claim's checks read their Python code from: the claim's copy and the environment recorded as the
loop began, and nothing else counted as the change's.

The copy (`tiergate.gate.cleancopy`) holds only what the change and the base put there, but a Python
process can still read code from elsewhere: an editable install names a folder of the workspace (where
git-ignored files sit beside the change's), code can put a path of the workspace or of a folder it wrote on
`sys.path`. So that the copy's code is what runs, the folders of the workspace that the environment's
editable installs (and the user's PYTHONPATH) name are named again, in the copy, first on PYTHONPATH; and
every Python process of a check notes the code files it opens (`checksite/sitecustomize.py`). A file read
from the workspace (but its `.git` and its environments), or from a place outside the copy and the
environment that was written after the loop began, is named: what it holds was in no change.
See docs/judging.md, "The claim's copy".
"""

# os.path on purpose: paths stay strings from the processes' lists to the reasons.
# ruff: noqa: PTH100, PTH112, PTH116, PTH117, PTH118, PTH120, PTH123, PTH207
from __future__ import annotations

import ast
import glob
import hashlib
import os
import shutil
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from tiergate.frozen import frozen
from tiergate.gate.checks import CheckResult
from tiergate.gate.request import Seed

OUT_VARIABLE = "TIERGATE_IMPORTED"
WATCH_VARIABLE = "TIERGATE_IMPORTED_WATCH"
SITECUSTOMIZE = Path(__file__).with_name("checksite") / "sitecustomize.py"
SHOWN = 5
# Where a site folder's `.pth` files and setuptools' editable finders are, under an environment folder.
_SITE_FILES = ("", "lib/python*/site-packages/", "Lib/site-packages/", "*/lib/python*/site-packages/")


@frozen
class Bounds:
    """What a check may read its code from: the copy (`copy`: its top), the folders of tiergate's own
    beside it (`own`: the bytecode folder, this watch's), the environment (`environment`: folders and
    standard libraries) and the workspace (`workspace`: its top, read only through the environment's
    folders in it and its `.git`); `before`: the loop's start (None: not known)."""

    copy: str
    workspace: str
    own: tuple[str, ...] = ()
    environment: tuple[str, ...] = ()
    before: float | None = None


def read_outside(
    seen: Iterable[tuple[str, float | None]], bounds: Bounds, started: float
) -> tuple[list[str], list[str]]:
    """Of the files the checks read (`seen`: each path with its change time, None where it is gone), those
    in the workspace and those elsewhere written since the loop began and before the checks `started`
    (one the checks wrote is their code's doing, and their code is the copy's). Pure."""
    allowed = (bounds.copy, *bounds.own, *bounds.environment)
    workspace, elsewhere = [], []
    for path, changed in seen:
        if _under(path, allowed):
            continue
        if _under(path, (bounds.workspace,)):
            if not _under(path, (os.path.join(bounds.workspace, ".git"),)):
                workspace.append(path)
        elif bounds.before is not None and changed is not None and bounds.before <= changed < started:
            elsewhere.append(path)
    return sorted(set(workspace)), sorted(set(elsewhere))


def _under(path: str, folders: Iterable[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def stand_ins(named: Iterable[str], workspace: str, copy: str) -> list[str]:
    """For each folder of `named` inside the workspace at `workspace`, the same folder in the copy at
    `copy` (where it is there), in order, once. Pure but for asking whether each is a folder."""
    found = []
    for folder in named:
        normal = os.path.normpath(folder)
        if _under(normal, (workspace,)):
            here = os.path.join(copy, os.path.relpath(normal, workspace))
            if os.path.isdir(here) and here not in found:
                found.append(here)
    return found


def editable_folders(environment: Iterable[str]) -> list[str]:
    """The folders the environment's `.pth` files put on sys.path, and the folders that hold the packages
    setuptools' editable finders map (their MAPPING), in the site folders under `environment`."""
    found: list[str] = []
    for folder in environment:
        for place in _SITE_FILES:
            site = os.path.join(glob.escape(folder), place)
            for pth in glob.glob(site + "*.pth"):
                found += _pth_lines(pth)
            for finder in glob.glob(site + "__editable___*_finder.py"):
                found += [os.path.dirname(p) for p in _mapping(finder).values()]
    return found


def _pth_lines(pth: str) -> list[str]:
    try:
        with open(pth, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    site = os.path.dirname(pth)
    named = (line.strip() for line in lines if not line.startswith(("#", "import")))
    return [os.path.join(site, line) for line in named if line]


def _mapping(finder: str) -> Mapping[str, str]:
    """The MAPPING (package -> folder) an editable finder of setuptools' holds; {} when it holds none."""
    try:
        with open(finder, encoding="utf-8", errors="replace") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    for node in tree.body:
        target: ast.expr
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "MAPPING":
            try:
                found = ast.literal_eval(value)
            except ValueError:
                return {}
            return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}
    return {}


class Watch:
    """The watch on one claim's copy: the variables the checks run there get, then, check by check, what
    they read outside it."""

    def __init__(self, holder: Path, bounds: Bounds, seed: Seed | None) -> None:
        self.bounds = bounds
        self.seed = seed
        self.out = holder / "imported"
        self.site = holder / "site"
        self.started = time.time()
        self._path: str | None = None

    def env(self, key: str | None = None) -> dict[str, str]:
        """What a check run in the copy adds to its environment: PYTHONPATH (this watch's site folder, the
        copy's stand-ins for the workspace's folders, the user's own) and where to write what it read,
        by the check's `key` (None: a run whose reads are not asked for)."""
        if self._path is None:
            self.site.mkdir(mode=0o700, exist_ok=True)
            self.out.mkdir(mode=0o700, exist_ok=True)
            shutil.copyfile(SITECUSTOMIZE, self.site / "sitecustomize.py")
            own = os.environ.get("PYTHONPATH", "")
            named = editable_folders(self.seed.folders if self.seed else ())
            named += [os.path.abspath(p) for p in own.split(os.pathsep) if p and os.path.isabs(p)]
            copied = stand_ins(named, self.bounds.workspace, self.bounds.copy)
            self._path = os.pathsep.join([str(self.site), *copied, *([own] if own else [])])
            self.started = time.time()
        out = self._folder(key)
        out.mkdir(mode=0o700, exist_ok=True)
        return {"PYTHONPATH": self._path, OUT_VARIABLE: str(out), WATCH_VARIABLE: self.bounds.workspace}

    def told(self, results: Sequence[CheckResult]) -> tuple[CheckResult, ...]:
        """`results` each with what its check read outside the copy (`CheckResult.read_outside`)."""
        return tuple(replace(r, read_outside=self.reasons(r.key)) for r in results)

    def reasons(self, key: str) -> tuple[str, ...]:
        """The THOROUGH reasons for what the check `key` read outside the copy and the environment."""
        workspace, elsewhere = read_outside(_stamped(_seen(self._folder(key))), self.bounds, self.started)
        found = []
        if workspace:
            found.append(
                f"read-outside: the checks read {_shown(workspace)} from the workspace rather than the "
                "claim's copy: what it holds there is in no change -> THOROUGH"
            )
        if elsewhere:
            found.append(
                f"read-outside: the checks read code from {_shown(elsewhere)}, outside the claim's copy and "
                "the environment, written since the loop began -> THOROUGH"
            )
        return tuple(found)

    def _folder(self, key: str | None) -> Path:
        name = "other" if key is None else hashlib.sha256(key.encode()).hexdigest()[:16]
        return self.out / name


def _seen(folder: Path) -> set[str]:
    """The paths the processes' lists in `folder` name."""
    seen: set[str] = set()
    try:
        files = list(os.scandir(folder))
    except OSError:
        return seen
    for entry in files:
        try:
            with open(entry.path, encoding="utf-8", errors="surrogateescape") as handle:
                seen.update(line for line in handle.read().splitlines() if line)
        except OSError:
            continue
    return seen


def _stamped(paths: Iterable[str]) -> list[tuple[str, float | None]]:
    found: list[tuple[str, float | None]] = []
    for path in paths:
        try:
            found.append((path, os.stat(path).st_ctime))
        except OSError:
            found.append((path, None))
    return found


def _shown(paths: Sequence[str]) -> str:
    named = ", ".join(f"`{p}`" for p in paths[:SHOWN])
    return named + (f" (+{len(paths) - SHOWN} more)" if len(paths) > SHOWN else "")
