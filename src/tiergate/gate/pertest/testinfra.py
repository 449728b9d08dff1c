"""Which changed paths are tests or test infrastructure: what, changed, can shrink the tests a check runs.

They decide whether a claim runs the test checks at the base (`tiergate.gate.run`) and which paths the
base's tests put back (`tiergate.gate.scratch`). A test file is one by `tiergate.tier.testnames`, in every
folder; beyond it, generous on purpose (test, fixtures, e2e folders, any `pyproject.toml`, `package.json`,
`setup.cfg`): a needless base run costs one run, a missed one lets a lost test through. Pure.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from tiergate.tier.testnames import TEST_DIRS, named_as_test, names_test_infrastructure

# Folders any file of which can be a test's: its helpers and data, or another language's tests.
_FOLDERS = TEST_DIRS | {"specs", "testing", "fixtures", "e2e"}


def tests_among(paths: Iterable[str]) -> tuple[str, ...]:
    """The paths among `paths` (relative, `/`-separated) that are tests or test infrastructure."""
    return tuple(path for path in paths if _is_test(path))


def _is_test(path: str) -> bool:
    folders = path.split("/")[:-1]
    name = posixpath.basename(path)
    return bool(_FOLDERS.intersection(folders)) or named_as_test(name) or names_test_infrastructure(name)
