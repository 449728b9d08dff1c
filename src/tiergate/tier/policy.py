"""The tier rules: how risky a change is, and so which verifier must look at it with what evidence.

Pure: facts in, a decision with its reasons out. The rules, thresholds and strict inequalities are the
seed's (LIGHT / STANDARD / THOROUGH); only the numbers are settable (`TierPolicy`). Since the agent owns
the tests, checks failing as at the loop's start (`failing_then`) and coverage measured by tests the
change edited (`edited_tests`) keep a claim off LIGHT. See docs/judging.md, "Tiers".
"""

from __future__ import annotations

from dataclasses import field
from enum import StrEnum
from typing import Literal

from tiergate.frozen import frozen
from tiergate.text import AND_MORE, PAREN_AND_MORE, more_than, plural

Coverage = Literal["none", "partial", "full"]
COVERAGE_LEVELS: tuple[Coverage, ...] = ("none", "partial", "full")

PLUGIN = "tiergate"
# How many matching files a reason list names before it summarises the rest; a 2,000-file change
# must not produce a 2,000-line explanation.
MAX_NAMED_MATCHES = 5


class Tier(StrEnum):
    LIGHT = "LIGHT"
    STANDARD = "STANDARD"
    THOROUGH = "THOROUGH"


@frozen
class Verifier:
    agent: str
    model: str
    evidence_required: tuple[str, ...]

    @property
    def subagent_type(self) -> str:
        return f"{PLUGIN}:{self.agent}"


VERIFIERS: dict[Tier, Verifier] = {
    Tier.LIGHT: Verifier("architect-low", "haiku", ("lsp_diagnostics clean",)),
    Tier.STANDARD: Verifier("architect-medium", "sonnet", ("lsp_diagnostics clean", "build pass")),
    Tier.THOROUGH: Verifier(
        "architect", "opus", ("full architect review", "all tests pass", "no regressions")
    ),
}


@frozen
class TierPolicy:
    """The numbers behind the rules. Every comparison is strict, as in the seed."""

    light_files_below: int = 5
    light_lines_below: int = 100
    thorough_files_above: int = 20
    relative_costs: dict[Tier, float] = field(
        default_factory=lambda: {Tier.LIGHT: 1.0, Tier.STANDARD: 5.0, Tier.THOROUGH: 20.0}
    )


@frozen
class ChangeFacts:
    """What the rules look at. The evidence tuples say why a flag is set ("file matched pattern")."""

    files_changed: int
    lines_changed: int
    test_coverage: Coverage
    has_security_implications: bool = False
    has_architectural_changes: bool = False
    security_evidence: tuple[str, ...] = ()
    architecture_evidence: tuple[str, ...] = ()
    coverage_evidence: str = ""
    # Existing test files the change modified, deleted or renamed (not the ones it added).
    edited_tests: tuple[str, ...] = ()
    # Checks failing as at the loop's base, each named with its failing tests ("check 'tests' (...)").
    failing_then: tuple[str, ...] = ()
    # Why the changed lines' mutants keep the change off LIGHT (`tiergate.tier.mutation.fates`): a mutant
    # every test survived, kills that say nothing, mutants not run.
    mutants: tuple[str, ...] = ()


@frozen
class KeywordOverride:
    """A tier asked for by a word of the task prompt."""

    tier: Tier
    keyword: str


@frozen
class TierDecision:
    tier: Tier
    verifier: Verifier
    relative_cost: float
    reasons: tuple[str, ...]
    facts: ChangeFacts
    override: KeywordOverride | None = None

    def as_dict(self) -> dict[str, object]:
        """The decision as the command line's JSON contract spells it."""
        return {
            "tier": self.tier.value,
            "agent": self.verifier.subagent_type,
            "model": self.verifier.model,
            "evidence_required": list(self.verifier.evidence_required),
            "has_architectural_changes": self.facts.has_architectural_changes,
            "has_security_implications": self.facts.has_security_implications,
            "relative_cost": self.relative_cost,
            "override": None if self.override is None else self.override.keyword,
            "reasons": list(self.reasons),
        }


def select_tier(
    facts: ChangeFacts, policy: TierPolicy | None = None, override: KeywordOverride | None = None
) -> TierDecision:
    """Apply the seed's rules in their order, then a keyword override that never lowers a floor."""
    policy = policy or TierPolicy()
    tier, reasons = _rule_tier(facts, policy)
    floored = facts.has_security_implications or facts.has_architectural_changes
    if override is not None:
        tier, reason = _apply_override(tier, override, floored, not_light(facts))
        reasons.append(reason)
    return TierDecision(
        tier=tier,
        verifier=VERIFIERS[tier],
        relative_cost=policy.relative_costs[tier],
        reasons=tuple(reasons),
        facts=facts,
        override=override,
    )


