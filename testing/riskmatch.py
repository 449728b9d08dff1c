"""What the path rules say of one path, as the risk path tests ask it."""

from __future__ import annotations

from tiergate.tier.riskpaths import DEFAULT, RiskPaths


def categories(path: str, rules: RiskPaths = DEFAULT) -> set[str]:
    return {m.category for m in rules.match(path)}


def pattern_of(path: str, category: str, rules: RiskPaths = DEFAULT) -> str:
    (found,) = [m for m in rules.match(path) if m.category == category]
    return found.pattern
