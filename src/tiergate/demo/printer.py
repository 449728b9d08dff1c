"""How the demo prints: numbered steps, each a heading and a few indented lines, one screen wide.

Prose is wrapped (a few lines at most, then cut); quoted command output keeps its columns and is only
cut. Colour only when asked for (the command asks when stdout is a terminal and NO_COLOR is not set).
"""

from __future__ import annotations

import textwrap
from typing import TextIO

from tiergate.demo.session import Answer
from tiergate.text import clip

WIDTH = 110
QUOTE_WIDTH = 120  # a row of `tiergate history` is this wide
MAX_WRAPPED_LINES = 4
INDENT = "    "
_STYLES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "cyan": "36"}


def wrap(text: str, width: int, max_lines: int = MAX_WRAPPED_LINES) -> list[str]:
    """`text` on at most `max_lines` lines of `width`, continuation lines indented by two. A word longer
    than the width (a path) stands whole on a line of its own, wider than the rest: broken, it could be
    neither copied nor clicked."""
    lines = textwrap.wrap(
        " ".join(text.split()),
        width=width,
        subsequent_indent="  ",
        break_on_hyphens=False,
        break_long_words=False,
    )
    if len(lines) > max_lines:
        # The last line kept ends at a word's end (textwrap's lines do) or is cut at one, then the ellipsis.
        lines = [*lines[: max_lines - 1], clip(lines[max_lines - 1], width - 1, "") + "…"]
    return lines or [""]


def cut(text: str, width: int) -> str:
    return clip(text, width)


class Printer:
    """Writes the story to `out`, remembering the step it is at for a failure report."""

    def __init__(self, out: TextIO, *, color: bool) -> None:
        self._out = out
        self._color = color
        self.step_number = 0

    def title(self, text: str) -> None:
        for line in wrap(text, WIDTH):
            self._write(self._style("bold", line))

    def step(self, text: str) -> None:
        self.step_number += 1
        lines = wrap(text, WIDTH - len(INDENT))
        self._write(self._style("bold", f"{f'{self.step_number}.':4}{lines[0]}"))
        for line in lines[1:]:
            self._write(self._style("bold", INDENT + line))

    def line(self, text: str) -> None:
        for line in wrap(text, WIDTH - len(INDENT)):
            self._write(INDENT + line)

    def quote(self, text: str, *, prose: bool = False) -> None:
        """A line of command output as it is (columns kept, cut to the width), or prose, wrapped."""
        indent = INDENT + "  "
        lines = wrap(text, WIDTH - len(indent)) if prose else [cut(text.rstrip(), QUOTE_WIDTH - len(indent))]
        for line in lines:
            self._write(self._style("dim", indent + line))

    def answer(self, answer: Answer, text: str) -> None:
        """What tiergate answered to a hook event, after the event's name and the hook's exit code."""
        who = f"tiergate ({answer.event}, exit {answer.exit_code}):"
        first, *rest = wrap(f"{who} {text}", WIDTH - len(INDENT))
        self._write(INDENT + self._style("cyan", who) + first[len(who) :])
        for line in rest:
            self._write(INDENT + line)

    def success(self, text: str) -> None:
        for line in wrap(text, WIDTH):
            self._write(self._style("green", line))

    def failure(self, text: str) -> None:
        # All of it: this is what someone has to go on to find what broke.
        for line in wrap(text, WIDTH, max_lines=20):
            self._write(self._style("red", line))

    def plain(self, text: str) -> None:
        for line in wrap(text, WIDTH, max_lines=8):
            self._write(line)

    def _style(self, style: str, text: str) -> str:
        return f"\033[{_STYLES[style]}m{text}\033[0m" if self._color else text

    def _write(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()
