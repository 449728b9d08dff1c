"""`tiergate demo --keep` ends with the loop's report page, written by `tiergate report` in the example's
project, and the page holds the demo's loop as a real browser shows it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from testing import chromium
from testing.htmldom import parse
from testing.tiergatecli import demo

pytestmark = pytest.mark.browser


def test_the_kept_demo_writes_its_loops_report_and_the_browser_shows_the_loop(tmp_path: Path) -> None:
    result = demo(tmp_path / "tmp", "--keep")

    assert result.returncode == 0, result.stdout + result.stderr
    said = re.search(r"^The loop as a page:\s+(?P<page>/\S+\.html)\s+\(open\s+it in", result.stdout, re.M)
    assert said is not None, result.stdout
    page = Path(said["page"])
    assert page.name == "report.html" and page.parent.name.startswith("statkit-demo-")
    text = parse(chromium.dump_dom(page)).text
    assert "✓ finished Fix statkit's bug: median() is wrong for an even number of values" in text
    assert "claim refuted by the checks" in text
    assert "new failing tests: tests.test_median.MedianTest.test_input_is_left_unchanged" in text
    assert "Intervention: retry" in text
    # The first fix leaves a check failing as at the base: never LIGHT then (issue 20); the second is.
    assert "claim sent to a verifier: tier STANDARD by tiergate:architect-medium (sonnet)" in text
    assert "Why STANDARD: pre-existing-failures: check tests (failing tests: tests" in text
    assert "claim sent to a verifier: tier LIGHT by tiergate:architect-low (haiku)" in text
    assert "Why LIGHT: small-and-tested: 1 file < 5, 5 lines < 100, test coverage full" in text
    assert "verdict ✗ FAIL for v1 by tiergate:architect-medium (sonnet)" in text
    assert "verdict ✓ PASS for v2 by tiergate:architect-low (haiku)" in text
    assert "verifier sent back (redo)" in text and "1 redo (sent back for a better verdict)" in text
    assert "weights, not money): 6x of 40x, 85% less" in text
