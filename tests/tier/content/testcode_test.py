"""The tests-weakened rules for test files: a skip, a `.only`, an assertion that cannot fail, removed or
swallowed is architecture naming its file and line; honest test work (a new test, a renamed one, an
assertion made stronger, a skip removed) is not. Synthetic changed lines, no git."""

from __future__ import annotations

import re

import pytest
from testing.filelines import file_lines

from tiergate.tier import content
from tiergate.tier.content import ContentHit, scan_files
from tiergate.tier.content.testcode import (
    CONSTANT,
    EXITED,
    JAVASCRIPT_TESTS,
    ONLY,
    PYTHON_TESTS,
    REMOVED,
    SKIPPED,
    SWALLOWED,
    SWALLOWED_JS,
    hunks,
)


def weakened(path: str, removed: list[str], added: list[str], at: int = 1) -> list[ContentHit]:
    """The tests-weakened hits of one hunk replacing `removed` by `added` at line `at`, all rules on."""
    lines = file_lines(path, added, range(at, at + len(added)), removed, range(at, at + len(removed)))
    return [h for h in scan_files([lines], content.DEFAULT) if h.construct.startswith("tests weakened")]


PY = "tests/test_app.py"
JS = "test/app.test.js"

# (file, removed lines, added lines, the construct)
WEAKENING: list[tuple[str, list[str], list[str], str]] = [
    (PY, [], ["@pytest.mark.skip(reason='flaky')"], SKIPPED),
    (PY, [], ["@pytest.mark.skipif(True, reason='later')"], SKIPPED),
    (PY, [], ["@pytest.mark.xfail"], SKIPPED),
    ("tests/unit/helpers.py", [], ["    pytest.skip('not yet')"], SKIPPED),
    (PY, [], ["    pytest.xfail('known')"], SKIPPED),
    (PY, [], ["@unittest.skip('wip')"], SKIPPED),
    (PY, [], ["@unittest.skipIf(True, 'wip')"], SKIPPED),
    (PY, [], ["@unittest.expectedFailure"], SKIPPED),
    ("app_test.py", [], ["        self.skipTest('later')"], SKIPPED),
    (PY, [], ["        raise unittest.SkipTest('later')"], SKIPPED),
    (PY, [], ["@skipIf(True, 'wip')"], SKIPPED),
    (PY, ["    assert total(2) == 4"], ["    assert True"], CONSTANT),
    (PY, [], ["    assert 1 == 1, 'sanity'"], CONSTANT),
    (PY, [], ["    assert not False"], CONSTANT),
    (PY, [], ["        self.assertTrue(True)"], CONSTANT),
    (PY, [], ["        self.assertFalse(False)"], CONSTANT),
    (PY, [], ["        self.assertEqual(4, 4)"], CONSTANT),
    (PY, [], ["    with contextlib.suppress(AssertionError):"], SWALLOWED),
    (PY, [], ["os._exit(0)"], EXITED),
    (PY, [], ["sys.exit(0)"], EXITED),
    ("tests/test_x.py", [], ["    pytest.exit('done', returncode=0)"], EXITED),
    (PY, ["    assert total(2) == 4"], [], REMOVED),
    (PY, ["        self.assertEqual(total(2), 4)"], ["        pass"], REMOVED),
    (PY, ["    with pytest.raises(ValueError):"], [], REMOVED),
    (PY, ["    assert total(2) == 4"], ["    # assert total(2) == 4"], REMOVED),
    (
        PY,
        ["    assert x == 1"],
        ["    try:", "        assert x == 1", "    except:", "        pass"],
        SWALLOWED,
    ),
    (PY, [], ["    try:", "        assert x == 1", "    except Exception:", "        pass"], SWALLOWED),
    (PY, [], ["    try:", "        assert x == 1", "    except BaseException: ..."], SWALLOWED),
    (
        PY,
        [],
        ["    try:", "        self.assertEqual(x, 1)", "    except AssertionError as e:", "        log(e)"],
        SWALLOWED,
    ),
    (JS, [], ["it.skip('adds', () => {"], SKIPPED),
    (JS, [], ["test.skip('adds', async () => {"], SKIPPED),
    (JS, [], ["describe.skip('calc', () => {"], SKIPPED),
    (JS, [], ["it.todo('adds')"], SKIPPED),
    ("src/__tests__/calc.ts", [], ["it.skipIf(process.env.CI)('adds', () => {"], SKIPPED),
    (JS, [], ["xit('adds', () => {"], SKIPPED),
    (JS, [], ["xdescribe('calc', () => {"], SKIPPED),
    (JS, [], ["test('adds', { skip: true }, () => {"], SKIPPED),
    (JS, [], ["  t.skip('later');"], SKIPPED),
    ("test/calc.js", [], ["    this.skip();"], SKIPPED),
    (JS, [], ["it.only('adds', () => {"], ONLY),
    ("calc.spec.ts", [], ["describe.only('calc', () => {"], ONLY),
    (JS, [], ["fit('adds', () => {"], ONLY),
    (JS, [], ["test('adds', { only: true }, () => {"], ONLY),
    (JS, [], ["  expect(true).toBe(true);"], CONSTANT),
    (JS, [], ["  expect(1).toEqual(1);"], CONSTANT),
    (JS, [], ["  expect(true).toBeTruthy();"], CONSTANT),
    (JS, [], ["  assert.ok(true);"], CONSTANT),
    (JS, [], ["  assert(true, 'works');"], CONSTANT),
    (JS, [], ["  assert.strictEqual(3, 3);"], CONSTANT),
    (JS, [], ["process.exit(0);"], EXITED),
    (JS, [], ["process.exitCode = 0;"], EXITED),
    (JS, ["  assert.strictEqual(add(1, 2), 3);"], [], REMOVED),
    (JS, ["  expect(add(1, 2)).toBe(3);"], ["  // expect(add(1, 2)).toBe(3);"], REMOVED),
    (JS, [], ["  try { expect(add(1, 2)).toBe(3); } catch (e) {}"], SWALLOWED_JS),
    (JS, [], ["  try {", "    assert.equal(add(1, 2), 3);", "  } catch {", "  }"], SWALLOWED_JS),
]


