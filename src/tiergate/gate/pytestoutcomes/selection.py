# mypy: ignore-errors
"""The gate's selection: only the tests it selected run, the rest deselected, their modules not imported."""

import json
import os

import pytest

_ONLY = "TIERGATE_TESTS_ONLY"
# Never left out of collection: they hold fixtures, hooks and package set-up, never tests of their own.
_ALWAYS_COLLECTED = ("conftest.py", "__init__.py")


class _Selection:
    """The gate's selection (`TIERGATE_TESTS_ONLY`: a JSON file of absolute test file paths and node ids):
    other test files are left out of collection, and the other tests collected are deselected."""

    def __init__(self, files, tests, root, recorder, reverse=False):
        self.tests = set(tests)
        self.reverse = reverse
        self.whole = _paths(files)  # every test of these runs
        # A selected test's file is collected too; its node id names it relative to the rootdir.
        self.collected = self.whole | _paths(os.path.join(root, test.split("::")[0]) for test in tests)
        self.recorder = recorder

    def ignored(self, path):
        """Whether collection leaves out `path`: a file that is not selected (None: let pytest decide)."""
        name = os.path.basename(path)
        if name in _ALWAYS_COLLECTED or os.path.isdir(path) or _among(path, self.collected):
            return None
        return True

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        try:
            kept, left = [], []
            for item in items:
                selected = item.nodeid in self.tests or _among(_item_path(item), self.whole)
                (kept if selected else left).append(item)
            if self.reverse:
                kept.reverse()
            if left or self.reverse:
                items[:] = kept
            if left:
                config.hook.pytest_deselected(items=left)
            if self.recorder is not None:
                # Said only once a collection went through it: under xdist the controller collects
                # nothing (its workers do, without the selection) and the run is a whole one.
                self.recorder.only = True
        except Exception:
            pass


# pluggy refuses a plugin whose hook takes an argument the running pytest's hookspec does not have, and
# pytest stops: pytest 7 and later give `collection_path` (the latest give nothing else), earlier ones only
# `path`. The one the running pytest gives is chosen (`_argnames`).
class _SelectionByCollectionPath(_Selection):
    def pytest_ignore_collect(self, collection_path, config):
        try:
            return self.ignored(str(collection_path))
        except Exception:
            return None


class _SelectionByPath(_Selection):
    def pytest_ignore_collect(self, path, config):
        try:
            return self.ignored(str(path))
        except Exception:
            return None


def _paths(paths):
    """`paths` as given and as resolved: pytest may name a file through a link, or the gate may."""
    found = set()
    for path in paths:
        found.add(path)
        found.add(os.path.realpath(path))
    return found


def _among(path, paths):
    return path in paths or os.path.realpath(path) in paths


def _item_path(item):
    path = getattr(item, "path", None)  # pytest 7 and later
    return str(path if path is not None else item.fspath)


def _selection(config, recorder):
    """The selection the gate asked for, as a plugin to register; None when it asked for none or its
    file cannot be read (the whole run then, as asked by the command)."""
    name = os.environ.get(_ONLY)
    if not name:
        return None
    with open(name) as f:
        data = json.load(f)
    files = [str(path) for path in data["files"]]
    tests = [str(test) for test in data["tests"]]
    root = str(getattr(config, "rootpath", None) or config.rootdir)
    argnames = _argnames(config.hook.pytest_ignore_collect)
    kind = _SelectionByCollectionPath if "collection_path" in argnames else _SelectionByPath
    return kind(files, tests, root, recorder, bool(data.get("reverse")))


def _argnames(caller):
    """The argument names the hook's specification gives (`path` alone when it cannot be told): on its
    `spec` in recent pluggy, on the hook caller itself in older ones (pytest 3.6's pluggy 0.7)."""
    spec = getattr(caller, "spec", None)
    names = getattr(spec, "argnames", None) if spec is not None else getattr(caller, "argnames", None)
    return tuple(names or ("path",))
