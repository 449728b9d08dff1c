"""V8's block ranges as lines, and the gate's coverage record as it is kept with the evidence."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tiergate.tier.coverage.lines import CoverageData, FileLines, GateCoverage, v8_file_lines

SOURCE = (
    "function add(a, b) {\n"  # 1
    "  return a + b;\n"  # 2
    "}\n"  # 3
    "\n"  # 4
    "// never called\n"  # 5
    "function div(a, b) {\n"  # 6
    "  if (b === 0) {\n"  # 7
    "    throw new Error('zero');\n"  # 8
    "  }\n"  # 9
    "  return a / b;\n"  # 10
    "}\n"  # 11
)


def offset(line: int, column: int = 0) -> int:
    return sum(len(text) + 1 for text in SOURCE.split("\n")[: line - 1]) + column


def test_the_innermost_range_decides_whether_a_line_ran() -> None:
    functions = [
        {"ranges": [{"startOffset": 0, "endOffset": len(SOURCE), "count": 1}]},  # the script
        {"ranges": [{"startOffset": offset(1), "endOffset": offset(3, 1), "count": 2}]},  # add, called
        {  # div, called once, its zero branch never taken
            "ranges": [
                {"startOffset": offset(6), "endOffset": offset(11, 1), "count": 1},
                {"startOffset": offset(7, 15), "endOffset": offset(9, 3), "count": 0},
            ]
        },
    ]

    lines = v8_file_lines(SOURCE, functions)

    # Blank lines, comments and lines of closing brackets only are not executable.
    assert lines.executable == {1, 2, 6, 7, 8, 10}
    assert lines.hit == {1, 2, 6, 7, 10}


def test_a_function_never_called_leaves_its_lines_not_run() -> None:
    functions = [
        {"ranges": [{"startOffset": 0, "endOffset": len(SOURCE), "count": 1}]},
        {"ranges": [{"startOffset": offset(6), "endOffset": offset(11, 1), "count": 0}]},
    ]

    assert v8_file_lines(SOURCE, functions).hit == {1, 2}


ELSE_IF = """\
function size(text) {
  if (text.length === 0) {
    return 'empty';
  } else if (text.length < 42) {
    return 'short';
  }
  return 'long';
}
size('abc');
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_a_line_that_closes_a_block_never_run_ran_when_its_code_did(tmp_path: Path) -> None:
    script = tmp_path / "size.js"
    script.write_text(ELSE_IF)
    subprocess.run(["node", str(script)], env={**os.environ, "NODE_V8_COVERAGE": str(tmp_path)}, check=True)
    [report] = [json.loads(p.read_text()) for p in tmp_path.glob("coverage-*.json")]
    [functions] = [s["functions"] for s in report["result"] if s["url"] == script.as_uri()]

    lines = v8_file_lines(ELSE_IF, functions)

    # V8's block of the empty branch runs to its `}`, never run; the `else if` after it ran.
    assert lines.hit == {1, 2, 4, 5, 9}
    assert lines.executable == {1, 2, 3, 4, 5, 7, 9}


def test_offsets_count_utf16_units() -> None:
    source = "const s = '\U0001f600';\nfoo();\n"
    second = len("const s = '\U0001f600';") + 1 + 1  # the emoji is two UTF-16 units
    functions = [
        {"ranges": [{"startOffset": 0, "endOffset": 40, "count": 1}]},
        {"ranges": [{"startOffset": second, "endOffset": 40, "count": 0}]},
    ]

    assert v8_file_lines(source, functions) == FileLines(frozenset({1, 2}), frozenset({1}))


def test_the_record_reads_back_as_written() -> None:
    lines = FileLines(frozenset({1, 2, 5}), frozenset({1, 5}))
    kept = GateCoverage(
        ("calc.py",),
        (
            CoverageData(
                "check `tests` (tiergate line probes)",
                "Python line coverage, measured at the gate",
                {"calc.py": lines},
            ),
        ),
        ("check `lint`: not a test runner",),
    )

    assert GateCoverage.from_record(kept.to_record()) == kept


def test_a_record_claiming_data_from_a_file_format_is_not_the_gates() -> None:
    record = GateCoverage(("calc.py",)).to_record()
    record["measured"] = [{"source": "coverage.json", "format": "coverage.py JSON", "files": {}}]

    with pytest.raises(ValueError, match="not a format of the gate"):
        GateCoverage.from_record(record)
