"""The user's extra path globs (`[patterns] security` and `architecture`): gitignore-style, matched
without regard to case like the built-in rules, compiled once with pathspec (imported only when there are
any). They add to the built-in rules and never remove one: see docs/risk-paths.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from tiergate.tier.riskrules import Category

_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


class Globs(NamedTuple):
    """gitignore-style globs of one category, in order: the last glob that matches a path decides it."""

    globs: tuple[tuple[str, re.Pattern[str], bool], ...]  # (glob as written, regex, include)
    # Any including glob at all, in one regex: most paths match none, and then one search says so.
    gate: re.Pattern[str]

    def match(self, path: str) -> str | None:
        if not self.gate.match(path):
            return None
        found: str | None = None
        for glob, regex, include in self.globs:
            if regex.match(path):
                found = glob if include else None
        return found


def compile_globs(globs: Sequence[str], category: Category) -> Globs | None:
    if not globs:
        return None
    from pathspec import GitIgnoreSpec

    from tiergate.errors import UserError

    compiled: list[tuple[str, re.Pattern[str], bool]] = []
    for glob in globs:
        if not isinstance(glob, str):
            raise UserError(f"extra {category} pattern {glob!r} is not a string")
        try:
            patterns = GitIgnoreSpec.from_lines([glob]).patterns
        except ValueError as exc:
            raise UserError(f"extra {category} pattern '{glob}' is not a valid glob: {exc}") from None
        for pattern in patterns:
            regex = getattr(pattern, "regex", None)
            if pattern.include is None or regex is None:
                continue
            # Case-insensitive like the built-in rules: `Billing/` on macOS or Windows is `billing/`.
            compiled.append((glob, re.compile(regex.pattern, re.IGNORECASE), bool(pattern.include)))
    including = [_NAMED_GROUP.sub("(?:", r.pattern) for _, r, include in compiled if include]
    gate = "|".join(f"(?:{p})" for p in including) if including else "(?!)"
    return Globs(tuple(compiled), re.compile(gate, re.IGNORECASE))


def relative_path(norm: str) -> str:
    while norm.startswith(("./", "/")):
        norm = norm[1:] if norm[0] == "/" else norm[2:]
    return norm
