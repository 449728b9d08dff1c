"""`tiergate tier --batch`: JSON Lines in, one decision per line out, in the same order; a line that is
not valid answers `{"error": "..."}` on its own, so output line k always answers input line k.

Every line is read by its schema (`tiergate.tier.batchschema`). No hook reads batch lines, so no
hand-read twin is kept for the schema's import (bench/hook_import_bench.py). The line formats:
docs/judging.md, "Trying the rules".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import field
from pathlib import Path
from typing import Any, TextIO

from tiergate.config.settings import Config, load_config
from tiergate.frozen import frozen
from tiergate.tier.assess import facts_from_paths, risk_paths
from tiergate.tier.batchschema import FilesLine, parse
from tiergate.tier.keywords import LIGHT_KEYWORDS, THOROUGH_KEYWORDS, find_override
from tiergate.tier.policy import ChangeFacts, Coverage, TierPolicy, select_tier
from tiergate.tier.riskpaths import RiskPaths


@frozen
class BatchRules:
    """What a batch decides with: the project's thresholds, keywords and path rules, or the seed's."""

    policy: TierPolicy = field(default_factory=TierPolicy)
    thorough: tuple[str, ...] = THOROUGH_KEYWORDS
    light: tuple[str, ...] = LIGHT_KEYWORDS
    paths: RiskPaths = field(default_factory=RiskPaths)

    @classmethod
    def from_config(cls, config: Config) -> BatchRules:
        return cls(config.tier_policy, config.keywords.thorough, config.keywords.light, risk_paths(config))

    @classmethod
    def for_project(cls, root: Path) -> BatchRules:
        """The rules of the project at `root`: its configuration's, or the seed's."""
        return cls.from_config(load_config(root))


class BadLineError(Exception):
    """The reason one input line cannot be classified."""


def classify_stream(lines: Iterable[str], out: TextIO, rules: BatchRules | None = None) -> None:
    rules = rules or BatchRules()
    write = out.write
    for record in classify_lines(lines, rules):
        write(json.dumps(record) + "\n")


def classify_lines(lines: Iterable[str], rules: BatchRules) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(lines, start=1):
        try:
            yield classify_line(line, rules)
        except BadLineError as exc:
            yield {"error": f"line {number}: {exc}"}


def classify_line(line: str, rules: BatchRules) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise BadLineError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise BadLineError("expected a JSON object")
    facts, prompt = _checked(data, rules)
    override = find_override(prompt, rules.thorough, rules.light)
    return select_tier(facts, rules.policy, override).as_dict() | {
        "files_changed": facts.files_changed,
        "lines_changed": facts.lines_changed,
        "test_coverage": facts.test_coverage,
    }


def _checked(data: dict[str, Any], rules: BatchRules) -> tuple[ChangeFacts, str | None]:
    """The facts and prompt of a line the schema accepts; BadLineError naming what is wrong otherwise."""
    try:
        parsed = parse(data)
    except ValueError as exc:
        raise BadLineError(str(exc)) from None
    if isinstance(parsed, FilesLine):
        facts, _ = facts_from_paths(parsed.files, parsed.lines_changed, parsed.test_coverage, rules.paths)
        return facts, parsed.prompt
    facts = _metadata_facts(
        parsed.files_changed,
        parsed.lines_changed,
        parsed.test_coverage,
        parsed.has_security_implications,
        parsed.has_architectural_changes,
    )
    return facts, parsed.prompt


def _metadata_facts(
    files: int, lines: int, coverage: Coverage, security: bool, architecture: bool
) -> ChangeFacts:
    return ChangeFacts(
        files_changed=files,
        lines_changed=lines,
        test_coverage=coverage,
        has_security_implications=security,
        has_architectural_changes=architecture,
    )
