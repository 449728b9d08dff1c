"""`tiergate tier --batch`: JSON Lines in, one decision per line out, in the same order.

A line is either a list of files
(`{"files": [...], "lines_changed": N, "test_coverage": "...", "prompt": "..."}`; `test_coverage` defaults to
"partial", as in the seed) or the seed's change metadata (`{"files_changed": N, "lines_changed": N,
"has_architectural_changes": bool, "has_security_implications": bool, "test_coverage": "..."}`).
A line that is not valid answers `{"error": "..."}` on its own line and the rest go on, so that output line k
always answers input line k.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tiergate.config import Config
from tiergate.measure import decide, facts_from_paths, risk_paths
from tiergate.riskpaths import RiskPaths
from tiergate.tiers import ChangeFacts, Coverage


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    lines_changed: int = Field(ge=0)
    prompt: str | None = None


class FilesLine(_Line):
    files: list[str]
    test_coverage: Coverage = "partial"


class MetadataLine(_Line):
    files_changed: int = Field(ge=0)
    has_architectural_changes: bool
    has_security_implications: bool
    test_coverage: Coverage


def classify_stream(lines: Iterable[str], out: TextIO, config: Config | None = None) -> None:
    config = config or Config()
    rules = risk_paths(config)
    for record in classify_lines(lines, config, rules):
        out.write(json.dumps(record) + "\n")


def classify_lines(lines: Iterable[str], config: Config, rules: RiskPaths) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(lines, start=1):
        try:
            yield classify_line(line, config, rules)
        except _BadLineError as exc:
            yield {"error": f"line {number}: {exc}"}


class _BadLineError(Exception):
    """The reason one input line cannot be classified."""


def classify_line(line: str, config: Config, rules: RiskPaths) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise _BadLineError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise _BadLineError("expected a JSON object")
    try:
        parsed: FilesLine | MetadataLine = (
            FilesLine.model_validate(data) if "files" in data else MetadataLine.model_validate(data)
        )
    except ValidationError as exc:
        raise _BadLineError(_describe(exc)) from None
    facts = _facts(parsed, rules)
    return decide(facts, config, parsed.prompt).as_dict() | {
        "files_changed": facts.files_changed,
        "lines_changed": facts.lines_changed,
        "test_coverage": facts.test_coverage,
    }


def _facts(parsed: FilesLine | MetadataLine, rules: RiskPaths) -> ChangeFacts:
    if isinstance(parsed, FilesLine):
        facts, _ = facts_from_paths(parsed.files, parsed.lines_changed, parsed.test_coverage, rules)
        return facts
    return ChangeFacts(
        files_changed=parsed.files_changed,
        lines_changed=parsed.lines_changed,
        test_coverage=parsed.test_coverage,
        has_security_implications=parsed.has_security_implications,
        has_architectural_changes=parsed.has_architectural_changes,
    )


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        key = ".".join(str(p) for p in error["loc"]) or "(line)"
        message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
        parts.append(f"{key}: {message}")
    return "; ".join(parts)
