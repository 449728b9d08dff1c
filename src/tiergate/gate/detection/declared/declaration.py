"""One test command a project declares (`Declared`), the files that can declare one, and what every
reader of those files shares: a command made from its written line, line numbers, continued lines.
Pure: the files' text is passed in. See docs/judging.md, "Choosing the test command".
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Iterator, Sequence

from tiergate.frozen import frozen

# The files read, in the order their declarations are preferred when everything else is equal.
TOX_FILES = ("tox.ini", "setup.cfg", "pyproject.toml", "tox.toml")
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
JUSTFILES = ("justfile", "Justfile", ".justfile")
WORKFLOWS = ".github/workflows/"
FILES_READ = (*TOX_FILES, "noxfile.py", "hatch.toml", *MAKEFILES, *JUSTFILES, "pytest.ini", ".pytest.ini")


# A `{...}` placeholder (tox's substitutions, hatch's and pdm's `{args}`), not an escaped brace.
BRACED = re.compile(r"(?<!\\)\{([^{}]*)\}")


@frozen
class Declared:
    """One command a project declares for its tests. `command`: as tiergate would run it; `file`,
    `line` (0: not known) and `where` (`[testenv] commands`, `target test`, ...): where it is declared;
    `written`: the line as written, when that differs; `notes`: what was resolved or dropped to read it;
    `problem`: why it cannot be run directly ("" when it can); `ci`: a line of a CI step (there, only
    lines that start a test runner count), not a test environment, target or script; `alone`: the only
    command of its environment, target or script (so the project's test command, whatever it runs)."""

    command: str
    file: str
    where: str
    line: int = 0
    written: str = ""
    notes: tuple[str, ...] = ()
    problem: str = ""
    ci: bool = False
    alone: bool = False

    @property
    def origin(self) -> str:
        """Where it is declared, for a person: `tox.ini line 6 ([testenv] commands)`."""
        line = f" line {self.line}" if self.line else ""
        return f"{self.file}{line} ({self.where})"


def read_ini(text: str) -> configparser.RawConfigParser | None:
    if not text:
        return None
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser


def logical_lines(lines: Sequence[str]) -> Iterator[tuple[int, str]]:
    """The lines joined where one ends with a backslash, each with the number of its first line."""
    joined, start = "", 0
    for number, line in enumerate(lines, 1):
        if not joined:
            start = number
        if line.endswith("\\"):
            joined += line[:-1] + " "
            continue
        yield start, joined + line
        joined = ""
    if joined:
        yield start, joined


def joined(lines: Sequence[str]) -> list[str]:
    """tox's command lines: continued where one ends with a backslash, blank ones and comments left out."""
    commands = [text for _, text in logical_lines([line.strip() for line in lines])]
    return [c.strip() for c in commands if c.strip() and not c.strip().startswith("#")]


def line_of(lines: Sequence[str], written: str, after: str) -> int:
    """The number of the first line holding the start of `written` (after the line `after`); 0 if none."""
    head = " ".join(written.split()[:3])
    begun = not after
    for number, text in enumerate(lines, 1):
        if not begun:
            begun = text.strip() == after
            continue
        if head and head in " ".join(text.split()):
            return number
    return 0


@frozen
class DeclaredAt:
    """Where a command is declared: its `file`, where in it (`[testenv] commands`, `target test`, ...),
    and its `line` (0: not known)."""

    file: str
    where: str
    line: int = 0


def made(
    written: str, command: str, at: DeclaredAt, notes: Sequence[str], problem: str, alone: bool
) -> Declared:
    if not command and not problem:
        problem = "it runs nothing"
    return Declared(
        command,
        at.file,
        at.where,
        at.line,
        written="" if written == command else written,
        notes=tuple(dict.fromkeys(notes)),
        problem=problem,
        alone=alone,
    )
