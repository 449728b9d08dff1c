"""The caches keep check results without the credentials a check printed, in files only the user reads."""

from __future__ import annotations

from pathlib import Path

from testing.statefolder import state_dir

from tiergate.gate import cache
from tiergate.gate.checks import CheckResult
from tiergate.gate.standing import BaselineEntry
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

    (kept,), _ = cache.load_evidence_and_coverage(project, "k" * 64) or ((), None)
    assert kept.output == "E   env AWS_ACCESS_KEY_ID=AKIA[redacted: aws access key id]\nFAILED test_x"
    assert kept.reason == "exit 1 AKIA[redacted: aws access key id]"
    assert cache.load_baseline(project, BASE)["tests"].result == kept
    for path in (cache.evidence_path(project, "k" * 64), cache.baseline_path(project, BASE)):
        assert AWS_ID not in path.read_text()
        assert path.stat().st_mode & 0o777 == 0o600
    assert project.state_dir.stat().st_mode & 0o777 == 0o700


def rejected(project: Project) -> list[dict[str, object]]:
    from tiergate.log import read_log

    return [r for r in read_log(project) if r.get("event") == "cache_rejected"]


def test_a_cache_file_edited_or_copied_is_a_miss_and_is_logged(tmp_path: Path) -> None:
    project = Project(tmp_path, tmp_path / ".tiergate")
    cache.store_evidence(project, "k" * 64, [result("FAILED test_x")])
    cache.store_baseline(project, BASE, {"tests": BaselineEntry(result("FAILED test_x"), "worktree")})
    evidence, baseline = cache.evidence_path(project, "k" * 64), cache.baseline_path(project, BASE)
    evidence.write_text(evidence.read_text().replace('"failed"', '"passed"'))
    other = cache.baseline_path(project, "b" * 40)
    other.write_bytes(baseline.read_bytes())  # a genuine file under another base's name

    assert cache.load_evidence_and_coverage(project, "k" * 64) is None
    assert cache.load_baseline(project, "b" * 40) == {}
    assert cache.load_baseline(project, BASE)["tests"].result.status == "failed"  # the genuine one reads
    assert [(r["file"], r["reason"]) for r in rejected(project)] == [
        (f"evidence/{'k' * 64}.json", "its seal does not match its contents"),
        (f"baseline/{'b' * 40}.json", "its seal does not match its contents"),
    ]


def test_an_unsealed_baseline_from_an_older_version_is_a_miss(tmp_path: Path) -> None:
    project = Project(tmp_path, tmp_path / ".tiergate")
    path = cache.baseline_path(project, BASE)
    path.parent.mkdir(parents=True)
    path.write_text('{"schema": 1, "base": "' + BASE + '", "checks": {}}')

    assert cache.load_baseline(project, BASE) == {}
    assert [r["reason"] for r in rejected(project)] == ["it carries no seal"]
