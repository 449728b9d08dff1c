"""Rules for test infrastructure: pytest hooks, `conftest.py` and `sitecustomize.py`, JavaScript test
scripts and setup files, changed so that the tests say less (tests dropped, outcomes rewritten, the code
under test patched or mocked, a script that runs no test). Each hit is "tests weakened: ..." and
architecture (THOROUGH). See docs/risk.md, "In test infrastructure".
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator

from tiergate.tier.content.patch import FileLines
from tiergate.tier.content.rule import BUILT_DIRS, ContentHit, Ecosystem, call, prefix, word
from tiergate.tier.content.testcode import EXITED, added, hit
from tiergate.tier.content.testfiles import DATA_DIRS

COLLECTION = "tests weakened: a hook that changes which tests are collected"
RUNS = "tests weakened: a hook that replaces how tests run"
REPORTS = "tests weakened: a hook that rewrites test outcomes or reports"
EXIT_STATUS = "tests weakened: the test session's exit status set"
NO_TEST = "tests weakened: the test script runs no test"
MASKED = "tests weakened: the test script masks failure"
SELECTED = "tests weakened: the test run limited to some tests"
REPLACED = "tests weakened: a test function replaced"
MOCKED = "tests weakened: a test setup file mocks modules for every test"

_ASSIGNED = r"[ \t]*=(?!=)"

PYTEST_HOOKS = Ecosystem(
    "pytest-hooks",
    suffixes=(".py",),
    comments=("#",),
    ignore_dirs=BUILT_DIRS,
    rules=(
        *added(
            COLLECTION,
            *(word(f"pytest_{name}") for name in ("collection_modifyitems", "ignore_collect")),
            *(word(f"pytest_{name}") for name in ("pycollect_makeitem", "deselected")),
        ),
        *added(
            RUNS,
            *(word(f"pytest_runtest_{name}") for name in ("call", "protocol", "setup")),
            word("pytest_pyfunc_call"),
        ),
        *added(
            REPORTS,
            *(word(f"pytest_{name}") for name in ("runtest_makereport", "report_teststatus")),
            word("pytest_runtest_logreport"),
            r"\.outcome" + _ASSIGNED,
            r"\.longrepr[ \t]*=[ \t]*None\b",
            call("force_result"),
            call("force_exception"),
            word("wasxfail") + _ASSIGNED,
        ),
        *added(EXIT_STATUS, word("exitstatus") + _ASSIGNED),
    ),
)

_SKIP_MARK = r"\bmark\.(?:skip|xfail)|\bSkipTest\b"
_STARTUP = ("sitecustomize.py", "usercustomize.py")

_PYTHON_INFRA_RULES = (
    *added(
        COLLECTION,
        word("items") + r"[ \t]*\[[ \t]*:?[ \t]*\]" + _ASSIGNED,
        word("items") + r"\.(?:clear|remove|pop)[ \t]*\(",
        r"del(?<![A-Za-z0-9_]del)[ \t]+items\b",
        prefix("deselect"),
        word("markexpr") + _ASSIGNED,
        word("option.keyword") + _ASSIGNED,
    ),
    *added(RUNS, call("add_marker"), near=_SKIP_MARK),
    *added(
        EXITED,
        call("os._exit"),
        word("sys.exit") + r"\([ \t]*(?:0|None|False)?[ \t]*\)",
        call("pytest.exit"),
    ),
)

# The first argument of a patching call: a name, or a dotted path in quotes.
_PATCHING = re.compile(
    r"(?:\bmonkeypatch\.setattr|\bmocker\.patch(?:\.object)?|\bmock\.patch(?:\.object)?"
    r"|(?<![A-Za-z0-9_.])patch(?:\.object)?|(?<![A-Za-z0-9_.])setattr)"
    r"[ \t]*\([ \t]*[\"']?(?P<root>[A-Za-z_][A-Za-z0-9_]*)"
)
_IMPORT = re.compile(
    r"^[ \t]*import[ \t]+(?P<names>[^#\n]+)|^[ \t]*from[ \t]+\S+[ \t]+import[ \t]+(?P<from>[^#\n]+)"
)
_ATTRIBUTE_SET = re.compile(
    r"^[ \t]*(?P<root>[A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z_][A-Za-z0-9_]*)+[ \t]*=(?!=)"
)
# Names a conftest may patch, or set attributes on, without touching the code under test.
_NOT_THE_CODE = frozenset(sys.stdlib_module_names) | {"self", "cls", "request", "config", "item", "session"}


def judge_python_infra(changed: FileLines) -> Iterable[ContentHit]:
    name = changed.path.rpartition("/")[2]
    lines = list(zip(changed.added_numbers, changed.added, strict=True))
    if name in _STARTUP:
        first = next(((n, t) for n, t in lines if t.strip() and not t.lstrip().startswith("#")), None)
        if first is not None:
            construct = f"tests weakened: {name} runs code in every Python process, the tests' too"
            yield hit(changed.path, first[0], "added", construct, first[1])
    if name.endswith(".pth"):
        for number, text in lines:
            if text.startswith(("import ", "import\t")):
                construct = "tests weakened: a .pth line runs code in every Python process, the tests' too"
                yield hit(changed.path, number, "added", construct, text)
        return
    yield from _patches(changed.path, name, lines)


def _patches(path: str, name: str, lines: list[tuple[int, str]]) -> Iterator[ContentHit]:
    """Added lines of a conftest (or a startup file) that patch names other than the standard library's."""
    imported = _imported(text for _, text in lines)
    construct = f"tests weakened: {name} patches the code under test"
    for number, text in lines:
        if text.lstrip().startswith("#"):
            continue
        setting = _ATTRIBUTE_SET.match(text)
        roots = [m["root"] for m in _PATCHING.finditer(text)]
        if setting is not None and setting["root"] in imported:
            roots.append(setting["root"])
        if any(root not in _NOT_THE_CODE for root in roots):
            yield hit(path, number, "added", construct, text)


