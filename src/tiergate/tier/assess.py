"""Assess a change: the one path from "what changed" to "which verifier, and why", for the command
line (`tiergate tier`) and the loop (a claim) alike: the tier a user is shown is the tier a loop uses.

The floors come from the changed paths (`tiergate.tier.riskpaths`) and the changed lines
(`tiergate.tier.content`, unless `[risk] content = false`), each hit a reason naming `file:line`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tiergate.frozen import frozen
from tiergate.tier.change import ChangeMeasurement, FileChange, measure_change
from tiergate.tier.changedlines import ContentScan, judge_change, patch_of
from tiergate.tier.content import ContentHit, ContentRule, Ecosystem
from tiergate.tier.content.testfiles import is_test
from tiergate.tier.coverage.judgement import CoverageJudgement, judge_coverage
from tiergate.tier.coverage.lines import GateCoverage
from tiergate.tier.keywords import find_override
from tiergate.tier.mutation.fates import MutationRun
from tiergate.tier.policy import ChangeFacts, Coverage, TierDecision, select_tier
from tiergate.tier.riskpaths import RiskPaths, RiskScan

if TYPE_CHECKING:
    # pydantic, behind the config models, is imported only where a configuration is actually loaded.
    from tiergate.config.settings import Config
    from tiergate.foreign import Exclusions


@frozen
class Assessment:
    change: ChangeMeasurement
    coverage: CoverageJudgement
    scan: RiskScan
    decision: TierDecision
    content: tuple[ContentHit, ...] = ()  # the changed lines' risky constructs
    content_searched: bool = False  # False when `[risk] content = false`
    # Files a content judge read whole (CI workflows): their changed lines, not their path, decide.
    judged: frozenset[str] = frozenset()
    mutation: MutationRun | None = None  # the changed lines' mutants, as the gate ran them


def risk_paths(config: Config) -> RiskPaths:
    return RiskPaths(extra_security=config.patterns.security, extra_architecture=config.patterns.architecture)


def content_rules(config: Config) -> tuple[Ecosystem, ...]:
    """The ecosystems whose rules read the changed lines: the built-in ones with the configuration's
    `[[risk.rules]]` added (a rule naming no ecosystem goes to `common`, which reads every file); none
    when `[risk] content = false`."""

    from tiergate.tier.content import DEFAULT

    if not config.risk.content:
        return ()
    extra: dict[str, list[ContentRule]] = {}
    for rule in config.risk.rules:
        made = ContentRule(rule.name, rule.pattern, category=rule.category, sides=rule.sides)
        for name in rule.ecosystems or ("common",):
            extra.setdefault(name, []).append(made)
    return tuple(replace(eco, rules=eco.rules + tuple(extra.get(eco.name, ()))) for eco in DEFAULT)


@frozen
class Evidence:
    """What the tier rules read beside the paths: the coverage's evidence, the changed lines' hits, the
    files a content judge read whole (`judged`: their path rules give way), and the tests the change
    edited and the checks failing at the base (both keep it off LIGHT: `tiergate.tier.policy`)."""

    coverage: str = ""
    content: Sequence[ContentHit] = ()
    judged: Collection[str] = ()
    edited_tests: Sequence[str] = ()
    failing_then: Sequence[str] = ()


NO_EVIDENCE = Evidence()


def facts_from_paths(
    paths: Sequence[str],
    lines_changed: int,
    test_coverage: Coverage,
    rules: RiskPaths,
    evidence: Evidence = NO_EVIDENCE,
) -> tuple[ChangeFacts, RiskScan]:
    """The facts the tier rules read: the paths' matches (`RiskPaths.scan`) with the `evidence`."""
    content = evidence.content
    scan = rules.scan(paths, evidence.judged)
    security = [h.describe() for h in content if h.category == "security"]
    architecture = [h.describe() for h in content if h.category == "architecture"]
    facts = ChangeFacts(
        files_changed=len(paths),
        lines_changed=lines_changed,
        test_coverage=test_coverage,
        has_security_implications=bool(scan.security) or bool(security),
        has_architectural_changes=bool(scan.architecture) or bool(architecture),
        security_evidence=(*(m.describe() for m in scan.security), *security),
        architecture_evidence=(*(m.describe() for m in scan.architecture), *architecture),
        coverage_evidence=evidence.coverage,
        edited_tests=tuple(evidence.edited_tests),
        failing_then=tuple(evidence.failing_then),
    )
    return facts, scan


