"""The one home of the text helpers (counts with their noun, cutting a text to a size)."""

from __future__ import annotations

from tiergate.text import cut, one_line, plural


def test_plural_counts_with_the_noun() -> None:
    assert [plural(n, "check") for n in (0, 1, 2)] == ["0 checks", "1 check", "2 checks"]


def test_cut_keeps_a_text_that_fits_and_says_how_much_it_left_out() -> None:
    assert cut("short", 5) == "short"
    text = "word " * 100  # 500 characters
    shown = cut(text, 100)
    assert len(shown) <= 100
    # Cut where the room ends, even mid-word; the trailing space goes, and the count is of what is gone.
    kept = text[:60].rstrip()
    assert shown == f"{kept} [... {500 - len(kept)} more characters]"
    assert cut("abcdefghij" * 10, 50) == "abcdefghij [... 90 more characters]"


def test_one_line_flattens_and_cuts_with_an_ellipsis() -> None:
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("x" * 20, 10) == "x" * 9 + "…"
