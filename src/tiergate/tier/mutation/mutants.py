"""A mutant: one small change to one changed line of the claimed code, as a span of the file's bytes and
the text put there. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Literal, TypeVar, get_args

from tiergate.frozen import frozen
from tiergate.text import quote_inline

_T = TypeVar("_T")

Operator = Literal["comparison", "arithmetic", "boolean", "condition", "constant", "return", "statement"]
OPERATORS: tuple[Operator, ...] = get_args(Operator)


@frozen
class Mutant:
    """`path`'s bytes `start`..`end` (on `line`, 1-based) replaced by `replacement`: `original` was there.
    `unit` is where the mutated code runs: the outermost function holding it (its qualified name, and
    `first`, the line of its `def` or its first decorator), or "" for a statement at a module's top level."""

    path: str  # repository-relative, `/`-separated
    line: int
    start: int
    end: int
    original: str
    replacement: str
    operator: Operator
    unit: str = ""
    first: int = 0

    @property
    def key(self) -> str:
        """The mutant's name in plans and reports: its place and its change."""
        return f"{self.path}:{self.line}:{self.start}:{self.operator}:{self.replacement}"

    def describe(self) -> str:
        """Its place and change, "line 12 of calc.py: `>=` -> `>`": the agent's code and path, quoted."""
        was, now = quote_inline(_short(self.original)), quote_inline(_short(self.replacement))
        return f"line {self.line} of {quote_inline(self.path)}: `{was}` -> `{now}`"

    def apply(self, content: bytes) -> bytes:
        """The file's `content` with this mutant in it; ValueError when the span does not hold `original`."""
        if content[self.start : self.end] != self.original.encode():
            raise ValueError(f"{self.path}: the file is not the one the mutant was made of")
        return content[: self.start] + self.replacement.encode() + content[self.end :]

    def to_record(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "start": self.start,
            "end": self.end,
            "original": self.original,
            "replacement": self.replacement,
            "operator": self.operator,
            "unit": self.unit,
            "first": self.first,
        }

    @staticmethod
    def from_record(record: Mapping[str, Any]) -> Mutant:
        """The record `to_record` wrote; ValueError (KeyError, TypeError) for anything else."""
        operator = record["operator"]
        if operator not in OPERATORS:
            raise ValueError(f"not a mutation operator: {operator!r}")
        numbers = [record[name] for name in ("line", "start", "end", "first")]
        if not all(type(n) is int and n >= 0 for n in numbers) or numbers[1] > numbers[2]:
            raise ValueError("not a mutant's place")
        texts = [record[name] for name in ("path", "original", "replacement", "unit")]
        if not all(isinstance(t, str) for t in texts):
            raise ValueError("not a mutant's text")
        return Mutant(
            texts[0], numbers[0], numbers[1], numbers[2], texts[1], texts[2], operator, texts[3], numbers[3]
        )


def _short(text: str, limit: int = 40) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def capped(ranked: Sequence[_T], per_line: int, site: Callable[[_T], Hashable]) -> list[_T]:
    """A line's mutants, most telling first (`ranked`), cut to `per_line`, but every site (an operator,
    a constant, a statement: where a mutant's span starts) keeps its most telling one: a cap that dropped
    a site would leave a weak test there unseen, however well its neighbours are pinned."""
    firsts: dict[Hashable, _T] = {}
    for item in ranked:
        firsts.setdefault(site(item), item)
    chosen = set(map(id, firsts.values()))
    rest = [item for item in ranked if id(item) not in chosen][: max(0, per_line - len(firsts))]
    kept = set(chosen) | set(map(id, rest))
    return [item for item in ranked if id(item) in kept]
