"""`tiergate replay`'s engine: the tier of each past commit's own change, and what the tiers add up to.

Each commit goes through the claim's own path from a change to a decision (`assess.facts_from_paths`,
`assess.decide`, the content rules on its `-U0` patch), with the project's configuration: nothing here
decides a tier. Decided again without the content hits, and with `full` coverage, it tells which commits
the content rules raised and which would be LIGHT. See docs/judging.md, "Trying the rules".
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tiergate.frozen import frozen
from tiergate.text import quote_inline
from tiergate.tier.assess import Evidence, content_rules, decide, facts_from_paths, risk_paths
from tiergate.tier.changedlines import judge_change
from tiergate.tier.content import ContentHit
from tiergate.tier.coverage.judgement import CoverageJudgement, classify
from tiergate.tier.policy import ChangeFacts, Tier, TierDecision
from tiergate.tier.riskpaths import PathMatch, RiskPaths, RiskScan

if TYPE_CHECKING:
    from tiergate.config.settings import Config
    from tiergate.tier.pastcommits import PastCommit

COVERAGE_RULE = (
    "past commits have no coverage data: full only when a commit changed no executable line "
    "(nothing to cover), partial when it changed tests with the code, none otherwise"
)
# How many reasons for THOROUGH, and how many raised commits, the summary lists.
TOP_REASONS = 10


@frozen
class Replayed:
    """One past commit, tiered."""

    commit: PastCommit  # its patch dropped once read
    coverage: CoverageJudgement
    scan: RiskScan
    content: tuple[ContentHit, ...]  # the content rules' hits in the commit's changed lines
    decision: TierDecision
    without_content: TierDecision  # the same change with the content rules' hits left out
    if_full_coverage: TierDecision  # the same change, had the gate measured full coverage
    rules: tuple[str, ...]  # the rules behind a THOROUGH, one name each (not one per file)

    @property
    def raised_by_content(self) -> bool:
        return _rank(self.decision.tier) > _rank(self.without_content.tier)


@frozen
class Summary:
    commits: int
    tiers: dict[Tier, int]
    cost: float  # the sum of the commits' relative costs
    always_thorough: float  # what verifying every commit THOROUGH would cost
    thorough_reasons: tuple[tuple[str, int], ...]  # rule, commits it made THOROUGH; most frequent first
    raised_by_content: tuple[Replayed, ...]
    light_if_full_coverage: int

    @property
    def cost_ratio(self) -> float:
        return self.cost / self.always_thorough if self.always_thorough else 0.0


class Engine:
    """The project's rules, compiled once for a whole history."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.paths: RiskPaths = risk_paths(config)
        self.ecosystems = content_rules(config)  # none when `[risk] content = false`

    @property
    def reads_patches(self) -> bool:
        return bool(self.ecosystems)

    def replay(self, commit: PastCommit) -> Replayed:
        change = commit.change
        coverage = judge_past_coverage(commit)
        # The claim's reader of the changed lines, on the commit's own -U0 patch (measured with it).
        if self.ecosystems and change.patch is None:
            raise ValueError("content rules on, but the commit was read without its patch")
        content = judge_change(change, self.ecosystems, change.patch)
        hits = content.hits
        evidence = Evidence(coverage.evidence, hits, content.judged)
        facts, scan = facts_from_paths(
            change.paths, change.lines_changed, coverage.level, self.paths, evidence
        )
        decision = decide(facts, self.config, None)
        without = decision
        if hits or content.judged:
            plain, _ = facts_from_paths(
                change.paths, change.lines_changed, coverage.level, self.paths, Evidence(coverage.evidence)
            )
            without = decide(plain, self.config, None)
        files_above = self.config.tier_policy.thorough_files_above
        return Replayed(
            # The patch is read: a history's patches are not all held at once (axios's last 200: 68 MB).
            commit=dataclasses.replace(commit, change=dataclasses.replace(change, patch=None)),
            coverage=coverage,
            scan=scan,
            content=hits,
            decision=decision,
            without_content=without,
            if_full_coverage=self._with_full_coverage(facts),
            rules=thorough_rules(decision, scan, hits, files_above),
        )

    def _with_full_coverage(self, facts: ChangeFacts) -> TierDecision:
        full = dataclasses.replace(facts, test_coverage="full", coverage_evidence="if measured full")
        return decide(full, self.config, None)


def judge_past_coverage(commit: PastCommit) -> CoverageJudgement:
    files = commit.change.files
    code = [f for f in files if classify(f.path) == "code" and f.additions and not f.binary]
    if not code:
        return CoverageJudgement("full", "no changed executable line to cover (no code added or edited)")
    tests = [f.path for f in files if f.status != "deleted" and classify(f.path) == "test"]
    if tests:
        return CoverageJudgement(
            "partial",
            f"no coverage data for a past commit; it changed {len(tests)} test file(s) with the code",
        )
    return CoverageJudgement("none", "no coverage data for a past commit; it changed no test with the code")


def thorough_rules(
    decision: TierDecision, scan: RiskScan, hits: Sequence[ContentHit], files_above: int
) -> tuple[str, ...]:
    """The rules that made a decision THOROUGH, each named once however many files or lines it matched."""
    if decision.tier is not Tier.THOROUGH:
        return ()
    facts = decision.facts
    names = [rule_name(m) for m in (*scan.security, *scan.architecture)]
    names += [f"{h.category} construct: {h.construct}" for h in hits]
    if not names and facts.files_changed > files_above:
        names = [f"large-scope: more than {files_above} files"]
    return tuple(dict.fromkeys(names))


def rule_name(match: PathMatch) -> str:
    """A path rule as the summary groups by it: "architecture pattern 'package.json'"."""
    if match.pattern.startswith("word '"):
        return f"{match.category} rule: {match.pattern}"
    return f"{match.category} pattern '{quote_inline(match.pattern)}'"


def summarise(replayed: Sequence[Replayed], config: Config) -> Summary:
    costs = config.tier_policy.relative_costs
    tiers = Counter(r.decision.tier for r in replayed)
    reasons = Counter(rule for r in replayed for rule in r.rules)
    return Summary(
        commits=len(replayed),
        tiers={tier: tiers.get(tier, 0) for tier in Tier},
        cost=sum(r.decision.relative_cost for r in replayed),
        always_thorough=len(replayed) * costs[Tier.THOROUGH],
        thorough_reasons=tuple(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
        raised_by_content=tuple(r for r in replayed if r.raised_by_content),
        light_if_full_coverage=sum(1 for r in replayed if r.if_full_coverage.tier is Tier.LIGHT),
    )


def _rank(tier: Tier) -> int:
    return list(Tier).index(tier)
