"""Where a Rust file's tests stand (`tiergate.tier.content.rustsource`): comments and literals read as such,
so that a brace or a `#[test]` in a string, a raw string or a comment is never code; test items found by
their attributes and matching braces."""

from __future__ import annotations

import pytest

# The module, not its functions: pytest would collect `test_items` as a test.
from tiergate.tier.content import rustsource
from tiergate.tier.content.rustsource import all_tests, masked

SOURCE = """\
//! A crate whose text holds #[cfg(test)] and { in its doc.
pub fn mul(a: i64, b: i64) -> i64 {
    let text = "}{ #[cfg(test)] mod tests {";
    let raw = r#"a raw " } string"#;
    let brace = '}';
    let quote = '\\'';
    fn first<'a>(x: &'a str) -> &'a str { x }
    /* a block /* nested } */ comment { */
    a * b
}

#[allow(unused)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic]
    fn test_mul() {
        assert_eq!(mul(2, 3), 6);
    }

    mod inner {
        #[tokio::test(flavor = "current_thread")]
        async fn deep() {}
    }
}

#[cfg(not(test))]
fn only_outside_tests() {}

mod shapes {
    pub fn area() -> i64 { 4 }

    #[test]
    fn squares() {}

    #[cfg(all(test, feature = "slow"))]
    const SIDES: [i64; 2] = [1, 2];
}
"""


def test_comments_and_literals_are_blanked_at_the_same_offsets() -> None:
    code = masked(SOURCE)

    assert len(code) == len(SOURCE) and code.count("\n") == SOURCE.count("\n")
    body = code[: code.index("#[allow")]
    assert body.count("{") == body.count("}") == 2  # mul's and `first`'s, no literal's or comment's
    assert "cfg(test)" not in body and "'a str" in body  # a lifetime is code


def test_the_outermost_test_items_with_the_modules_they_stand_in() -> None:
    items = rustsource.test_items(masked(SOURCE))

    assert [(i.key, i.modules, i.test) for i in items] == [
        ("mod tests", (), ""),
        ("fn squares()", ("shapes",), "squares"),
        ("const SIDES: [i64; 2] = [1, 2]", ("shapes",), ""),
    ]
    first = items[0]
    assert SOURCE[first.start :].startswith("#[allow(unused)]\n#[cfg(test)]\nmod tests {")
    assert SOURCE[: first.end].endswith("async fn deep() {}\n    }\n}")


def test_every_test_function_wherever_it_stands() -> None:
    found = [(item.modules, item.test) for item, _, _ in rustsource.test_functions(masked(SOURCE))]

    assert found == [(("tests",), "test_mul"), (("tests", "inner"), "deep"), (("shapes",), "squares")]


def test_the_lines_of_test_code() -> None:
    lines = rustsource.test_lines("src/lib.rs", SOURCE)
    numbered = dict(enumerate(SOURCE.splitlines(), start=1))

    assert {numbered[n] for n in lines} >= {
        "mod tests {",
        "        assert_eq!(mul(2, 3), 6);",
        "    fn squares() {}",
    }
    code = {numbered[n] for n in set(numbered) - lines}
    assert {"    a * b", "fn only_outside_tests() {}", "    pub fn area() -> i64 { 4 }"} <= code


@pytest.mark.parametrize(
    ("path", "source", "tests"),
    [
        ("tests/calc.rs", "fn helper() {}\n", True),  # an integration test crate
        ("crates/calc/tests/common/mod.rs", "pub fn helper() {}\n", True),
        ("src/tests/helpers.rs", "pub fn helper() {}\n", False),  # a module named tests, in src
        ("src/checks.rs", "// tests only\n#![cfg(test)]\nuse super::*;\n", True),
        ("src/calc.rs", "#![cfg(not(test))]\npub fn f() {}\n", False),
    ],
)
def test_a_file_that_is_all_tests(path: str, source: str, tests: bool) -> None:
    assert all_tests(path, masked(source)) is tests
