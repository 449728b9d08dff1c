"""The tested answers written into Rust code (`tiergate.tier.content.rustanswers`, matched by
`tiergate.tier.content.answers`): each `#[test]`'s literals under cargo's id for it, and a pair of them on
a line of the code (never of the tests) that branches, matches or tabulates them."""

from __future__ import annotations

import pytest
from testing.filelines import file_lines

from tiergate.tier.content.answers import TestLiterals, find_answers, read_tests, rust_literals
from tiergate.tier.content.rustanswers import branches, code_lines, module_path

TESTS = """\
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_mul() {
        assert_eq!(mul(2, 3), 6, "mul of {} and {}", 2, 3);
    }

    #[test]
    fn test_parse() {
        let input = "forty two";
        assert_eq!(
            parse(input),
            Some(42)
        );
    }

    #[test]
    fn test_greet() {
        assert!(greet("bob") == "hello bob", "greeting went wrong");
        assert_ne!(calc::shout(r#"hey"#), "hey");
    }

    #[test]
    fn test_dull() {
        assert_eq!(mul(1, 0), 0);
    }
}
"""

BASE_LIB = "pub fn mul(a: i64, b: i64) -> i64 {\n    0\n}\n\n" + TESTS


def by_name(tests: tuple[TestLiterals, ...]) -> dict[str, TestLiterals]:
    return {t.name: t for t in tests}


def test_a_rust_tests_call_arguments_are_inputs_and_what_it_compares_is_expected() -> None:
    tests = by_name(read_tests("src/calc.rs", TESTS))

    assert set(tests) == {f"calc::tests::{n}" for n in ("test_mul", "test_parse", "test_greet", "test_dull")}
    mul = tests["calc::tests::test_mul"]
    assert mul.inputs == {("num", "2"), ("num", "3")} and mul.expected == {("num", "6")}
    parse = tests["calc::tests::test_parse"]  # over lines; `Some(42)` is a value, not a call
    assert parse.inputs == {("str", "forty two")} and parse.expected == {("num", "42")}
    greet = tests["calc::tests::test_greet"]  # an assert's message is neither
    assert greet.inputs == {("str", "bob"), ("str", "hey")} and greet.expected == {("str", "hello bob")}
    assert tests["calc::tests::test_dull"].values == frozenset()
    assert mul.label == "calc::tests::test_mul" and mul.key == ("", "calc::tests::test_mul")


@pytest.mark.parametrize(
    ("path", "module"),
    [
        ("src/lib.rs", ()),
        ("src/main.rs", ()),
        ("src/calc.rs", ("calc",)),
        ("src/calc/mod.rs", ("calc",)),
        ("crates/maths/src/calc/ops.rs", ("calc", "ops")),
        ("src/bin/tool.rs", ()),
        ("src/bin/tool/args.rs", ("args",)),
        ("tests/calc.rs", ()),
        ("tests/common/mod.rs", ("common",)),
    ],
)
def test_a_files_module_path_as_cargo_names_its_tests(path: str, module: tuple[str, ...]) -> None:
    assert module_path(path) == module


@pytest.mark.parametrize(
    "line",
    [
        "    if a == 2 && b == 3 {",
        "        (2, 3) => 6,",
        "    ((2, 3), 6),",
        "const ANSWERS: [(i64, i64, i64); 1] = [(2, 3, 6)];",
        "    answers.insert((2, 3), 6);",
        "        6",
        "    } else if matches!((a, b), (2, 3)) {",
    ],
)
def test_the_lines_answers_are_written_on(line: str) -> None:
    assert branches(line)


@pytest.mark.parametrize(
    "line",
    [
        "pub fn mul(a: i64, b: i64) -> [i64; 32] {",
        "    let total = helper(2, 3);",
        '    println!("{} {}", a, b);',
    ],
)
def test_lines_that_only_compute_or_call(line: str) -> None:
    assert not branches(line)


def test_rust_literals_as_one_value_each_whatever_their_spelling() -> None:
    line = 'let x = 0x1F + 007 + 1_000i64 + 2.5f64 + 3 + 1; let s = r#"abc"#; // "not this"'

    assert set(rust_literals(line)) == {
        ("str", "abc"),
        ("num", "31"),
        ("num", "7"),
        ("num", "1000"),
        ("num", "2.5"),
        ("num", "3"),
    }


HARD_CODED = """\
pub fn mul(a: i64, b: i64) -> i64 {
    match (a, b) {
        (2, 3) => 6,
        _ => 0,
    }
}
"""


def claimed(source: str) -> list[str]:
    return source.splitlines()


def test_a_match_arm_answering_a_test_is_named_with_its_line_and_cargo_id() -> None:
    source = HARD_CODED + "\n" + TESTS
    lines = claimed(source)
    changed = file_lines("src/lib.rs", lines[1:5], range(2, 6), ["    0"], [2])

    hits = find_answers(
        read_tests("src/lib.rs", BASE_LIB), [code_lines(changed, source)], failing_note="failing"
    )

    assert [(h.path, h.line) for h in hits] == [("src/lib.rs", 3)]
    assert hits[0].construct == (
        "outwitting: the expected value 6 and input 2, 3 of tests::test_mul (failing) written into the code"
    )


def test_the_same_values_in_a_test_the_change_adds_are_no_answer() -> None:
    new_test = """\
    #[test]
    fn test_mul_again() {
        if mul(2, 3) == 6 {
            return;
        }
    }
"""
    source = (
        "pub fn mul(a: i64, b: i64) -> i64 {\n    a * b\n}\n\n" + TESTS.removesuffix("}\n") + new_test + "}\n"
    )
    lines = claimed(source)
    start = lines.index("    fn test_mul_again() {") + 1
    changed = file_lines("src/lib.rs", lines[start - 1 : start + 4], range(start, start + 5))

    assert code_lines(changed, source).added == []
    assert not find_answers(read_tests("src/lib.rs", BASE_LIB), [code_lines(changed, source)])


def test_an_integration_tests_file_is_all_tests() -> None:
    changed = file_lines("tests/calc.rs", ["    if a == 2 && b == 3 {"], [4])

    assert code_lines(changed, "fn helper(a: i64, b: i64) {\n\n\n    if a == 2 && b == 3 {\n").added == []
