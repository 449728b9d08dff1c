"""Override keywords in a task prompt: words that ask for a tier.

Matched as whole words, case-insensitively ("critically" does not say "critical"; "mission-critical" and
"quick-fix" do say theirs). A word right after a plain negation ("non-trivial", "not simple", "not a quick
fix") does not count. When the prompt holds both kinds, the higher tier wins: asking for care outranks
asking for speed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from tiergate.tier.policy import KeywordOverride, Tier

THOROUGH_KEYWORDS: tuple[str, ...] = ("thorough", "careful", "important", "critical")
LIGHT_KEYWORDS: tuple[str, ...] = ("quick", "simple", "trivial", "minor")
_NEGATIONS = ("non-", "non ", "not ", "not a ", "not an ", "no ", "never ")


@lru_cache(maxsize=32)
def _word_pattern(words: tuple[str, ...]) -> re.Pattern[str] | None:
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    negations = "".join(f"(?<!{n})" for n in _NEGATIONS)
    return re.compile(rf"(?<!\w){negations}(?:{alternatives})(?!\w)", re.IGNORECASE)


def find_override(
    prompt: str | None,
    thorough: Sequence[str] = THOROUGH_KEYWORDS,
    light: Sequence[str] = LIGHT_KEYWORDS,
) -> KeywordOverride | None:
    if not prompt:
        return None
    for tier, words in ((Tier.THOROUGH, thorough), (Tier.LIGHT, light)):
        pattern = _word_pattern(tuple(w.lower() for w in words))
        match = pattern.search(prompt) if pattern else None
        if match:
            return KeywordOverride(tier=tier, keyword=match.group(0).lower())
    return None
