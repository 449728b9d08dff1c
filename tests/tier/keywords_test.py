from __future__ import annotations

import pytest

from tiergate.tier.keywords import find_override
from tiergate.tier.policy import Tier


@pytest.mark.parametrize(
    ("prompt", "tier", "word"),
    [
        ("Please be careful with this migration", Tier.THOROUGH, "careful"),
        ("This is IMPORTANT", Tier.THOROUGH, "important"),
        ("a mission-critical path", Tier.THOROUGH, "critical"),
        ("do a thorough job", Tier.THOROUGH, "thorough"),
        ("a quick fix", Tier.LIGHT, "quick"),
        ("Simple rename", Tier.LIGHT, "simple"),
        ("trivial", Tier.LIGHT, "trivial"),
        ("a minor tweak", Tier.LIGHT, "minor"),
        ("a quick-fix for the typo", Tier.LIGHT, "quick"),
        # Both kinds: asking for care outranks asking for speed.
        ("quick but careful", Tier.THOROUGH, "careful"),
    ],
)
def test_keywords_match_as_words(prompt: str, tier: Tier, word: str) -> None:
    override = find_override(prompt)
    assert override is not None
    assert override.tier is tier
    assert override.keyword == word


@pytest.mark.parametrize(
    "prompt",
    [
        "",
        None,
        "critically examine",  # contains "critical", is not the word
        "quickly",
        "simpler is better",
        "minority report",
        "importantly",
        "non-trivial refactor",
        "this is not a simple change",
        "no quick hacks",
        "thoroughly",
    ],
)
def test_no_override_without_the_word(prompt: str | None) -> None:
    assert find_override(prompt) is None


def test_configured_keywords_replace_the_defaults() -> None:
    assert find_override("a quick fix", thorough=("audit",), light=("tiny",)) is None
    override = find_override("security audit needed", thorough=("audit",), light=("tiny",))
    assert override is not None
    assert override.tier is Tier.THOROUGH


def test_empty_keyword_lists_disable_overrides() -> None:
    assert find_override("careful and quick", thorough=(), light=()) is None
