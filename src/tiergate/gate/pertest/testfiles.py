"""Which changed paths are tests or test infrastructure: what, changed, can shrink the set of tests a
check runs (test files, conftest and fixtures, the runner's configuration, test scripts).

Used to decide whether a claim pays for running the test checks at the base (`tiergate.gate.run`):
a change that touches none of these cannot delete, mark or filter out a test. Generous on purpose
(any `pyproject.toml`, `package.json`, `setup.cfg`): a needless base run costs one test run, once
per base; a missed one lets a lost test through. Pure.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Iterable

_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "fixtures", "e2e"})
_NAMES = (
    "test_*.py",
    "*_test.py",
    "conftest.py",
    "pytest.ini",
    ".pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "noxfile.py",
    "sitecustomize.py",
    "usercustomize.py",
    "*.pth",
    "package.json",
    "*.test.*",
    "*.spec.*",
    "*_test.go",
    "jest.config.*",
    "vitest.config.*",
    ".mocharc*",
    "Cargo.toml",
    "Makefile",
)


def tests_among(paths: Iterable[str]) -> tuple[str, ...]:
    """The paths among `paths` (relative, `/`-separated) that are tests or test infrastructure."""
    return tuple(path for path in paths if _is_test(path))


def _is_test(path: str) -> bool:
    folders = path.split("/")[:-1]
    name = posixpath.basename(path)
    return bool(_FOLDERS.intersection(folders)) or any(fnmatch.fnmatchcase(name, p) for p in _NAMES)
