"""The workspace's folders the environment's editable installs (and the user's PYTHONPATH) name, named
again in the claim's copy, first on a check's PYTHONPATH: so that the copy's code is what runs."""

# os.path on purpose: paths stay strings, as the watch's (`tiergate.gate.imported`).
# ruff: noqa: PTH100, PTH112, PTH117, PTH118, PTH120, PTH123, PTH207
from __future__ import annotations

import ast
import glob
import os
from collections.abc import Iterable, Mapping

from tiergate.gate.environment.places import inside
from tiergate.gate.request import Seed

# Where a site folder's `.pth` files and setuptools' editable finders are, under an environment folder.
_SITE_FILES = ("", "lib/python*/site-packages/", "Lib/site-packages/", "*/lib/python*/site-packages/")


def search_path(seed: Seed | None, workspace: str, copy: str) -> list[str]:
    """The PYTHONPATH of a check run in the copy at `copy` (or a worktree) of the workspace at
    `workspace`: the copy's folders standing in for those of the workspace that the environment's
    editable installs or the user's PYTHONPATH name, then the user's PYTHONPATH."""
    own = os.environ.get("PYTHONPATH", "")
    named = editable_folders(seed.folders if seed else ())
    named += [os.path.abspath(p) for p in own.split(os.pathsep) if p and os.path.isabs(p)]
    return [*stand_ins(named, workspace, copy), *([own] if own else [])]


def stand_ins(named: Iterable[str], workspace: str, copy: str) -> list[str]:
    """For each folder of `named` inside the workspace at `workspace`, the same folder in the copy at
    `copy` (where it is there), in order, once. Pure but for asking whether each is a folder."""
    found = []
    for folder in named:
        normal = os.path.normpath(folder)
        if inside(normal, workspace):
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
