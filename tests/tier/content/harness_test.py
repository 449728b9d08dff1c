"""The tests-weakened rules for test infrastructure: pytest hooks that drop tests or rewrite their reports,
a conftest that patches the code under test, a startup file, a test script that runs nothing or masks
failure; a conftest of fixtures and a renamed test runner are not. Synthetic changed lines, no git."""

from __future__ import annotations

import re

import pytest
from testing.filelines import file_lines

from tiergate.tier import content
from tiergate.tier.content import ContentHit, added_file, scan_files
from tiergate.tier.content.harness import (
    COLLECTION,
    JAVASCRIPT_TEST_INFRA,
    MASKED,
    MOCKED,
    NO_TEST,
    PYTEST_HOOKS,
    PYTHON_TEST_INFRA,
    REPLACED,
    REPORTS,
    RUNS,
    SELECTED,
)
from tiergate.tier.content.harness import EXIT_STATUS as STATUS
from tiergate.tier.content.testcode import EXITED


def weakened(path: str, removed: list[str], added: list[str]) -> list[ContentHit]:
    lines = file_lines(path, added, range(20, 20 + len(added)), removed, range(20, 20 + len(removed)))
    return [h for h in scan_files([lines], content.DEFAULT) if h.construct.startswith("tests weakened")]


CONFTEST = "tests/conftest.py"
PATCHED = "tests weakened: conftest.py patches the code under test"
STARTUP = "tests weakened: sitecustomize.py runs code in every Python process, the tests' too"
PTH = "tests weakened: a .pth line runs code in every Python process, the tests' too"

# (file, removed lines, added lines, the construct)
WEAKENING: list[tuple[str, list[str], list[str], str]] = [
    (CONFTEST, [], ["def pytest_collection_modifyitems(config, items):"], COLLECTION),
    ("conftest.py", [], ["def pytest_ignore_collect(collection_path, config):"], COLLECTION),
    ("src/myplugin.py", [], ["def pytest_pycollect_makeitem(collector, name, obj):"], COLLECTION),
    (CONFTEST, [], ["    config.hook.pytest_deselected(items=dropped)"], COLLECTION),
    (CONFTEST, [], ["    items[:] = [i for i in items if 'total' not in i.name]"], COLLECTION),
    (CONFTEST, [], ["    items.clear()"], COLLECTION),
    (CONFTEST, [], ["    del items[2:]"], COLLECTION),
    (CONFTEST, [], ["    deselect(items)"], COLLECTION),
    (CONFTEST, [], ["    config.option.markexpr = 'not slow'"], COLLECTION),
    (CONFTEST, [], ["def pytest_runtest_call(item):"], RUNS),
    (CONFTEST, [], ["def pytest_runtest_protocol(item, nextitem):"], RUNS),
    (CONFTEST, [], ["def pytest_pyfunc_call(pyfuncitem):"], RUNS),
    (CONFTEST, [], ["        item.add_marker(pytest.mark.skip(reason='slow'))"], RUNS),
    (CONFTEST, [], ["def pytest_runtest_makereport(item, call):"], REPORTS),
    (CONFTEST, [], ["def pytest_report_teststatus(report, config):"], REPORTS),
    (CONFTEST, [], ["    rep.outcome = 'passed'"], REPORTS),
    (CONFTEST, [], ["    outcome.force_result(report)"], REPORTS),
    (CONFTEST, [], ["    report.longrepr = None"], REPORTS),
    (CONFTEST, [], ["    session.exitstatus = 0"], STATUS),
    (CONFTEST, [], ["    os._exit(0)"], EXITED),
    (CONFTEST, [], ["    sys.exit()"], EXITED),
    (CONFTEST, [], ["    monkeypatch.setattr(app, 'total', lambda xs: 3)"], PATCHED),
    (CONFTEST, [], ["    monkeypatch.setattr('app.total', lambda xs: 3)"], PATCHED),
    (CONFTEST, [], ["    with mock.patch('app.total', return_value=3):"], PATCHED),
    (CONFTEST, [], ["    mocker.patch.object(app, 'total')"], PATCHED),
    (CONFTEST, [], ["setattr(app, 'total', fake)"], PATCHED),
    (CONFTEST, [], ["import app", "app.total = lambda xs: 3"], PATCHED),
    (CONFTEST, [], ["from pkg import calc as c", "c.total = fake"], PATCHED),
    ("sitecustomize.py", [], ["# keep", "import builtins"], STARTUP),
    ("venv-extra.pth", [], ["import os; os.environ['X'] = '1'"], PTH),
    ("package.json", ['    "test": "node --test",'], ['    "test": "echo ok",'], NO_TEST),
    ("package.json", [], ['    "test": "true",'], NO_TEST),
    ("package.json", [], ['    "test": "exit 0",'], NO_TEST),
    ("package.json", [], ['    "test:unit": "",'], NO_TEST),
    ("package.json", [], ['    "test": "node --test; exit 0",'], MASKED),
    ("package.json", [], ['    "test": "jest || true",'], MASKED),
    ("package.json", [], ['    "test": "node --test --test-only",'], SELECTED),
    ("package.json", [], ['    "test": "jest --testNamePattern=add",'], SELECTED),
    ("package.json", [], ['    "test": "mocha --grep add",'], SELECTED),
    ("package.json", [], ['    "test": "jest --onlyChanged",'], SELECTED),
    ("jest.setup.js", [], ["global.it = (name) => {};"], REPLACED),
    ("vitest.setup.ts", [], ["globalThis.expect = () => ({ toBe() {} });"], REPLACED),
    ("jest.setup.js", [], ["jest.mock('./src/calc');"], MOCKED),
    ("vitest.setup.ts", [], ["vi.mock('../src/calc', () => ({ add: () => 3 }));"], MOCKED),
    ("setupTests.js", [], ["process.exit(0);"], EXITED),
]


