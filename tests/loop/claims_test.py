"""Completion claims: the promise at the very end of the final message, never a quote of it."""

from __future__ import annotations

import pytest

from tiergate.loop.claims import ClaimType, check_claim, claim_evidence, claim_types, promise_tag


@pytest.mark.parametrize(
    "message",
    [
        "<promise>DONE</promise>",
        "All tests pass.\n\n<promise>DONE</promise>",
        "All tests pass. <promise>DONE</promise>",
        "Done.\n<promise> DONE </promise>\n\n  ",
        "```python\nprint('x')\n```\nVerified.\n<promise>DONE</promise>",
    ],
)
def test_the_promise_at_the_end_is_a_claim(message: str) -> None:
    assert check_claim(message).claimed


@pytest.mark.parametrize(
    ("message", "why"),
    [
        ("<promise>DONE</promise> is what I will say when done.", "not at the very end"),
        ("I will end with `<promise>DONE</promise>`", "not at the very end"),
        ("Say `x <promise>DONE</promise>", "inside inline code"),
        ("```\n<promise>DONE</promise>", "inside an unclosed code block"),
        ("The user wrote:\n> <promise>DONE</promise>", "on a quoted line"),
        ('He said "<promise>DONE</promise>', "inside quotation marks"),
        ("Nearly there.\n\u201c<promise>DONE</promise>", "inside quotation marks"),
    ],
)
def test_a_quote_or_mention_is_no_claim_and_says_why(message: str, why: str) -> None:
    check = check_claim(message)
    assert not check.claimed
    assert any(why in note for note in check.notes), check.notes


def test_no_message_or_another_promise_is_no_claim() -> None:
    assert not check_claim(None).claimed
    assert not check_claim("").claimed
    assert not check_claim("<promise>DONE</promise>", "SHIPPED").claimed
    assert check_claim("ok\n<promise>SHIPPED</promise>", "SHIPPED").claimed
    assert promise_tag("SHIPPED") == "<promise>SHIPPED</promise>"


def test_a_promise_with_regex_characters_is_taken_literally() -> None:
    assert check_claim("<promise>ALL.DONE+</promise>", "ALL.DONE+").claimed
    assert not check_claim("<promise>ALLxDONE</promise>", "ALL.DONE+").claimed


def test_a_verdict_block_in_the_main_agents_message_is_flagged() -> None:
    message = '```tiergate-verdict\n{"verdict": "PASS"}\n```\n<promise>DONE</promise>'
    check = check_claim(message)
    assert check.claimed and check.wrote_verdict
    assert any("ignored" in note for note in check.notes)


@pytest.mark.parametrize(
    ("task", "kinds"),
    [
        ("Fix the parser bug", (ClaimType.FIXED,)),
        ("The login page is broken", (ClaimType.FIXED,)),
        ("Implement CSV export", (ClaimType.IMPLEMENTED,)),
        ("Refactor the lexer into modules", (ClaimType.REFACTORED,)),
        ("Investigate why the build is slow", (ClaimType.DEBUGGED,)),
        ("Fix the crash and clean up the lexer", (ClaimType.FIXED, ClaimType.REFACTORED)),
        ("Make the README nicer", (ClaimType.IMPLEMENTED,)),
        ("Prefix the table names", (ClaimType.IMPLEMENTED,)),  # "prefix" is not "fix"
        ("Address the reviewer's notes", (ClaimType.IMPLEMENTED,)),  # "address" is not "add"
    ],
)
def test_the_task_names_the_kinds_of_claim(task: str, kinds: tuple[ClaimType, ...]) -> None:
    assert claim_types(task) == kinds


def test_a_declaration_adds_a_kind_and_cannot_remove_one() -> None:
    assert claim_types("Fix the bug", "Found it.\nClaim: Debugged\n<promise>DONE</promise>") == (
        ClaimType.FIXED,
        ClaimType.DEBUGGED,
    )
    assert claim_types("Fix the bug", "**Claim type:** refactored") == (ClaimType.FIXED, ClaimType.REFACTORED)
    assert claim_types("Fix the bug", "I did not claim: anything") == (ClaimType.FIXED,)


def test_each_kind_asks_for_the_seeds_evidence() -> None:
    labels = dict(claim_evidence((ClaimType.FIXED, ClaimType.DEBUGGED)))
    assert labels == {
        "test showing the fix passes now": ClaimType.FIXED,
        "root cause identified at file:line": ClaimType.DEBUGGED,
    }
    assert [label for label, _ in claim_evidence((ClaimType.IMPLEMENTED,))] == [
        "lsp_diagnostics clean",
        "build pass",
    ]
    assert [label for label, _ in claim_evidence((ClaimType.REFACTORED,))] == ["all tests still pass"]
