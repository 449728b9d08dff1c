"""What a test file is, by its path: the files whose changed lines the tests-weakened rules read.

Pure. A test file is named as one (`test_x.py`, `x_test.py`, `x.test.ts`, `x.spec.js`, `test-x.mjs`)
or stands in a test folder (`tests/`, `test/`, `__tests__/`, `spec/`): the runners' own defaults
(pytest, unittest, node --test, jest, mocha, vitest). A test's data is not a test: files under a
fixtures, snapshots or test-data folder, and built or vendored copies, are not read.
"""

from __future__ import annotations

from tiergate.tier.content.rule import BUILT_DIRS

PYTHON_SUFFIXES = (".py",)
JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
TEST_DIRS = frozenset({"tests", "test", "__tests__", "spec"})
DATA_DIRS = frozenset(
    {"fixtures", "__fixtures__", "testdata", "test_data", "snapshots", "__snapshots__", "__mocks__"}
)
_SKIPPED_DIRS = DATA_DIRS | frozenset(BUILT_DIRS)


def is_test(path: str) -> bool:
    """Whether `path` is a Python or JavaScript/TypeScript test file (see the module)."""
    folders, _, name = path.rpartition("/")
    parts = folders.split("/") if folders else []
    if any(part in _SKIPPED_DIRS for part in parts):
        return False
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem:
        return False
    if f".{suffix}" in PYTHON_SUFFIXES:
        named = stem.startswith("test_") or stem.endswith("_test") or stem in ("test", "tests")
    elif f".{suffix}" in JS_SUFFIXES:
        named = _js_test_name(stem)
    else:
        return False
    return named or any(part in TEST_DIRS for part in parts)


def _js_test_name(stem: str) -> bool:
    # `x.test`, `x.spec` (and `x.test.unit`: jest's `*.test.*` globs), `x-test`, `x_test`, `test-x`, `test`
    words = stem.split(".")
    return (
        any(w in ("test", "spec") for w in words[1:])
        or stem.endswith(("-test", "_test", "-spec", "_spec"))
        or stem.startswith("test-")
        or stem == "test"
    )
