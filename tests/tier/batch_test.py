"""The batch's hand-checked fast path never disagrees with its schema, and spares pydantic when it can."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tiergate.tier.batch import BadLineError, BatchRules, _checked, _fast, classify_line

RULES = BatchRules()

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=300),
    st.floats(allow_nan=False, max_value=1e3, min_value=-1e3),
    st.sampled_from(["none", "partial", "full", "complete", "", "quick fix", "5"]),
    st.lists(st.sampled_from(["src/a.py", "auth/x.py", "package.json", 3]), max_size=4),
)
keys = st.sampled_from(
    [
        "files",
        "lines_changed",
        "test_coverage",
        "prompt",
        "files_changed",
        "has_architectural_changes",
        "has_security_implications",
        "extra",
    ]
)


def outcome(fn: Any, data: dict[str, Any]) -> Any:
    try:
        return fn(data, RULES)
    except BadLineError:
        return "error"


@settings(max_examples=600)
@given(st.dictionaries(keys, values, max_size=7))
def test_the_fast_path_accepts_only_what_the_schema_accepts_and_decides_alike(data: dict[str, Any]) -> None:
    fast = _fast(data, RULES)
    if fast is not None:
        assert outcome(_checked, data) == fast


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
def test_common_lines_take_the_fast_path(line: dict[str, Any]) -> None:
    assert _fast(line, RULES) is not None


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
def test_odd_lines_go_to_the_schema_which_words_the_error(line: dict[str, Any]) -> None:
    assert _fast(line, RULES) is None
    with pytest.raises(BadLineError):
        classify_line(json.dumps(line), RULES)


def test_a_batch_without_configuration_never_imports_pydantic(tmp_path: Path) -> None:
    code = (
        "import sys, io; from tiergate.main import main; "
        "sys.stdin = io.StringIO(sys.argv[1]); rc = main(['tier', '--batch']); "
        "print('PYDANTIC' if 'pydantic' in sys.modules else 'LEAN', file=sys.stderr); sys.exit(rc)"
    )
    line = json.dumps({"files": ["auth/login.py"], "lines_changed": 2, "test_coverage": "full"})
    result = subprocess.run(
        [sys.executable, "-c", code, line + "\n"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "LEAN"
    assert json.loads(result.stdout)["tier"] == "THOROUGH"


def test_a_project_configuration_applies_to_the_batch(tmp_path: Path) -> None:
    (tmp_path / ".tiergate.toml").write_text('[patterns]\nsecurity = ["billing/**"]\n')
    rules = BatchRules.for_project(tmp_path)
    record = classify_line(json.dumps({"files": ["billing/charge.py"], "lines_changed": 1}), rules)
    assert record["tier"] == "THOROUGH"
    assert "billing/**" in record["reasons"][0]
