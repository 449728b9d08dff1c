"""The built-in path rules (`tiergate.tier.riskrules`) compiled once into lookups by kind; pure.

A name costs a few dict and set lookups whatever the number of rules: each key of a rule goes into the
lookup of its kind, with the rule's place in the table (lower wins), its category and its pattern as a
reason shows it. See docs/risk-paths.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tiergate.frozen import frozen
from tiergate.tier.riskrules import CONTENT_JUDGED_DIRPATHS, RULES, Category, Rule

# One hit of a rule: its place in the table (lower wins), category, pattern as shown, and its filter: the
# extensions it applies to, or for a rule with stems, the lowercase file names.
Hit = tuple[int, Category, str, frozenset[str] | None]
_Keyed = dict[str, tuple[Hit, ...]]
_NO_HITS: tuple[Hit, ...] = ()


@frozen
class Table:
    kinds: dict[str, _Keyed]
    dirpaths: dict[tuple[str, str], tuple[Hit, ...]]
    # Cheap gates, so that a name no rule of a kind could match costs one C call for that kind.
    prefix: re.Pattern[str]
    suffixes: tuple[str, ...]
    last_words: tuple[str, ...]
    words: frozenset[str]
    word_rank: int  # security words rank after every table rule

    def hits(self, kind: str, key: str) -> tuple[Hit, ...]:
        return self.kinds[kind].get(key, _NO_HITS)


_KINDS = ("name", "name-case", "prefix", "ext", "suffix", "stem", "last-part", "last-word", "word", "dir")


def compile_rules(rules: Sequence[Rule]) -> Table:
    kinds: dict[str, dict[str, list[Hit]]] = {kind: {} for kind in (*_KINDS, "parent")}
    dirpaths: dict[tuple[str, str], list[Hit]] = {}
    for index, rule in enumerate(rules):
        exts = None if rule.exts is None else frozenset(rule.exts)
        if rule.stems is not None:
            exts = frozenset(f"{stem}.{ext}" for stem in rule.stems for ext in rule.exts or ())
        shown_exts = "" if rule.exts is None else _brace(rule.exts)
        shown_stems = "" if rule.stems is None else _brace(rule.stems)
        for key in rule.keys:
            lookup = key if rule.kind == "name-case" else key.lower()
            shown = rule.pattern.format(key=key, exts=shown_exts, stems=shown_stems)
            hit: Hit = (index, rule.category, shown, exts)
            if rule.kind == "dirpath":
                first, second = lookup.split("/")
                dirpaths.setdefault((first, second), []).append(hit)
            else:
                kinds[rule.kind].setdefault(lookup, []).append(hit)
    prefixes = "|".join(re.escape(k) for k in sorted(kinds["prefix"], key=len, reverse=True))
    return Table(
        kinds={kind: {k: tuple(v) for k, v in keyed.items()} for kind, keyed in kinds.items()},
        dirpaths={k: tuple(v) for k, v in dirpaths.items()},
        prefix=re.compile(rf"({prefixes})(?:[._-]|$)"),
        suffixes=tuple(kinds["suffix"]),
        last_words=tuple(kinds["last-word"]),
        words=frozenset(kinds["word"]),
        word_rank=len(rules),
    )


def _brace(exts: tuple[str, ...]) -> str:
    return exts[0] if len(exts) == 1 else "{" + ",".join(exts) + "}"


TABLE = compile_rules(RULES)
# The patterns of the rules a content judge replaces, as they show in a match.
JUDGED = frozenset(f"**/{key}/**" for key in CONTENT_JUDGED_DIRPATHS)
