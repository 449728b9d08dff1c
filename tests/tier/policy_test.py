"""The seed's tier rules, boundaries and floors, as tests; and properties that must hold for any input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tiergate.tier.policy import (
    COVERAGE_LEVELS,
    VERIFIERS,
    ChangeFacts,
    Coverage,
    KeywordOverride,
    Tier,
    TierPolicy,
    select_tier,
)


def facts(
    files: int,
    lines: int,
    coverage: Coverage = "full",
    security: bool = False,
    architecture: bool = False,
) -> ChangeFacts:
    return ChangeFacts(
        files_changed=files,
        lines_changed=lines,
        test_coverage=coverage,
        has_security_implications=security,
        has_architectural_changes=architecture,
    )


# The seed's documented test cases (tier-selector.test.ts), including its boundary-value group.
@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (facts(2, 50, "full"), Tier.LIGHT),
        (facts(1, 5, "full", security=True), Tier.THOROUGH),
        (facts(1, 5, "full", architecture=True), Tier.THOROUGH),
        (facts(25, 10, "full"), Tier.THOROUGH),
        (facts(10, 200, "partial"), Tier.STANDARD),
        (facts(5, 50, "full"), Tier.STANDARD),
        (facts(3, 100, "full"), Tier.STANDARD),
        (facts(21, 10, "full"), Tier.THOROUGH),
        (facts(20, 10, "full"), Tier.STANDARD),
        (facts(0, 0, "full"), Tier.LIGHT),
        (facts(1, 1, "none"), Tier.STANDARD),
        (facts(1, 1, "partial"), Tier.STANDARD),
        (facts(4, 99, "full"), Tier.LIGHT),
    ],
)
def test_seed_cases(change: ChangeFacts, expected: Tier) -> None:
    assert select_tier(change).tier is expected


def test_verifier_table_is_the_seeds() -> None:
    assert VERIFIERS[Tier.LIGHT].agent == "architect-low"
    assert VERIFIERS[Tier.LIGHT].model == "haiku"
    assert VERIFIERS[Tier.LIGHT].evidence_required == ("lsp_diagnostics clean",)
    assert VERIFIERS[Tier.STANDARD].agent == "architect-medium"
    assert VERIFIERS[Tier.STANDARD].model == "sonnet"
    assert VERIFIERS[Tier.STANDARD].evidence_required == ("lsp_diagnostics clean", "build pass")
    assert VERIFIERS[Tier.THOROUGH].agent == "architect"
    assert VERIFIERS[Tier.THOROUGH].model == "opus"
    assert VERIFIERS[Tier.THOROUGH].evidence_required == (
        "full architect review",
        "all tests pass",
        "no regressions",
    )
    assert VERIFIERS[Tier.THOROUGH].subagent_type == "tiergate:architect"


def test_default_relative_costs_are_1_5_20() -> None:
    costs = [select_tier(facts(*args)).relative_cost for args in ((1, 1), (10, 200), (30, 1))]
    assert costs == [1.0, 5.0, 20.0]


def test_reasons_name_rule_file_and_pattern() -> None:
    change = ChangeFacts(
        files_changed=1,
        lines_changed=5,
        test_coverage="full",
        has_security_implications=True,
        security_evidence=("src/auth/token.ts matches security pattern '**/auth/**'",),
    )
    (reason,) = select_tier(change).reasons
    assert reason.startswith("security-floor: ")
    assert "src/auth/token.ts" in reason
    assert "'**/auth/**'" in reason


def test_reasons_say_why_not_light() -> None:
    (reason,) = select_tier(facts(5, 100, "none")).reasons
    assert reason.startswith("default: ")
    assert "5 files, LIGHT needs < 5" in reason
    assert "100 lines, LIGHT needs < 100" in reason
    assert "test coverage none, LIGHT needs full" in reason


def test_many_matches_are_summarised() -> None:
    evidence = tuple(f"f{i}.pem matches security pattern '*.pem'" for i in range(50))
    change = ChangeFacts(
        files_changed=50,
        lines_changed=0,
        test_coverage="none",
        has_security_implications=True,
        security_evidence=evidence,
    )
    (reason,) = select_tier(change).reasons
    assert "(and 45 more)" in reason
    assert len(reason) < 600


def test_thorough_keyword_raises_any_tier() -> None:
    decision = select_tier(facts(1, 1, "full"), override=KeywordOverride(Tier.THOROUGH, "careful"))
    assert decision.tier is Tier.THOROUGH
    assert decision.verifier.model == "opus"
    assert decision.reasons[-1].startswith("keyword-thorough: 'careful'")


def test_light_keyword_lowers_size_rules() -> None:
    decision = select_tier(facts(30, 5000, "none"), override=KeywordOverride(Tier.LIGHT, "quick"))
    assert decision.tier is Tier.LIGHT
    assert "rules gave THOROUGH" in decision.reasons[-1]


@pytest.mark.parametrize("flag", ["security", "architecture"])
def test_light_keyword_never_lowers_a_floor(flag: str) -> None:
    change = facts(1, 1, "full", **{flag: True})
    decision = select_tier(change, override=KeywordOverride(Tier.LIGHT, "quick"))
    assert decision.tier is Tier.THOROUGH
    assert decision.reasons[-1].startswith("keyword-light: 'quick' in the task asks for LIGHT; refused")


def test_policy_thresholds_keep_strict_inequalities() -> None:
    policy = TierPolicy(light_files_below=2, light_lines_below=10, thorough_files_above=3)
    assert select_tier(facts(1, 9), policy).tier is Tier.LIGHT
    assert select_tier(facts(2, 9), policy).tier is Tier.STANDARD
    assert select_tier(facts(1, 10), policy).tier is Tier.STANDARD
    assert select_tier(facts(3, 1), policy).tier is Tier.STANDARD
    assert select_tier(facts(4, 1), policy).tier is Tier.THOROUGH


def test_as_dict_has_the_contract_fields() -> None:
    record = select_tier(facts(2, 50)).as_dict()
    assert record["tier"] == "LIGHT"
    assert record["agent"] == "tiergate:architect-low"
    assert record["model"] == "haiku"
    assert record["evidence_required"] == ["lsp_diagnostics clean"]
    assert record["has_architectural_changes"] is False
    assert record["has_security_implications"] is False
    assert isinstance(record["reasons"], list)
    assert record["reasons"]


# Properties over the whole input space.
RANK = {Tier.LIGHT: 0, Tier.STANDARD: 1, Tier.THOROUGH: 2}
counts = st.integers(min_value=0, max_value=10_000)
coverages = st.sampled_from(COVERAGE_LEVELS)
overrides = st.one_of(
    st.none(),
    st.builds(KeywordOverride, st.sampled_from(list(Tier)), st.sampled_from(["quick", "careful"])),
)


@given(counts, counts, coverages, st.booleans(), st.booleans(), counts, counts)
def test_more_change_never_lowers_the_tier(
    files: int, lines: int, coverage: Coverage, sec: bool, arch: bool, more_files: int, more_lines: int
) -> None:
    small = select_tier(facts(files, lines, coverage, sec, arch)).tier
    large = select_tier(facts(files + more_files, lines + more_lines, coverage, sec, arch)).tier
    assert RANK[large] >= RANK[small]


@given(counts, counts, coverages, coverages, st.booleans(), st.booleans())
def test_better_coverage_never_raises_the_tier(
    files: int, lines: int, cov_a: Coverage, cov_b: Coverage, sec: bool, arch: bool
) -> None:
    order = {"none": 0, "partial": 1, "full": 2}
    worse, better = sorted((cov_a, cov_b), key=order.__getitem__)
    assert (
        RANK[select_tier(facts(files, lines, better, sec, arch)).tier]
        <= RANK[select_tier(facts(files, lines, worse, sec, arch)).tier]
    )


@given(counts, counts, coverages, st.booleans(), st.booleans(), overrides)
def test_floors_always_hold(
    files: int, lines: int, coverage: Coverage, sec: bool, arch: bool, override: KeywordOverride | None
) -> None:
    decision = select_tier(facts(files, lines, coverage, sec, arch), override=override)
    if sec or arch:
        assert decision.tier is Tier.THOROUGH
    assert decision.verifier == VERIFIERS[decision.tier]
    assert decision.reasons


@given(counts, counts, coverages, st.booleans(), st.booleans())
def test_light_only_when_small_fully_tested_and_not_floored(
    files: int, lines: int, coverage: Coverage, sec: bool, arch: bool
) -> None:
    decision = select_tier(facts(files, lines, coverage, sec, arch))
    is_light = decision.tier is Tier.LIGHT
    assert is_light == (files < 5 and lines < 100 and coverage == "full" and not sec and not arch)