@pytest.mark.parametrize(("path", "removed", "added", "construct"), WEAKENING)
def test_weakened_tests_are_architecture_naming_file_line_and_what_was_done(
    path: str, removed: list[str], added: list[str], construct: str
) -> None:
    hits = [h for h in weakened(path, removed, added, at=10) if h.construct == construct]
    assert hits, (path, removed, added)
    assert all(h.category == "architecture" for h in hits)
    assert re.match(rf"{re.escape(path)}:1\d \((added|removed) line\) tests weakened: ", hits[0].describe())


def test_every_construct_has_a_weakening_case() -> None:
    found = {h.construct for path, old, new, _ in WEAKENING for h in weakened(path, old, new)}
    wanted = {rule.construct for eco in (PYTHON_TESTS, JAVASCRIPT_TESTS) for rule in eco.rules}
    assert wanted | {REMOVED, SWALLOWED, SWALLOWED_JS} <= found


NEW_TEST_FILE = """\
import pytest

import app


def test_total():
    assert app.total([1, 2]) == 3


def test_empty_total_is_rejected():
    with pytest.raises(ValueError):
        app.total([])
"""

# (file, removed lines, added lines): honest test work
HONEST: list[tuple[str, list[str], list[str]]] = [
    (PY, [], NEW_TEST_FILE.splitlines()),
    (PY, [], ["def test_more():", "    assert app.total([4]) == 4"]),
    (PY, ["def test_old_name():"], ["def test_new_name():"]),
    (PY, ["    assert total(2) == 4"], ["    assert total(2) == 4", "    assert total(3) == 6"]),
    (PY, ["    assert total(2) == 4"], ["    assert total(2) == 4, 'the sum of two'"]),
    (PY, ["        self.assertTrue(result)"], ["        self.assertEqual(result, Expected(1))"]),
    (PY, ["@pytest.mark.skip(reason='not yet')", "@pytest.mark.xfail"], []),
    (
        PY,
        ["def test_gone():", "    assert total(2) == 4", ""],
        [],
    ),  # a test deleted whole: not a line's to say
    (PY, ["class TestOld:", "    def test_a(self):", "        self.assertTrue(x)"], []),
    (PY, [], ["    try:", "        assert x == 1", "    except AssertionError:", "        raise"]),
    (
        PY,
        [],
        ["    try:", "        assert x == 1", "    except Exception as e:", "        pytest.fail(str(e))"],
    ),
    (PY, [], ["    try:", "        cleanup()", "    except Exception:", "        pass"]),
    (PY, [], ["    assert result is True", "    assert count == 1", "    assert True is not None or x"]),
    (PY, [], ["    assert value == True"]),
    (PY, [], ["with suppress(FileNotFoundError):", "def fit(model):", "    model.fit(data)"]),
    ("app/tests.txt", [], ["@pytest.mark.skip"]),
    ("app/skipping.py", [], ["@pytest.mark.skip", "it.only('x')", "assert True"]),  # not a test file
    ("tests/fixtures/proj/test_x.py", [], ["@pytest.mark.skip"]),  # a fixture project's test
    (JS, [], ["it('adds', () => {", "  expect(add(1, 2)).toBe(3);", "});"]),
    (JS, ["it.skip('adds', () => {"], ["it('adds', () => {"]),
    (JS, ["test('adds', async () => {"], ["test('adds two numbers', async () => {"]),
    (JS, ["  expect(add(1, 2)).toBe(3);"], ["  expect(add(1, 2)).toStrictEqual(3);"]),
    (JS, [], ["  try {", "    fs.rmSync(dir, { recursive: true });", "  } catch {}"]),
    (JS, [], ["  await p.catch(() => {});", "  expect(value).toBe(true);", "  const skip = { skip: true };"]),
    (JS, [], ["const fit = require('./fit');", "fit(data);", "  assert.equal(total, 3);"]),
]