def changed_tests(change: ChangeMeasurement) -> tuple[FileChange, ...]:
    """The change's test files (by name or folder: `is_test`), added ones included."""
    return tuple(f for f in change.files if is_test(f.path) or (f.old_path and is_test(f.old_path)))


def edited_tests(change: ChangeMeasurement) -> tuple[str, ...]:
    """The test files the loop began with whose lines the change removed or rewrote (modified, deleted,
    renamed): tests whose coverage is the change's own evidence. Tests it added leave the old ones as
    they were, in a file of their own or appended to one (a test appended under an old test's name, to
    shadow it, is the base-tests run's to catch: `tiergate.gate.pertest.basetests`)."""
    return tuple(f.path for f in changed_tests(change) if f.mark != "A" and not _only_added_to(f))


def _only_added_to(file: FileChange) -> bool:
    return file.mark == "M" and file.deletions == 0 and not file.binary


def decide(facts: ChangeFacts, config: Config, prompt: str | None) -> TierDecision:
    override = find_override(prompt, config.keywords.thorough, config.keywords.light)
    return select_tier(facts, config.tier_policy, override)


def measure_for(
    root: Path, base: str, config: Config, exclusions: Exclusions | None = None
) -> ChangeMeasurement:
    """The change since `base` as `assess_change` needs it: with its `-U0` patch when content rules are on."""
    chosen = config.exclusions if exclusions is None else exclusions
    return measure_change(root, base, chosen, with_patch=bool(content_rules(config)))


def judge_content(change: ChangeMeasurement, config: Config) -> ContentScan:
    """The content rules' judgement of the change's changed lines (none when they are off)."""
    return judge_change(change, content_rules(config))


@frozen
class Given:
    """What the caller has already, in place of what `assess_change` would measure or judge: the
    coverage level (`--coverage`), other tools' state left out (`exclusions`, else the configuration's),
    the `change` a claim measured before its gate ran, the coverage its gate measured, the content
    judgement as it comes (`content`, asked for once the coverage is judged) and the checks failing at
    the base (`failing_then`)."""

    coverage: Coverage | None = None
    exclusions: Exclusions | None = None
    change: ChangeMeasurement | None = None
    gate_coverage: GateCoverage | None = None
    content: Callable[[], ContentScan] | None = None
    failing_then: Sequence[str] = ()


NOTHING_GIVEN = Given()


def assess_change(
    root: Path,
    base: str = "HEAD",
    prompt: str | None = None,
    config: Config | None = None,
    given: Given = NOTHING_GIVEN,
) -> Assessment:
    """Measure the change since `base` in the repository at `root` and select its tier, with what the
    caller has already (`given`). A loop passes its own exclusions (`tiergate.foreign.of_loop`)."""
    if config is None:
        from tiergate.config.settings import load_config

        config = load_config(root)
    ecosystems = content_rules(config)
    change = given.change if given.change is not None else measure_for(root, base, config, given.exclusions)
    # One diff for both readers of the changed lines: the content rules, and coverage's line numbers.
    patch = patch_of(change) if ecosystems else None
    judgement = (
        CoverageJudgement(level=given.coverage, evidence="given on the command line")
        if given.coverage is not None
        else judge_coverage(change, given.gate_coverage, patch)
    )
    judged = judge_change(change, ecosystems, patch) if given.content is None else given.content()
    evidence = Evidence(
        judgement.evidence, judged.hits, judged.judged, edited_tests(change), given.failing_then
    )
    facts, scan = facts_from_paths(
        change.paths, change.lines_changed, judgement.level, risk_paths(config), evidence
    )
    gate_coverage = given.gate_coverage
    mutation = gate_coverage.mutation if gate_coverage is not None and given.coverage is None else None
    if mutation is not None:
        facts = replace(facts, mutants=mutation.reasons())
    return Assessment(
        change=change,
        coverage=judgement,
        scan=scan,
        decision=decide(facts, config, prompt),
        content=judged.hits,
        content_searched=bool(ecosystems),
        judged=judged.judged,
        mutation=mutation,
    )
