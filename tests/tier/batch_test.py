"""The batch reads each line by its schema, and applies the project's configuration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tiergate.tier.batch import BadLineError, BatchRules, classify_line

RULES = BatchRules()


@pytest.mark.parametrize(
    "line",
    [
        {"files": ["src/a.py"], "lines_changed": 3, "test_coverage": "full"},
        {"files": ["src/a.py"], "lines_changed": 3},
        {
            "files_changed": 3,
            "lines_changed": 9,
            "has_architectural_changes": False,
            "has_security_implications": True,
            "test_coverage": "none",
            "prompt": "quick",
        },
    ],
)
def test_common_lines_are_decided(line: dict[str, Any]) -> None:
    assert classify_line(json.dumps(line), RULES)["tier"] in {"LIGHT", "STANDARD", "THOROUGH"}


@pytest.mark.parametrize(
    "line",
    [
        {"files": ["src/a.py"], "lines_changed": True},
        {"files": ["src/a.py"], "lines_changed": 3, "surprise": 1},
        {"files": "src/a.py", "lines_changed": 3},
        {
            "files_changed": 3,
            "lines_changed": 9,
            "has_architectural_changes": 0,
            "has_security_implications": False,
            "test_coverage": "none",
        },
    ],
)
def test_the_schema_words_what_is_wrong_with_a_line(line: dict[str, Any]) -> None:
    with pytest.raises(BadLineError):
        classify_line(json.dumps(line), RULES)


def test_a_project_configuration_applies_to_the_batch(tmp_path: Path) -> None:
    (tmp_path / ".tiergate.toml").write_text('[patterns]\nsecurity = ["billing/**"]\n')
    rules = BatchRules.for_project(tmp_path)
    record = classify_line(json.dumps({"files": ["billing/charge.py"], "lines_changed": 1}), rules)
    assert record["tier"] == "THOROUGH"
    assert "billing/**" in record["reasons"][0]
