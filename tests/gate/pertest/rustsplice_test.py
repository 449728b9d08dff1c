"""A changed Rust file with its tests as at the base (`tiergate.gate.pertest.rustsplice`): the claim's code,
the base's test items, wherever the claim's literals and comments hold braces or test attributes."""

from __future__ import annotations

import pytest

from tiergate.gate.pertest.rustsplice import holds_tests, with_base_tests

CODE = "pub fn mul(a: i64, b: i64) -> i64 {\n    0\n}\n"
TESTS = """\
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_mul() {
        assert_eq!(mul(2, 3), 6);
    }
}
"""
BASE = f"{CODE}\n{TESTS}"
# Code whose literals and comments would end a test module early, or open one, if read as code.
TRICKY = (
    "pub fn mul(a: i64, b: i64) -> i64 {\n"
    '    let _ = ("}", r#"#[cfg(test)] mod tests { "#, \'}\');\n'
    "    /* } #[test] fn fake() { */\n"
    "    a + b\n"
    "}\n"
)
EDITED = TESTS.replace("mul(2, 3), 6", "mul(2, 3), 5")


def test_an_edited_test_module_is_put_back_as_at_the_base_around_the_claimed_code() -> None:
    assert with_base_tests("src/lib.rs", f"{TRICKY}\n{EDITED}", BASE) == f"{TRICKY}\n{TESTS}"


def test_tests_as_at_the_base_leave_the_file_as_claimed() -> None:
    claim = f"{TRICKY}\n{TESTS}"

    assert with_base_tests("src/lib.rs", claim, BASE) == claim


@pytest.mark.parametrize(
    "claimed_tests",
    [
        "",  # the test module deleted
        TESTS.replace("#[cfg(test)]", "#[cfg(any())]"),  # compiled out: no longer a test item
        TESTS.replace("mod tests", "mod checks"),  # renamed: another item
    ],
    ids=["deleted", "compiled-out", "renamed"],
)
def test_a_test_module_the_claim_took_away_comes_back(claimed_tests: str) -> None:
    spliced = with_base_tests("src/lib.rs", f"{TRICKY}\n{claimed_tests}", BASE)

    assert spliced.startswith(TRICKY) and spliced.rstrip().endswith(TESTS.rstrip())
    assert "#[cfg(test)]\nmod checks" not in spliced


def test_tests_the_claim_added_are_left_out() -> None:
    added = "\n#[cfg(test)]\nmod more {\n    #[test]\n    fn extra() {}\n}\n"
    extra_fn = EDITED.replace("    }\n}\n", "    }\n\n    #[test]\n    fn again() {}\n}\n")

    spliced = with_base_tests("src/lib.rs", f"{TRICKY}\n{extra_fn}{added}", BASE)

    assert "extra" not in spliced and "again" not in spliced
    assert TESTS in spliced and TRICKY in spliced


def test_a_test_of_a_module_goes_back_into_that_module() -> None:
    test = "    #[test]\n    fn squares() { assert_eq!(area(), 4); }\n"
    base = f"mod shapes {{\n    pub fn area() -> i64 {{ 4 }}\n\n{test}}}\n"
    claim = "mod shapes {\n    pub fn area() -> i64 { 5 }\n}\n"

    spliced = with_base_tests("src/lib.rs", claim, base)

    assert spliced.startswith("mod shapes {\n    pub fn area() -> i64 { 5 }\n")
    assert f"{test}}}\n" in spliced


def test_a_new_file_keeps_no_test_and_a_file_of_tests_is_the_bases() -> None:
    assert "mod tests" not in with_base_tests("src/new.rs", f"{CODE}\n{EDITED}", None)
    whole = "#![cfg(test)]\nuse super::*;\n\n#[test]\nfn t() { assert_eq!(mul(2, 3), 6); }\n"
    assert with_base_tests("src/checks.rs", whole.replace("6", "5"), whole) == whole


def test_an_out_of_line_test_modules_tests_are_put_back() -> None:
    # src/tests.rs, declared `#[cfg(test)] mod tests;` in src/lib.rs: its test functions are test items.
    base = "use super::*;\n\n#[test]\nfn test_mul() {\n    assert_eq!(mul(2, 3), 6);\n}\n"

    assert with_base_tests("src/tests.rs", base.replace("6)", "5)"), base) == base


def test_what_holds_tests() -> None:
    assert holds_tests("src/lib.rs", BASE)
    assert not holds_tests("src/lib.rs", TRICKY)