def _rule_tier(facts: ChangeFacts, policy: TierPolicy) -> tuple[Tier, list[str]]:
    if facts.has_security_implications or facts.has_architectural_changes:
        return Tier.THOROUGH, _floor_reasons(facts)
    if facts.files_changed > policy.thorough_files_above:
        return Tier.THOROUGH, [
            f"large-scope: {plural(facts.files_changed, 'file')} changed > "
            f"{policy.thorough_files_above} -> THOROUGH"
        ]
    blockers = _light_blockers(facts, policy)
    refusals = not_light(facts)
    if not blockers and refusals:
        return Tier.STANDARD, [
            *refusals,
            f"small-and-tested otherwise ({plural(facts.files_changed, 'file')}, "
            f"{plural(facts.lines_changed, 'line')}, test coverage full), but not LIGHT -> STANDARD"
            + _coverage_suffix(facts),
        ]
    if not blockers:
        return Tier.LIGHT, [
            f"small-and-tested: {plural(facts.files_changed, 'file')} < {policy.light_files_below}, "
            f"{plural(facts.lines_changed, 'line')} < {policy.light_lines_below}, test coverage full -> LIGHT"
            + _coverage_suffix(facts)
        ]
    return Tier.STANDARD, [
        *_failing_then(facts),
        f"default: not LIGHT ({'; '.join(blockers)}), not THOROUGH "
        f"({plural(facts.files_changed, 'file')} <= {policy.thorough_files_above}, "
        "no security or architecture path) -> STANDARD",
    ]


def not_light(facts: ChangeFacts) -> list[str]:
    """Why a change is never LIGHT whatever its size and coverage, one reason per rule ([] when it may be)."""
    reasons = _failing_then(facts)
    if facts.edited_tests and facts.test_coverage == "full":
        named = ", ".join(facts.edited_tests[:MAX_NAMED_MATCHES])
        tail = more_than(len(facts.edited_tests), MAX_NAMED_MATCHES, AND_MORE)
        reasons.append(
            f"edited-tests: coverage measured by tests this change edited ({named}{tail}) is the change's "
            "own evidence, not counted for LIGHT -> at least STANDARD"
        )
    return [*reasons, *facts.mutants]


def _failing_then(facts: ChangeFacts) -> list[str]:
    if not facts.failing_then:
        return []
    named = "; ".join(facts.failing_then[:MAX_NAMED_MATCHES])
    tail = more_than(len(facts.failing_then), MAX_NAMED_MATCHES, PAREN_AND_MORE)
    return [
        f"pre-existing-failures: {named}{tail} still failing as when the loop began; the task may be to "
        "fix them, so the claim is not verified as green -> at least STANDARD"
    ]


def _floor_reasons(facts: ChangeFacts) -> list[str]:
    reasons: list[str] = []
    for flag, rule, evidence in (
        (facts.has_security_implications, "security-floor", facts.security_evidence),
        (facts.has_architectural_changes, "architecture-floor", facts.architecture_evidence),
    ):
        if not flag:
            continue
        if not evidence:
            reasons.append(f"{rule}: the change is flagged as such -> THOROUGH")
            continue
        tail = more_than(len(evidence), MAX_NAMED_MATCHES, PAREN_AND_MORE)
        reasons.append(f"{rule}: {'; '.join(evidence[:MAX_NAMED_MATCHES])}{tail} -> THOROUGH")
    return reasons


def _light_blockers(facts: ChangeFacts, policy: TierPolicy) -> list[str]:
    blockers = []
    if not facts.files_changed < policy.light_files_below:
        blockers.append(f"{plural(facts.files_changed, 'file')}, LIGHT needs < {policy.light_files_below}")
    if not facts.lines_changed < policy.light_lines_below:
        blockers.append(f"{plural(facts.lines_changed, 'line')}, LIGHT needs < {policy.light_lines_below}")
    if facts.test_coverage != "full":
        blockers.append(f"test coverage {facts.test_coverage}, LIGHT needs full" + _coverage_suffix(facts))
    return blockers


def _coverage_suffix(facts: ChangeFacts) -> str:
    return f" [coverage: {facts.coverage_evidence}]" if facts.coverage_evidence else ""


def _apply_override(
    tier: Tier, override: KeywordOverride, floored: bool, refusals: list[str]
) -> tuple[Tier, str]:
    word = override.keyword
    if override.tier is Tier.THOROUGH:
        return Tier.THOROUGH, f"keyword-thorough: '{word}' in the task forces THOROUGH (rules gave {tier})"
    if floored:
        return tier, (
            f"keyword-light: '{word}' in the task asks for LIGHT; refused, "
            "a security or architecture floor is never lowered -> THOROUGH"
        )
    if refusals:
        rules = ", ".join(r.split(":", 1)[0] for r in refusals)
        return tier, f"keyword-light: '{word}' in the task asks for LIGHT; refused ({rules}) -> {tier}"
    return Tier.LIGHT, f"keyword-light: '{word}' in the task forces LIGHT (rules gave {tier})"
