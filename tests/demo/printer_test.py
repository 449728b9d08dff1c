"""The demo's printing (`tiergate.demo.printer`): lines wrapped for the terminal, paths kept whole."""

from __future__ import annotations

from tiergate.demo.printer import wrap


def test_a_path_longer_than_the_line_is_printed_whole_on_a_line_of_its_own() -> None:
    """A long temporary folder (a parallel test worker's, a user's deep checkout) must not break the page's
    path where a reader copies or clicks it."""
    path = "/tmp/" + "/".join(f"folder-{n:02}" for n in range(15)) + "/report.html"
    lines = wrap(f"The loop as a page: {path} (open it in a browser)", 60)
    assert any(line.strip() == path for line in lines), lines
    assert [line.strip() for line in lines if line.strip() != path] == [
        "The loop as a page:",
        "(open it in a browser)",
    ]
