"""Test helpers outside the test folders: Python modules that, at the loop's base, only the tests import
(`support.py` at the project's top, `testutils/asserts.py`) and that say they are for tests.

Such a helper decides a test's verdict as much as the test does: an agent that weakens its
`assert_equal` makes a failing test pass. So it counts as test infrastructure, beside what
`tiergate.gate.pertest.testinfra` tells from a path alone: the base's tests on the claimed code put it back
as the base holds it. Read from the base's import graph (`tiergate.gate.pertest.importmap`), never from
the workspace, where the agent could add an import to make code look like a helper, or a helper like code.

Being imported by the tests alone is not enough: so is every module of a library, whose only users in
its repository are its tests, and putting the code back as the base holds it would read honest work as
tests edited to pass. A helper must also say it is one: a test word in its name or folders (`support`,
`helpers`, `testutils`, `fixtures`, `mocks`, ...), or an assertion function of its own at its top level
(`def assert_equal`). One imported only through other helpers counts too, if it says so as well. See
docs/judging.md, "The base's tests on the claimed code". Pure.
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
