"""`tiergate tier --batch`: JSON Lines in, one decision per line out, in the same order; a line that is
not valid answers `{"error": "..."}` on its own, so output line k always answers input line k.

The schema is `tiergate.tier.batchschema` (pydantic). Throughput is a goal (200,000 paths/s) and
importing pydantic alone costs 0.15 s, so exactly-typed lines, the common case, are taken by a hand check
that accepts a subset of what the schema accepts; anything else goes to the schema. The line formats:
docs/judging.md, "Trying the rules".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tiergate.frozen import frozen
from tiergate.tier.assess import facts_from_paths
from tiergate.tier.keywords import LIGHT_KEYWORDS, THOROUGH_KEYWORDS, find_override
from tiergate.tier.policy import COVERAGE_LEVELS, ChangeFacts, Coverage, TierPolicy, select_tier
from tiergate.tier.riskpaths import RiskPaths

if TYPE_CHECKING:
    from tiergate.config.settings import Config


@frozen
class BatchRules:
    """What a batch decides with: the project's thresholds, keywords and path rules, or the seed's."""

    policy: TierPolicy = field(default_factory=TierPolicy)
    thorough: tuple[str, ...] = THOROUGH_KEYWORDS
    light: tuple[str, ...] = LIGHT_KEYWORDS
    paths: RiskPaths = field(default_factory=RiskPaths)

    @classmethod
    def from_config(cls, config: Config) -> BatchRules:
        from tiergate.tier.assess import risk_paths

        return cls(config.tier_policy, config.keywords.thorough, config.keywords.light, risk_paths(config))

    @classmethod
    def for_project(cls, root: Path) -> BatchRules:
        """The rules of the project at `root`; pydantic is imported only if it has a configuration."""
        from tiergate.config.file import read_table

        found = read_table(root)
        if found is None:
            return cls()
        from tiergate.config.settings import validate_table

        return cls.from_config(validate_table(*found))


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
    facts, prompt = _fast(data, rules) or _checked(data, rules)
    override = find_override(prompt, rules.thorough, rules.light)
    return select_tier(facts, rules.policy, override).as_dict() | {
        "files_changed": facts.files_changed,
        "lines_changed": facts.lines_changed,
        "test_coverage": facts.test_coverage,
    }


_FILES_KEYS = frozenset({"files", "lines_changed", "test_coverage", "prompt"})
_METADATA_KEYS = frozenset(
    {
        "files_changed",
        "lines_changed",
        "has_architectural_changes",
        "has_security_implications",
        "test_coverage",
        "prompt",
    }
)
_METADATA_REQUIRED = _METADATA_KEYS - {"prompt"}


def _fast(data: dict[str, Any], rules: BatchRules) -> tuple[ChangeFacts, str | None] | None:
    """The facts of an exactly-typed line, or None to let the schema decide."""
    prompt = data.get("prompt")
    lines = data.get("lines_changed")
    coverage = data.get("test_coverage", "partial")
    if not (
        (prompt is None or type(prompt) is str)
        and type(lines) is int
        and lines >= 0
        and coverage in COVERAGE_LEVELS
    ):
        return None
    if "files" in data:
        files = data["files"]
        if data.keys() <= _FILES_KEYS and type(files) is list and all(type(f) is str for f in files):
            facts, _ = facts_from_paths(files, lines, coverage, rules.paths)
            return facts, prompt
        return None
    if not (data.keys() <= _METADATA_KEYS and data.keys() >= _METADATA_REQUIRED):
        return None
    files_changed = data["files_changed"]
    security, architecture = data["has_security_implications"], data["has_architectural_changes"]
    if (
        type(files_changed) is int
        and files_changed >= 0
        and type(security) is bool
        and type(architecture) is bool
    ):
        return _metadata_facts(files_changed, lines, coverage, security, architecture), prompt
    return None


def _checked(data: dict[str, Any], rules: BatchRules) -> tuple[ChangeFacts, str | None]:
    from tiergate.tier.batchschema import FilesLine, parse

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
