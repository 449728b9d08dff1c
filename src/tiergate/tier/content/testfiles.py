"""What a test file is, by its path: the files whose changed lines the tests-weakened rules read.

Pure. A Python or JavaScript/TypeScript file named as a test or standing in a test folder, by the one
definition of both (`tiergate.tier.testnames`). A test's data is not a test: files under a fixtures,
snapshots or test-data folder, and built or vendored copies, are not read; nor is another language's test
file, whose lines no rule here reads.
"""

from __future__ import annotations

import re

from tiergate.tier.content.rule import BUILT_DIRS
from tiergate.tier.testnames import JS_SUFFIXES, PYTHON_SUFFIXES, TEST_DIRS, named_as_code_test

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
    stem, _, suffix = name.rpartition(".")
    if not stem or f".{suffix}" not in (*PYTHON_SUFFIXES, *JS_SUFFIXES):
        return False
    return named_as_code_test(name) or any(part in TEST_DIRS for part in parts)


def names_test_path(literal: str, dotted: bool = False) -> bool:
    """Whether a string in code names a test folder or file, or a glob of them (`tests/`, `test_*.py`,
    `conftest.py`, `spec/x.spec.js`); with `dotted`, a dotted module path too (`tests.test_calc`)."""
    parts = re.split(r"[/\\]" if not dotted else r"[/\\.]", literal)
    for part in parts:
        if part in TEST_DIRS or part == "conftest.py":
            return True
        if "." in part and named_as_code_test(part.replace("*", "x")):
            return True
    return dotted and any(p.startswith("test_") for p in parts)
