"""What makes a file a test by its path (the name its runner collects by default, or a test folder), and
what makes it test infrastructure (`names_test_infrastructure`): the one definition of each, which
`tiergate.tier.content.testfiles`, `tiergate.gate.pertest.testinfra` and the verifier's TEST CHANGES
block (`tiergate.tier.testchanges`) build on. Pure, and imports nothing: the gate asks it on every claim.
"""

from __future__ import annotations

import fnmatch

# The names are the runners' own defaults: pytest and unittest (`test_x.py`, `x_test.py`, `test.py`,
# `tests.py`), node --test, jest, mocha and vitest (`x.test.js`, `x.spec.ts`, `x.test.unit.ts`,
# `x-test.mjs`, `x_spec.cjs`, `test-x.js`, `test.js`), go test (`x_test.go`), and any other language's
# `x.test.*` or `x.spec.*`.


PYTHON_SUFFIXES = (".py",)
JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
TEST_DIRS = frozenset({"tests", "test", "__tests__", "spec"})
# Other languages' test files, by name alone.
_OTHER_NAMES = ("*_test.go", "*.test.*", "*.spec.*")
# Test infrastructure: what decides which tests run, how, and with what loaded first.
_INFRASTRUCTURE = (
    "conftest.py",
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",  # pytest 9 reads it first
    ".pytest.toml",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "noxfile.py",
    "sitecustomize.py",
    "usercustomize.py",
    "*.pth",
    "package.json",
    "jest.config.*",
    "vitest.config.*",
    ".mocharc*",
    "Cargo.toml",
    "Makefile",
)


def named_as_code_test(name: str) -> bool:
    """Whether `name` (a file's name, no folder) is a Python or JavaScript/TypeScript test file's."""
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem:
        return False
    if f".{suffix}" in PYTHON_SUFFIXES:
        return stem.startswith("test_") or stem.endswith("_test") or stem in ("test", "tests")
    if f".{suffix}" in JS_SUFFIXES:
        return _js_test_name(stem)
    return False


def named_as_test(name: str) -> bool:
    """Whether `name` (a file's name, no folder) is a test file's in any language (see the module)."""
    return named_as_code_test(name) or any(fnmatch.fnmatchcase(name, pattern) for pattern in _OTHER_NAMES)


def names_test_infrastructure(name: str) -> bool:
    """Whether `name` (a file's name, no folder) is test infrastructure's: a runner's configuration, a
    conftest, what Python loads first, a build file whose targets run the tests."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in _INFRASTRUCTURE)


def _js_test_name(stem: str) -> bool:
    # `x.test`, `x.spec` (and `x.test.unit`: jest's `*.test.*` globs), `x-test`, `x_test`, `test-x`, `test`
    words = stem.split(".")
    return (
        any(w in ("test", "spec") for w in words[1:])
        or stem.endswith(("-test", "_test", "-spec", "_spec"))
        or stem.startswith("test-")
        or stem == "test"
    )
