"""The content rules' data: a rule, an ecosystem (which files, which rules), a hit.

Pure. A rule is a regular expression searched in the text of one changed line (added or removed); an
ecosystem says which files its rules read. The rules themselves are data, one module per ecosystem
(`python`, `javascript`, `go`, `rust`, and `common` for every text file).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

from tiergate.text import quote_inline, quote_path

Category = Literal["security", "architecture"]
Side = Literal["added", "removed"]
Sides = Literal["added", "removed", "both"]
CATEGORIES: tuple[Category, ...] = ("security", "architecture")
SIDES: tuple[Sides, ...] = ("added", "removed", "both")


@dataclass(frozen=True, slots=True)
class ContentRule:
    """One risky construct: `pattern` is searched (`re.search`, case-sensitive unless the pattern says
    `(?i:...)`) in the text of one changed line, without its leading '+' or '-'.

    `construct` names the construct in a reason ("TLS verification switched off"). `sides` says which
    changed lines count: a removed `verify=True` is as risky as an added `verify=False`, a removed
    `eval(` is not. Patterns match identifiers and calls with word boundaries, never substrings.
    """

    construct: str
    pattern: str
    category: Category = "security"
    sides: Sides = "both"
    # A second pattern the same line must hold too, anywhere (`random.choice` only beside `token`): searched
    # only in the lines `pattern` matched, so it may be as slow as it likes.
    near: str = ""

    def reads(self, side: Side) -> bool:
        return self.sides in ("both", side)


@dataclass(frozen=True, slots=True)
class Ecosystem:
    """The files a family of rules reads: by suffix (lower-cased, with the dot: `.py`) or by a glob on
    the file's name (`Dockerfile`, `*.env`, `*` for every file), and those rules."""

    name: str
    rules: tuple[ContentRule, ...]
    suffixes: tuple[str, ...] = ()
    names: tuple[str, ...] = ()

    def holds(self, path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        dot = name.rfind(".")
        if dot > 0 and name[dot:].lower() in self.suffixes:
            return True
        return any(fnmatchcase(name, glob) for glob in self.names)


@dataclass(frozen=True, slots=True)
class ContentHit:
    """A changed line that matched a rule: where (`path`, `line` on its side's numbering: the new file's
    for an added line, the old file's for a removed one), which construct, and the line's text around the
    match (`excerpt`, clipped at word boundaries; the agent wrote it, so it is untrusted text)."""

    path: str
    line: int
    side: Side
    construct: str
    category: Category
    excerpt: str

    def describe(self) -> str:
        """One line for a reason, naming the file and line, the side, the construct and the excerpt:
        `sessions.py:301 (removed line) credential header: "del h['Authorization']"`."""
        where = f"{quote_path(self.path)}:{self.line}"
        return f'{where} ({self.side} line) {self.construct}: "{quote_inline(self.excerpt)}"'


# Pattern builders. CPython's `re` searches a pattern that starts with a literal about as fast as
# `str.find`; one starting with `\b` or a character class is tried at every position (see `scan`). So a
# word's boundary before it is checked by a lookbehind placed after the literal (as `tiergate.redact`
# does), and the literal comes first.
_IDENT = "A-Za-z0-9_"


def word(name: str, *, after_dot: bool = True) -> str:
    """`name` as a whole identifier (or a dotted name, `os.system`): not inside a longer one. With
    `after_dot=False`, not an attribute either (`eval(` but not `model.eval(`)."""
    literal = re.escape(name)
    before = _IDENT if after_dot else _IDENT + "."
    head = f"{literal}(?<![{before}]{literal})" if name[0].isalnum() or name[0] == "_" else literal
    tail = f"(?![{_IDENT}])" if name[-1].isalnum() or name[-1] == "_" else ""
    return head + tail


def call(name: str, *, after_dot: bool = True) -> str:
    """A call of `name`: the identifier, then '('."""
    return word(name, after_dot=after_dot) + r"[ \t]*\("


def quoted(name: str) -> str:
    """`name` inside quotes, as a header name or a key is written: 'Authorization', "Set-Cookie"."""
    return f"{re.escape(name)}(?<=[\"'`]{re.escape(name)})(?=[\"'`])"


def rules(construct: str, *patterns: str, sides: Sides = "both", near: str = "") -> tuple[ContentRule, ...]:
    """One security construct written several ways, one literal-first pattern each."""
    return tuple(ContentRule(construct, p, sides=sides, near=near) for p in patterns)
