"""The `reaching` ecosystem: the implementation files of Python, JavaScript/TypeScript and Rust (not tests,
not test infrastructure, not fixtures or built code), whose added lines its judge reads for code that
reaches into its tests (`reaching`). Architecture hits, added to the path floor, never replacing it.
"""

from __future__ import annotations

from collections.abc import Iterable

from tiergate.tier.content.harness import JAVASCRIPT_TEST_INFRA, PYTHON_TEST_INFRA
from tiergate.tier.content.patch import FileLines
from tiergate.tier.content.reachjs import judge_javascript
from tiergate.tier.content.reachpython import judge_python
from tiergate.tier.content.reachrust import judge_rust
from tiergate.tier.content.rule import BUILT_DIRS, BUILT_NAMES, VENDORED_DIRS, ContentHit, Ecosystem
from tiergate.tier.content.testfiles import DATA_DIRS, is_test
from tiergate.tier.testnames import JS_SUFFIXES, PYTHON_SUFFIXES, names_test_infrastructure

_RUST_TEST_DIRS = frozenset({"tests", "benches", "fuzz", "testdata", "test-data", "fixtures"})


def judge_reaching(changed: FileLines) -> Iterable[ContentHit]:
    path = changed.path.lower()
    if path.endswith(PYTHON_SUFFIXES):
        return judge_python(changed)
    if path.endswith(JS_SUFFIXES):
        return judge_javascript(changed)
    return judge_rust(changed)


def implementation(path: str) -> bool:
    """Whether `path` is code the tests run rather than a test or what runs them."""
    if PYTHON_TEST_INFRA.holds(path) or JAVASCRIPT_TEST_INFRA.holds(path):
        return False
    if names_test_infrastructure(path.rpartition("/")[2]):
        return False  # noxfile.py, setup.py's siblings: what runs the tests
    if path.lower().endswith(".rs"):
        return not _rust_test(path)
    return not is_test(path)


def _rust_test(path: str) -> bool:
    folders, _, name = path.rpartition("/")
    stem = name[: -len(".rs")]
    if any(part in _RUST_TEST_DIRS for part in folders.split("/")):
        return True
    return stem in ("tests", "test") or stem.endswith(("_test", "_tests")) or stem.startswith("test_")


REACHING = Ecosystem(
    "reaching",
    rules=(),
    suffixes=(*PYTHON_SUFFIXES, *JS_SUFFIXES, ".rs"),
    # Vendored sources are read: written into the change, they run as the project's code does, and an
    # agent could put there what it would not put in its own files. Built output is rebuilt, not written.
    ignore_dirs=(*(d for d in BUILT_DIRS if d not in VENDORED_DIRS), *sorted(DATA_DIRS)),
    ignore_names=BUILT_NAMES,
    accepts=implementation,
    judge=judge_reaching,
    judge_replaces_path_floor=False,
)
