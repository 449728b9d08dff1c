"""The caches keep check results without the credentials a check printed, in files only the user reads."""

from __future__ import annotations

from pathlib import Path

from testing.statefolder import state_dir

from tiergate.gate import cache
from tiergate.gate.checks import CheckResult
from tiergate.gate.ruling import BaselineEntry
from tiergate.project import Project

AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"  # made up, in the format of an AWS access key id
BASE = "a" * 40


def result(output: str) -> CheckResult:
    return CheckResult(
        "tests", "sh check.sh", "tests", 1, "failed", 1, 0.1, output, len(output), f"exit 1 {AWS_ID}"
    )


def test_evidence_and_baseline_are_kept_redacted_and_0600(tmp_path: Path) -> None:
    project = Project(tmp_path, state_dir(tmp_path))
    printed = result(f"E   env AWS_ACCESS_KEY_ID={AWS_ID}\nFAILED test_x")

    cache.store_evidence(project, "k" * 64, [printed])
    cache.store_baseline(project, BASE, {"tests": BaselineEntry(printed, "worktree")})

    (kept,) = cache.load_evidence(project, "k" * 64) or ()
    assert kept.output == "E   env AWS_ACCESS_KEY_ID=AKIA[redacted: aws access key id]\nFAILED test_x"
    assert kept.reason == "exit 1 AKIA[redacted: aws access key id]"
    assert cache.load_baseline(project, BASE)["tests"].result == kept
    for path in (cache.evidence_path(project, "k" * 64), cache.baseline_path(project, BASE)):
        assert AWS_ID not in path.read_text()
        assert path.stat().st_mode & 0o777 == 0o600
    assert project.state_dir.stat().st_mode & 0o777 == 0o700
