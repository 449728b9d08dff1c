"""Content-aware risk: the changed lines of a change searched for risky constructs. Pure: patch in, hits out.

A `ContentRule` (`rule.py`) is a regular expression searched in one changed line; an `Ecosystem` says which
files read which rules, one module per family (`python`, `secretleaks`, `harness`, `ci`, ...). `DEFAULT` is
all of them, `BY_NAME` finds one by name; `scan_patch`, `scan_files` and `added_file` search (`scan.py`),
`judged_paths` names the files whose path floor a judge replaced. See docs/risk.md.
"""

from __future__ import annotations

from tiergate.tier.content.checkconfig import CHECK_CONFIG, CHECK_RUNS
from tiergate.tier.content.ci import CI
from tiergate.tier.content.escaping import JAVA, PHP, RUBY, TEMPLATES
from tiergate.tier.content.go import GO, GO_MODULES
from tiergate.tier.content.harness import JAVASCRIPT_TEST_INFRA, PYTEST_HOOKS, PYTHON_TEST_INFRA
from tiergate.tier.content.javascript import JAVASCRIPT, NPM_MANIFEST
from tiergate.tier.content.outwit import OUTWITTING
from tiergate.tier.content.patch import FileLines, Side, parse_patch
from tiergate.tier.content.python import PYTHON, PYTHON_REQUIREMENTS
from tiergate.tier.content.reachcode import REACHING
from tiergate.tier.content.rule import CATEGORIES, SIDES, Category, ContentHit, ContentRule, Ecosystem
from tiergate.tier.content.rust import CARGO_MANIFEST, RUST
from tiergate.tier.content.scan import added_file, judged_paths, scan_files, scan_patch
from tiergate.tier.content.secretleaks import COMMON
from tiergate.tier.content.testcode import JAVASCRIPT_TESTS, PYTHON_TESTS

# The tests-weakened and outwitting ecosystems: architecture hits where the agent made the tests say less.
TESTS_WEAKENED: tuple[Ecosystem, ...] = (
    PYTHON_TESTS,
    JAVASCRIPT_TESTS,
    PYTEST_HOOKS,
    PYTHON_TEST_INFRA,
    JAVASCRIPT_TEST_INFRA,
    OUTWITTING,
    REACHING,
)
DEFAULT: tuple[Ecosystem, ...] = (
    COMMON,
    PYTHON,
    JAVASCRIPT,
    GO,
    RUST,
    PYTHON_REQUIREMENTS,
    NPM_MANIFEST,
    GO_MODULES,
    CARGO_MANIFEST,
    TEMPLATES,
    RUBY,
    PHP,
    JAVA,
    CHECK_CONFIG,
    CHECK_RUNS,
    CI,
    *TESTS_WEAKENED,
)
BY_NAME: dict[str, Ecosystem] = {eco.name: eco for eco in DEFAULT}

__all__ = [
    "BY_NAME",
    "CATEGORIES",
    "DEFAULT",
    "SIDES",
    "TESTS_WEAKENED",
    "Category",
    "ContentHit",
    "ContentRule",
    "Ecosystem",
    "FileLines",
    "Side",
    "added_file",
    "judged_paths",
    "parse_patch",
    "scan_files",
    "scan_patch",
]