@pytest.mark.parametrize(("path", "removed", "added"), HONEST)
def test_honest_test_work_weakens_nothing(path: str, removed: list[str], added: list[str]) -> None:
    assert weakened(path, removed, added) == []


def test_a_removed_assertion_in_another_hunk_than_the_added_one_is_still_removed() -> None:
    # The cheat moves the count around: one assertion out of the failing test, one new trivial test far
    # below. Each hunk is judged on its own.
    lines = file_lines(
        PY,
        added=["def test_trivial():", "    assert app.version()"],
        added_numbers=[40, 41],
        removed=["    assert app.total([1, 2]) == 3"],
        removed_numbers=[8],
    )
    hits = [h for h in scan_files([lines], content.DEFAULT) if h.construct == REMOVED]
    assert [(h.line, h.side) for h in hits] == [(8, "removed")]


def test_an_assertion_moved_within_its_file_is_not_removed() -> None:
    lines = file_lines(
        PY,
        added=["def test_total_of_one():", "    assert app.total([1]) == 1"],
        added_numbers=[40, 41],
        removed=["    assert app.total([1]) == 1"],
        removed_numbers=[8],
    )
    assert [h for h in scan_files([lines], content.DEFAULT) if h.construct == REMOVED] == []


def test_hunks_pair_removed_and_added_runs_by_where_they_start() -> None:
    # old a b c d e f g -> new a b2 d e x y f g2: `-2,2 +2`, `-5,0 +5,2`, `-7 +8`
    lines = file_lines(
        "f.py",
        added=["b2", "x", "y", "g2"],
        added_numbers=[2, 5, 6, 8],
        removed=["b", "c", "g"],
        removed_numbers=[2, 3, 7],
    )
    shapes = [
        ([ln[1:] for ln in r.lines] if r else None, [ln[1:] for ln in a.lines] if a else None)
        for r, a in hunks(lines)
    ]
    assert shapes == [(["b", "c"], ["b2"]), (None, ["x", "y"]), (["g"], ["g2"])]


def test_every_rule_is_architecture_on_added_lines_and_starts_with_a_literal() -> None:
    for rule in PYTHON_TESTS.rules + JAVASCRIPT_TESTS.rules:
        assert (rule.category, rule.sides) == ("architecture", "added")
        assert not rule.pattern.startswith(("\\b", "[", "(", ".", "\\s", "\\w")), rule.pattern


def test_a_test_file_read_by_a_judge_keeps_its_path_rules() -> None:
    # Only a judge that decides its files' floor (CI workflows) takes them from the path rules.
    files = [
        file_lines(PY, ["assert True"], [1]),
        file_lines(".github/workflows/ci.yml", ["on: push"], [1]),
    ]
    assert content.judged_paths(files, content.DEFAULT) == {".github/workflows/ci.yml"}
