"""Assess a change: the one path from "what changed" to "which verifier, and why".

Both the command line (`tiergate tier`) and the loop (a completion claim) come through here, so that the
tier a user is shown is the tier a loop uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tiergate.tier.change import ChangeMeasurement, measure_change
from tiergate.tier.coverage import CoverageJudgement, judge_coverage
from tiergate.tier.coveragelines import GateCoverage
from tiergate.tier.keywords import find_override
from tiergate.tier.policy import ChangeFacts, Coverage, TierDecision, select_tier
from tiergate.tier.riskpaths import RiskPaths, RiskScan

if TYPE_CHECKING:
    # pydantic, behind the config models, is imported only where a configuration is actually loaded.
    from tiergate.config import Config
    from tiergate.foreign import Exclusions


@dataclass(frozen=True)
class Assessment:
    change: ChangeMeasurement
    coverage: CoverageJudgement
    scan: RiskScan
    decision: TierDecision


def risk_paths(config: Config) -> RiskPaths:
    return RiskPaths(extra_security=config.patterns.security, extra_architecture=config.patterns.architecture)


def facts_from_paths(
    paths: Sequence[str],
    lines_changed: int,
    test_coverage: Coverage,
    rules: RiskPaths,
    coverage_evidence: str = "",
) -> tuple[ChangeFacts, RiskScan]:
    scan = rules.scan(paths)
    facts = ChangeFacts(
        files_changed=len(paths),
        lines_changed=lines_changed,
        test_coverage=test_coverage,
        has_security_implications=bool(scan.security),
        has_architectural_changes=bool(scan.architecture),
        security_evidence=tuple(m.describe() for m in scan.security),
        architecture_evidence=tuple(m.describe() for m in scan.architecture),
        coverage_evidence=coverage_evidence,
    )
    return facts, scan


def decide(facts: ChangeFacts, config: Config, prompt: str | None) -> TierDecision:
    override = find_override(prompt, config.keywords.thorough, config.keywords.light)
    return select_tier(facts, config.tier_policy, override)


def assess_change(
    root: Path,
    base: str = "HEAD",
    prompt: str | None = None,
    config: Config | None = None,
    coverage: Coverage | None = None,
    exclusions: Exclusions | None = None,
    change: ChangeMeasurement | None = None,
    gate_coverage: GateCoverage | None = None,
) -> Assessment:
    """Measure the change since `base` in the repository at `root` and select its tier.

    `coverage` given by the caller (`--coverage`) replaces the judgement from coverage data. Other
    tools' state is left out: `exclusions`, else the configuration's (`Config.exclusions`); a loop
    passes its own (`tiergate.foreign.of_loop`), the ones every hook of it uses. A claim passes the
    `change` it measured before its gate ran, and the coverage the gate measured of it (`gate_coverage`).
    """
    if config is None:
        from tiergate.config import load_config

        config = load_config(root)
    if change is None:
        change = measure_change(root, base, config.exclusions if exclusions is None else exclusions)
    judgement = (
        CoverageJudgement(level=coverage, evidence="given on the command line")
        if coverage is not None
        else judge_coverage(change, gate_coverage)
    )
    facts, scan = facts_from_paths(
        change.paths, change.lines_changed, judgement.level, risk_paths(config), judgement.evidence
    )
    return Assessment(change=change, coverage=judgement, scan=scan, decision=decide(facts, config, prompt))
