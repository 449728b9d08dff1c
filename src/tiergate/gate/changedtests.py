"""Which changed paths are tests or test infrastructure, as the gate's runs with the base's tests need them:
those `tiergate.gate.pertest.testinfra` tells by their path, and the base's own test helpers outside the
test folders (`tiergate.gate.pertest.testhelpers`), read from the base commit's import graph and files in
git, never from the workspace. Used to decide whether a claim touches the tests (`tiergate.gate.run`) and
which paths the base's tests put back (`tiergate.gate.scratch`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tiergate.gate.pertest import importmap, testhelpers
from tiergate.gate.pertest.testinfra import tests_among
from tiergate.git import objects, repository, runner
from tiergate.project import Project

# A helper larger than this is not read for its assertion functions (its name may still say what it is).
_READ_BYTES = 1 << 20


def changed_tests(
    root: Path, commit: str | None, paths: Iterable[str], cache: Path | None = None
) -> tuple[str, ...]:
    """The paths of `paths` (repository-relative) that are tests or test infrastructure, the test helpers
    of `commit` (the loop's base; None: none is known) among them, in their order. `cache`: where import
    maps are kept (`importmap.at_commit`)."""
    given = list(paths)
    tests = set(tests_among(given))
    code = [path for path in given if path.endswith(".py") and path not in tests]
    helpers = _helpers_among(root, commit, code, cache) if commit is not None and code else frozenset()
    return tuple(path for path in given if path in tests or path in helpers)


def project_tests(project: Project, commit: str | None, paths: Iterable[str]) -> tuple[str, ...]:
    """`changed_tests` in `project`, its import maps kept in its state folder."""
    return changed_tests(project.root, commit, paths, project.state_dir / importmap.CACHE_DIR)


def _helpers_among(root: Path, commit: str, paths: list[str], cache: Path | None) -> frozenset[str]:
    """Those of `paths` that are test helpers at `commit`. A map that cannot be had names none: the
    paths count as code, as they did before helpers were looked for."""
    top = repository.repo_root(root)
    inside = root.resolve().relative_to(top.resolve()).as_posix()
    key = (str(top), commit, "" if inside == "." else inside)
    if key not in _helpers:
        try:
            graph = importmap.at_commit(top, commit, cache, inside=key[2])
            importers = graph.importers()
            among = testhelpers.candidates(graph.files, importers)
            unnamed = [path for path in among if not testhelpers.says_test(path)]
            sources = _sources(top, commit, unnamed)
            _helpers[key] = testhelpers.test_helpers(graph.files, importers, among, sources.get)
        except Exception:
            return frozenset()
    return _helpers[key].intersection(paths)


_helpers: dict[tuple[str, str, str], frozenset[str]] = {}  # for the process: a commit's files never change


def _sources(top: Path, commit: str, paths: list[str]) -> dict[str, bytes]:
    """The bytes of each of `paths` as `commit` holds them (a link, or a file too large, left out)."""
    if not paths:
        return {}
    # Literal pathspecs: a file named `[ab].py` is that file, not a pattern.
    listing = runner.run(
        top, "ls-tree", "-z", "-l", "--full-tree", commit, "--", *paths, env={"GIT_LITERAL_PATHSPECS": "1"}
    ).stdout
    found: list[tuple[str, str]] = []
    for record in listing.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        if tab:
            mode, kind, oid, size = meta.split()
            if kind == b"blob" and mode != b"120000" and size.isdigit() and int(size) <= _READ_BYTES:
                found.append((os.fsdecode(raw), oid.decode()))
    blobs = objects.blobs(top, [oid for _, oid in found])
    return {path: data for (path, _), data in zip(found, blobs, strict=True)}
