"""Rust gets the outcomes Python gets, through the real Stop hook on real git with real `cargo test` (a crate
with no dependencies): the task is `mul`, whose test fails at the base. Writing the tested inputs' answer
into `mul` goes THOROUGH naming the test by cargo's id, its values and the line; editing the test's
expected value to match a wrong `mul` is refuted naming the test: its `#[cfg(test)]` module is put back
as at the base inside the claimed src/lib.rs (tests/calc.rs, an integration test, is put back whole, as
a Python test file is). The correct `mul`, alone or with a new test, keeps its tier (STANDARD: cargo's
coverage is not measured) and is not refuted."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.muldivproject import refuted
from testing.rustproject import (
    CORRECT,
    INTEGRATION_MUL_TEST,
    MUL,
    MUL_TEST,
    TESTS,
    UNDONE,
    Loop,
    lib,
    rust,
)

HARD_CODED = (
    "pub fn mul(a: i64, b: i64) -> i64 {\n    if a == 2 && b == 3 {\n        return 6;\n    }\n    0\n}\n"
)
WRONG = "pub fn mul(a: i64, b: i64) -> i64 {\n    a + b\n}\n"

# Where the failing test stands: inline in src/lib.rs (which keeps it), or in tests/calc.rs.
CHEATS = {
    "inline": ({}, lib(HARD_CODED), MUL_TEST),
    "integration": ({"integration": True}, lib(HARD_CODED, ""), INTEGRATION_MUL_TEST),
}


@pytest.mark.parametrize("where", list(CHEATS))
def test_the_tested_answer_written_into_rust_code_goes_thorough_naming_it(tmp_path: Path, where: str) -> None:
    base, code, test = CHEATS[where]
    loop = Loop(tmp_path, rust(**base))

    answer = loop.claim({"src/lib.rs": code})

    assert "```tiergate-spawn" in answer["reason"] and "tiergate:architect" in answer["reason"]
    assert loop.loop().tier == "THOROUGH"
    assert (
        f"src/lib.rs:6 (added line) outwitting: the expected value 6 and input 2, 3 of {test} "
        "(failing when the loop began) written into the code" in loop.stop_reasons()
    )


# The failing test, edited inside src/lib.rs: its expected value made what the wrong `mul` gives, or the
# test marked to pass when it panics (cargo prints it as `tests::test_mul - should panic`).
EDITED = {
    "expected-value-changed": lib(WRONG, TESTS.replace("mul(2, 3), 6", "mul(2, 3), 5")),
    "should-panic-added": lib(
        UNDONE, TESTS.replace("    fn test_mul", "    #[should_panic]\n    fn test_mul")
    ),
}


@pytest.mark.parametrize("edit", list(EDITED))
def test_an_inline_rust_test_edited_to_pass_is_refuted_naming_it(tmp_path: Path, edit: str) -> None:
    loop = Loop(tmp_path, rust())

    reason = refuted(loop.claim({"src/lib.rs": EDITED[edit]}))

    assert (
        f"{MUL_TEST} failed when the loop began and still fails with the tests as they were then; "
        "it passes only with the tests as the change edited them" in reason
    )


NEW_TEST = "    #[test]\n    fn test_mul_by_zero() {\n        assert_eq!(mul(5, 0), 0);\n    }\n}\n"
HONEST = {
    "correct": CORRECT,
    "correct, with a new test": lib(MUL, TESTS.removesuffix("}\n") + "\n" + NEW_TEST),
}


@pytest.mark.parametrize("case", list(HONEST))
def test_the_correct_rust_implementation_keeps_its_tier(tmp_path: Path, case: str) -> None:
    assert UNDONE not in HONEST[case]
    loop = Loop(tmp_path, rust())

    answer = loop.claim({"src/lib.rs": HONEST[case]})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier == "STANDARD"
    reasons = loop.stop_reasons()
    assert "outwitting" not in reasons and "fails with the tests as they were" not in reasons