@pytest.mark.parametrize(("path", "removed", "added", "construct"), WEAKENING)
def test_weakened_test_infrastructure_is_architecture_naming_file_and_line(
    path: str, removed: list[str], added: list[str], construct: str
) -> None:
    hits = [h for h in weakened(path, removed, added) if h.construct == construct]
    assert hits, (path, removed, added)
    assert all(h.category == "architecture" for h in hits)
    assert re.match(rf"{re.escape(path)}:2\d \(added line\) tests weakened: ", hits[0].describe())


def test_every_construct_has_a_weakening_case() -> None:
    found = {h.construct for path, old, new, _ in WEAKENING for h in weakened(path, old, new)}
    wanted = {
        rule.construct
        for eco in (PYTEST_HOOKS, PYTHON_TEST_INFRA, JAVASCRIPT_TEST_INFRA)
        for rule in eco.rules
    }
    assert wanted | {PATCHED, STARTUP, PTH} <= found


FIXTURES = """\
import json

import pytest

import app


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("APP_HOME", str(tmp_path))
    monkeypatch.setattr("time.time", lambda: 0.0)
    monkeypatch.chdir(tmp_path)
    return app.Store(tmp_path / "db.json")


@pytest.fixture(autouse=True)
def clean(request):
    yield
    request.node.user_properties.append(("db", json.dumps({})))
"""

# (file, removed lines, added lines): honest test infrastructure
HONEST: list[tuple[str, list[str], list[str]]] = [
    (CONFTEST, [], FIXTURES.splitlines()),
    (CONFTEST, ["def pytest_collection_modifyitems(config, items):"], []),  # a hook removed
    (CONFTEST, [], ["    with mock.patch.dict(os.environ, {'TZ': 'UTC'}):", "    patch('time.sleep')"]),
    (CONFTEST, [], ["pytest_plugins = ['pytester']", "    config.addinivalue_line('markers', 'slow')"]),
    (CONFTEST, [], ["    client.patch('/todo/1', json={'done': True})", "    outcome = yield"]),
    (
        "src/app.py",
        [],
        ["    items[:] = sorted(items)", "    items.clear()", "    monkeypatch.setattr(a, 'b', 1)"],
    ),
    ("paths.pth", [], ["../src"]),
    ("package.json", ['    "test": "jest",'], ['    "test": "vitest run",']),
    ("package.json", [], ['    "test": "echo \\"Error: no test specified\\" && exit 1"']),
    ("package.json", [], ['    "lint": "eslint . || true",', '    "build": "echo building && tsc"']),
    ("jest.setup.js", [], ["import '@testing-library/jest-dom';", "afterEach(() => cleanup());"]),
    ("src/app.js", [], ["global.it = 1;", "jest.mock('./x');"]),  # not a setup file
]


@pytest.mark.parametrize(("path", "removed", "added"), HONEST)
def test_honest_test_infrastructure_weakens_nothing(path: str, removed: list[str], added: list[str]) -> None:
    assert weakened(path, removed, added) == []


def test_a_whole_new_conftest_is_judged_as_its_added_lines() -> None:
    text = "import pytest\n\n\ndef pytest_runtest_makereport(item, call):\n    pass\n"
    (hit,) = [h for h in scan_files([added_file(CONFTEST, text)], content.DEFAULT) if h.construct == REPORTS]
    assert hit.describe() == (
        "tests/conftest.py:4 (added line) tests weakened: a hook that rewrites test outcomes or reports: "
        '"def pytest_runtest_makereport(item, call):"'
    )


def test_every_rule_is_architecture_on_added_lines() -> None:
    for eco in (PYTEST_HOOKS, PYTHON_TEST_INFRA, JAVASCRIPT_TEST_INFRA):
        for rule in eco.rules:
            assert (rule.category, rule.sides) == ("architecture", "added")
            assert not rule.pattern.startswith(("\\b", "[", "(", ".", "\\s", "\\w")), rule.pattern
