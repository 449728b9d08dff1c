"""Failing closed, pure: block once when the block can be remembered, else halt; never a PASS."""

from __future__ import annotations

import pytest

from tiergate.loop import failclosed


def test_the_first_stop_blocks_when_its_marker_is_kept() -> None:
    choice = failclosed.choose(blocked_before=False, marker_kept=True)
    assert choice.action == "block" and "next stop halts" in choice.why


def test_the_stop_after_a_block_halts() -> None:
    choice = failclosed.choose(blocked_before=True, marker_kept=False)
    assert choice == failclosed.Choice("halt", "the stop before this one was blocked for it already")


def test_a_block_that_cannot_be_remembered_halts_at_once_so_that_no_one_is_trapped() -> None:
    choice = failclosed.choose(blocked_before=False, marker_kept=False)
    assert choice.action == "halt" and "could not record a block" in choice.why


@pytest.mark.parametrize("problem", ["is gone", "is not trustworthy (bad\nline `x`)"])
def test_the_texts_say_what_is_wrong_and_that_the_claim_is_not_verified(problem: str) -> None:
    reason, message = failclosed.block_reason(problem), failclosed.block_message(problem)
    halt = failclosed.halt_message(problem, "why", "/state/loops/s.json.damaged-1")
    assert "NOT accepted" in reason and "not accepted" in message
    assert "The claim was NOT verified" in halt and "/state/loops/s.json.damaged-1" in halt
    for text in (reason, message, halt):
        assert "\n" not in text  # the problem quoted: it cannot open a line of its own
        assert "PASS stands" not in text and "loop finished" not in text
