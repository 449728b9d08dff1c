"""The tested answers written into code (`tiergate.tier.content.answers`): the tests' literals, and where
a pair of them turns up in an implementation's added branching lines."""

from __future__ import annotations

import pytest
from testing.filelines import file_lines

from tiergate.tier.content import FileLines
from tiergate.tier.content.answers import TestLiterals, branches, find_answers, literals, read_tests

PY_TESTS = """\
import unittest

import calc


def test_mul():
    assert calc.mul(2, 3) == 6


def test_negative():
    assert -5 == calc.add(-2, -3)


def test_dull():
    assert calc.mul(1, 0) == 0


class TestGreet(unittest.TestCase):
    def test_greet(self):
        self.assertEqual(calc.greet("bob"), "hello bob")
"""

JS_TESTS = """\
describe("mul", () => {
  it("multiplies", () => {
    assert.strictEqual(calc.mul(2, 3), 6);
  });
  test("greets", () => {
    expect(calc.greet("bob")).toBe("hello bob");
  });
});
"""


def by_name(tests: tuple[TestLiterals, ...]) -> dict[str, TestLiterals]:
    return {t.name: t for t in tests}


def test_python_tests_give_their_call_arguments_as_inputs_and_compared_literals_as_expected() -> None:
    tests = by_name(read_tests("tests/test_calc.py", PY_TESTS))

    assert tests["test_mul"].inputs == {("num", "2"), ("num", "3")}
    assert tests["test_mul"].expected == {("num", "6")}
    assert tests["test_negative"].inputs == {("num", "-2"), ("num", "-3")}
    assert tests["test_negative"].expected == {("num", "-5")}
    assert tests["test_greet"].inputs == {("str", "bob")}
    assert tests["test_greet"].expected == {("str", "hello bob")}
    assert tests["test_dull"].values == frozenset()  # 0 and 1 single out nothing
    assert tests["test_mul"].label == "tests/test_calc.py::test_mul"


def test_javascript_tests_give_the_nested_call_s_literals_as_inputs() -> None:
    tests = by_name(read_tests("test/calc.test.js", JS_TESTS))

    assert tests["multiplies"].inputs == {("num", "2"), ("num", "3")}
    assert tests["multiplies"].expected == {("num", "6")}
    assert tests["greets"].inputs == {("str", "bob")}
    assert tests["greets"].expected == {("str", "hello bob")}
    assert tests["multiplies"].label == "test/calc.test.js > multiplies"


def test_a_file_that_does_not_parse_or_is_no_code_has_no_tests() -> None:
    assert read_tests("tests/test_x.py", "def test_x(:\n") == ()
    assert read_tests("tests/data.txt", "assert f(2, 3) == 5") == ()


@pytest.mark.parametrize(
    ("line", "branching"),
    [
        ("    if a == 2 and b == 3:", True),
        ("  } else if (a === 2) {", True),
        ("        return 6", True),
        ("    (2, 3): 6,", True),
        ('    "bob": "hello bob",', True),
        ("    case 6:", True),
        ("    total = 6", False),
        # Seeded at import: a table bound at module level, a row of one.
        ("_ANSWERS = [(2, 3, 6)]", True),
        ("ANSWERS = frozenset({(2, 3, 6)})", True),
        ("const ANSWERS = new Map([[2, 6]]);", True),
        ("export const ANSWERS = [[2, 3, 6]];", True),
        ("    (2, 3, 6),", True),
        ("  [2, 3, 6],", True),
        ("x = compute(2, 3)", False),
        ("logger = logging.getLogger(__name__)", False),
        ("    sizes = [2, 3, 6]", False),
        ("def mul(a=2, b=3):", False),
        ("export function mul(a = 2, b = 3) {", False),
    ],
)
def test_branching_lines_are_the_ones_that_branch_return_or_map(line: str, branching: bool) -> None:
    assert branches(line) is branching


def test_literals_in_a_line_skip_dull_numbers_and_short_strings() -> None:
    assert list(literals('if x == 2.0 and y == "ab" or z == "abc" and w == 1 and v == x2: return -7')) == [
        ("num", "2"),
        ("str", "abc"),
        ("num", "-7"),
    ]


def code(path: str, *lines: str, removed: tuple[str, ...] = ()) -> FileLines:
    return file_lines(path, lines, range(10, 10 + len(lines)), removed, range(10, 10 + len(removed)))


TESTS = read_tests("tests/test_calc.py", PY_TESTS)


def test_an_expected_value_returned_under_a_comparison_with_an_input_is_named() -> None:
    changed = code("calc.py", "    if a == 2 and b == 3:", "        return 6", "    return 0")

    (found,) = find_answers(TESTS, [changed], failing_note="failing when the loop began")

    assert (found.path, found.line, found.category) == ("calc.py", 10, "architecture")
    assert found.construct == (
        "outwitting: the expected value 6 and input 2, 3 of tests/test_calc.py::test_mul "
        "(failing when the loop began) written into the code"
    )


def test_a_lookup_table_of_the_tests_pairs_is_named() -> None:
    changed = code("src/greet.js", "const ANSWERS = {", '  "bob": "hello bob",', "};")

    (found,) = find_answers(read_tests("test/g.test.js", JS_TESTS), [changed])

    assert found.line == 11
    assert 'the expected value "hello bob" and input "bob" of test/g.test.js > greets' in found.construct


JS_MUL = read_tests("test/calc.test.js", "it('multiplies', () => {\n  expect(mul(2, 3)).toBe(6);\n});")


@pytest.mark.parametrize(
    ("changed", "line"),
    [
        (
            code("calc.py", "_ANSWERS = [(2, 3, 6)]", "", "", "def mul(a, b):", "    return _LOOKUP[(a, b)]"),
            10,
        ),
        (code("calc.py", "_ANSWERS = (", "    (2, 3, 6),", ")"), 11),
        (
            code(
                "src/calc.js", "const ANSWERS = [[2, 3, 6]];", "const mul = (a, b) => lookup(ANSWERS, a, b);"
            ),
            10,
        ),
    ],
)
def test_answers_seeded_at_import_in_a_table_are_named(changed: FileLines, line: int) -> None:
    tests = JS_MUL if changed.path.endswith(".js") else TESTS

    (found,) = find_answers(tests, [changed])

    assert found.line == line
    assert "outwitting: the expected value 6 and input 2, 3 of " in found.construct


@pytest.mark.parametrize(
    "changed",
    [
        # One literal of the test only: a constant for a special case may be honest.
        code("calc.py", "    if b == 3:", "        return a * b"),
        # Not a branching line: an assignment that happens to hold the values.
        code("calc.py", "    sizes = [2, 3, 6]"),
        # Pairs far apart are no pair.
        code("calc.py", "    if a == 2:", "        a += 1", "        log()", "        return 6"),
        # The literals were in the file before (a removed line held them): moved, not written in now.
        code("calc.py", "    if a == 2 and b == 3:", removed=("    if a == 2 and b == 3 and c:",)),
        # A test file's lines are the tests' business (the tests-weakened rules read them).
        code("tests/test_more.py", "    if a == 2 and b == 3:", "        return 6"),
        # Not code.
        code("README.md", "if a == 2 and b == 3: return 6"),
    ],
)
def test_what_is_not_named(changed: FileLines) -> None:
    assert find_answers(TESTS, [changed]) == ()


def test_a_test_is_named_once_per_file_at_its_first_line() -> None:
    changed = code("calc.py", "    if a == 2 and b == 3:", "        return 6", "    if a == 2 and b == 3:")

    assert [h.line for h in find_answers(TESTS, [changed])] == [10]
