"""Test helpers outside the test folders: Python modules that, at the base, only the tests import and that
say they are for tests (a test word in their path, `support`, `testutils`, ..., or an `assert_*` function
of their own at the top). Such a helper decides a verdict as a test does, so it is test infrastructure,
beside `tiergate.gate.pertest.testinfra`'s paths: the base's tests put it back. Read from the base's import
graph, never the workspace. Being imported by tests alone is not enough (so is a library's every module).
See docs/judging.md, "The base's tests on the claimed code". Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from tiergate.gate.pertest.testinfra import tests_among

# The words of a module's or folder's name that say it serves the tests (and any word starting "test").
HELPER_WORDS = frozenset(
    {
        "support",
        "helper",
        "helpers",
        "fixture",
        "fixtures",
        "mock",
        "mocks",
        "fake",
        "fakes",
        "stub",
        "stubs",
        "factories",
        "assertion",
        "assertions",
        "asserts",
        "matchers",
    }
)
_WORD = re.compile(r"[a-z0-9]+")
# An assertion function at a module's top level: `def assert_equal(`, `async def assertClose(`.
_ASSERTION = re.compile(rb"^(?:async[ \t]+)?def[ \t]+assert\w*[ \t]*\(", re.MULTILINE | re.IGNORECASE)


def candidates(files: Iterable[str], importers: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The files of an import graph (`files`; `importers`: who imports each, `ImportMap.importers`) that
    are not tests by their path and that only tests import, directly or through other such files."""
    tests = set(tests_among(files))
    return _only_imported_by(importers, tests, set(importers) - tests)


def test_helpers(
    files: Iterable[str],
    importers: Mapping[str, frozenset[str]],
    among: frozenset[str],
    source: Callable[[str], bytes | None],
) -> frozenset[str]:
    """The test helpers of the import graph among `among` (its `candidates`): those that say they serve
    the tests, by name or by an assertion function of their own (`source`: a file's text at the base;
    None when it cannot be read), imported only by tests and by other such helpers."""
    speaking = {path for path in among if says_test(path) or _asserts(source(path))}
    return _only_imported_by(importers, set(tests_among(files)), speaking)


def says_test(path: str) -> bool:
    """Whether a word of `path`'s module or folder names is one of HELPER_WORDS, or starts with "test"."""
    words = _WORD.findall(path.removesuffix(".py").lower())
    return any(word in HELPER_WORDS or word.startswith("test") for word in words)


def _asserts(data: bytes | None) -> bool:
    return data is not None and _ASSERTION.search(data) is not None


def _only_imported_by(
    importers: Mapping[str, frozenset[str]], tests: set[str], within: set[str]
) -> frozenset[str]:
    """The largest part of `within` whose files are each imported, and only by `tests` or by that part."""
    kept = {path for path in within if importers.get(path)}
    while True:
        dropped = {path for path in kept if not importers[path] <= tests | kept}
        if not dropped:
            return frozenset(kept)
        kept -= dropped