def _imported(texts: Iterable[str]) -> set[str]:
    """The names the lines bind by import (`import a.b` binds `a`, `as c` binds `c`)."""
    names: set[str] = set()
    for text in texts:
        match = _IMPORT.match(text)
        if match is None:
            continue
        for item in (match["names"] or match["from"]).strip("() \t").split(","):
            words = item.split()
            if words:
                names.add(words[-1] if len(words) == 3 and words[1] == "as" else words[0].split(".")[0])
    return names


PYTHON_TEST_INFRA = Ecosystem(
    "python-test-infra",
    rules=_PYTHON_INFRA_RULES,
    comments=("#",),
    names=("conftest.py", *_STARTUP, "*.pth"),
    ignore_dirs=(*BUILT_DIRS, *sorted(DATA_DIRS)),
    judge=judge_python_infra,
    judge_replaces_path_floor=False,
)

_SCRIPT = r'"test(?::[A-Za-z0-9_:-]+)?"[ \t]*:[ \t]*"'
_JS_INFRA_FILES = ("jest", "vitest", "vite", "mocha")

JAVASCRIPT_TEST_INFRA = Ecosystem(
    "javascript-test-infra",
    comments=("//", "/*", "* "),
    ignore_dirs=(*BUILT_DIRS, *sorted(DATA_DIRS)),
    names=(
        "package.json",
        *(f"{tool}.config.*" for tool in _JS_INFRA_FILES),
        *(f"{tool}.setup.*" for tool in _JS_INFRA_FILES),
        *(f"{tool}-setup.*" for tool in _JS_INFRA_FILES),
        *("vitest.workspace.*", "setupTests.*", "setup-tests.*", "test-setup.*", "testSetup.*", ".mocharc*"),
    ),
    rules=(
        *added(
            NO_TEST,
            # npm's placeholder (`echo "Error: no test specified" && exit 1`) fails, as it should
            _SCRIPT + r'[ \t]*(?:echo\b|true\b|exit[ \t]+0\b|:[ \t]*"|")(?![^\n]*exit[ \t]+[1-9])',
        ),
        *added(MASKED, _SCRIPT + r'[^"\n]*(?:;|\|\|)[ \t]*(?:exit[ \t]+0|true)\b'),
        *added(
            SELECTED,
            *(word(flag) for flag in ("--test-only", "--test-name-pattern", "--test-skip-pattern")),
            *(word(flag) for flag in ("--testNamePattern", "--testPathPattern", "--grep", "--fgrep")),
            *(word(flag) for flag in ("--onlyChanged", "--changedSince", "--lastCommit")),
        ),
        *added(
            REPLACED,
            r"global(?<![A-Za-z0-9_.]global)(?:This)?\.(?:it|test|describe|expect|assert)" + _ASSIGNED,
        ),
        *added(MOCKED, call("jest.mock"), call("vi.mock"), call("sinon.stub")),
        *added(EXITED, call("process.exit"), word("process.exitCode") + _ASSIGNED),
    ),
)
