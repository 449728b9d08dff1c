"""Content-aware risk: the changed lines of a change, searched for security-sensitive constructs.

Pure (no I/O): a patch in, hits out. The interface:

- `ContentRule(construct, pattern, category="security", sides="both", near="")`: one construct, a regular
  expression searched in the text of one changed line.
- `Ecosystem(name, rules, suffixes=(), names=())`: which files (suffix, or a glob on the name) read which
  rules. One module per ecosystem: `python`, `javascript` (JS/TS), `go`, `rust`, and `common` (every
  text file: secrets); `checkconfig` (architecture: changed lines that weaken the project's checks);
  `ci` (security: a CI workflow's changed lines that are not routine, read whole by its `judge`);
  tests weakened (architecture): `python-tests` and `javascript-tests` (`testcode`, test files by
  `testfiles.is_test`), `pytest-hooks`, `python-test-infra` and `javascript-test-infra`
  (`testinfra`); and `outwitting` (`outwit`: an `__eq__` that ignores its argument). Output escaping
  and raw-HTML sinks (`escaping`) are in each language's rules, and their own ecosystems for the
  files no other rule reads: `html-templates`, `ruby`, `php`, `java`.
  Each language module also has its manifests' ecosystem (`dependencies`: a changed dependency on a
  package that implements a security construct).
  `DEFAULT` is all of them (`TESTS_WEAKENED` the tests-weakened ones); `BY_NAME` finds one by its
  name (configuration).
- `scan_patch(patch, ecosystems) -> tuple[ContentHit, ...]`: git's unified diff (`diff -U0`) in; a hit per
  added or removed line that matched (`ContentHit.describe()` is the reason, naming `file:line`).
- `scan_files` and `added_file`: the same for changed lines already read, and a new file's lines.
- `judged_paths(files, ecosystems)`: the files an ecosystem's judge read, whose path floor it replaces
  (`RiskPaths.scan(paths, judged=...)`).
"""

from __future__ import annotations

from tiergate.tier.content.checkconfig import CHECK_CONFIG, CHECK_RUNS
from tiergate.tier.content.ci import CI
from tiergate.tier.content.common import COMMON
from tiergate.tier.content.escaping import JAVA, PHP, RUBY, TEMPLATES
from tiergate.tier.content.go import GO, GO_MODULES
from tiergate.tier.content.javascript import JAVASCRIPT, NPM_MANIFEST
from tiergate.tier.content.outwit import OUTWITTING
from tiergate.tier.content.patch import FileLines, Side, parse_patch
from tiergate.tier.content.python import PYTHON, PYTHON_REQUIREMENTS
from tiergate.tier.content.rule import CATEGORIES, SIDES, Category, ContentHit, ContentRule, Ecosystem
from tiergate.tier.content.rust import CARGO_MANIFEST, RUST
from tiergate.tier.content.scan import added_file, judged_paths, scan_files, scan_patch
from tiergate.tier.content.testcode import JAVASCRIPT_TESTS, PYTHON_TESTS
from tiergate.tier.content.testinfra import JAVASCRIPT_TEST_INFRA, PYTEST_HOOKS, PYTHON_TEST_INFRA

# The tests-weakened and outwitting ecosystems: architecture hits where the agent made the tests say less.
TESTS_WEAKENED: tuple[Ecosystem, ...] = (
    PYTHON_TESTS,
    JAVASCRIPT_TESTS,
    PYTEST_HOOKS,
    PYTHON_TEST_INFRA,
    JAVASCRIPT_TEST_INFRA,
    OUTWITTING,
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
