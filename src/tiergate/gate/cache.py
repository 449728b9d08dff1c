"""Check results kept on disk: fresh evidence per workspace state, and the baseline per base commit.

Any edit makes another evidence key, so stale results are never found; files are written atomically,
redacted and sealed, and one that is not as tiergate wrote it reads as a miss, never as an excuse.
See docs/judging.md, "Kept results".
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from tiergate import seal
from tiergate.gate.checks import Check, CheckResult, signature
from tiergate.gate.pertest.record import TestRun
from tiergate.gate.standing import BaselineEntry
from tiergate.project import Project, ensure_state_dir, keep_newest, open_sealed, write_sealed
from tiergate.redact import redact
from tiergate.tier.coverage.lines import GateCoverage

EVIDENCE_DIR = "evidence"
BASELINE_DIR = "baseline"
KEEP_EVIDENCE = 50
# 2: a check result carries its tests (`tiergate.gate.pertest.record`); files of 1 read as a miss.
SCHEMA = 2
_RESULT_FIELDS = tuple(f.name for f in fields(CheckResult))
_WHERE = ("workspace", "worktree")


def evidence_key(fingerprint: str, base: str, checks: Sequence[Check], timeout: float) -> str:
    text = f"{SCHEMA}\0{fingerprint}\0{base}\0{signature(list(checks))}\0{timeout!r}"
    return hashlib.sha256(text.encode()).hexdigest()


def evidence_path(project: Project, key: str) -> Path:
    return project.state_dir / EVIDENCE_DIR / f"{key}.json"


def load_evidence_and_coverage(
    project: Project, key: str
) -> tuple[tuple[CheckResult, ...], GateCoverage | None] | None:
    """The kept results, with the coverage the gate measured on that run (None: it measured none)."""
    path = evidence_path(project, key)
    data = _read_json(project, path)
    if data is None:
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("key") != key:
        _rejected(project, path, "it is not this key's results")
        return None
    try:
        results = tuple(_result(item) for item in data["results"])
    except (KeyError, TypeError, ValueError):
        _rejected(project, path, "it holds something that is not a check result")
        return None
    try:
        coverage = data.get("coverage")
        return results, None if coverage is None else GateCoverage.from_record(coverage)
    except (KeyError, TypeError, ValueError):
        _rejected(project, path, "its coverage is not the gate's measurement")
        return None


def store_evidence(
    project: Project,
    key: str,
    results: Sequence[CheckResult],
    now: float | None = None,
    coverage: GateCoverage | None = None,
) -> None:
    """Keep `results` (and the coverage measured with them) for the workspace state `key` names."""
    ensure_state_dir(project)
    path = evidence_path(project, key)
    record: dict[str, Any] = {
        "schema": SCHEMA,
        "key": key,
        "recorded_at": time.time() if now is None else now,
        "results": [_kept(r) for r in results],
    }
    if coverage is not None:
        record["coverage"] = coverage.to_record()
    write_sealed(project, path, json.dumps(record, indent=1).encode())
    keep_newest(path.parent, KEEP_EVIDENCE)  # a workspace state long gone rarely comes back


def baseline_path(project: Project, base: str) -> Path:
    if not base or not all(c in "0123456789abcdef" for c in base):
        raise ValueError(f"not a commit id: {base!r}")
    return project.state_dir / BASELINE_DIR / f"{base}.json"


def load_baseline(project: Project, base: str) -> dict[str, BaselineEntry]:
    """The baseline results recorded for `base`, by check key (empty if none)."""
    path = baseline_path(project, base)
    data = _read_json(project, path)
    if data is None:
        return {}
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("checks"), dict):
        _rejected(project, path, "it is not a baseline")
        return {}
    entries: dict[str, BaselineEntry] = {}
    for key, item in data["checks"].items():
        with contextlib.suppress(KeyError, TypeError, ValueError):
            if item["where"] in _WHERE:
                entries[key] = BaselineEntry(_result(item["result"]), item["where"])
    return entries


def store_baseline(
    project: Project, base: str, entries: Mapping[str, BaselineEntry]
) -> dict[str, BaselineEntry]:
    """Add `entries` to the baseline of `base` (they replace earlier ones for the same checks)."""
    ensure_state_dir(project)
    merged = {**load_baseline(project, base), **entries}
    record = {
        "schema": SCHEMA,
        "base": base,
        "checks": {key: {"where": e.where, "result": _kept(e.result)} for key, e in merged.items()},
    }
    write_sealed(project, baseline_path(project, base), json.dumps(record, indent=1).encode())
    return merged


def _kept(result: CheckResult) -> dict[str, Any]:
    """A result as it is kept: credentials in its output and reason redacted (`tiergate.redact`)."""
    tests = None if result.tests is None else result.tests.to_record()
    kept = {**asdict(result), "output": redact(result.output), "reason": redact(result.reason)}
    return {**kept, "tests": tests}


def _read_json(project: Project, path: Path) -> Any:
    """The file's JSON when it is sealed as tiergate wrote it; None (a miss) otherwise, logged."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        _rejected(project, path, f"it cannot be read ({exc})")
        return None
    try:
        return json.loads(open_sealed(project, path, raw))
    except seal.SealError as exc:
        _rejected(project, path, str(exc))
        return None
    except ValueError:
        _rejected(project, path, "it is not JSON")
        return None


def _rejected(project: Project, path: Path, why: str) -> None:
    """Log a cache file that is not evidence; it reads as a miss (the checks run again)."""
    from tiergate.log import record_rejected

    record_rejected(project, "cache_rejected", path, why)


def _result(item: Any) -> CheckResult:
    if not isinstance(item, dict) or set(item) != set(_RESULT_FIELDS):
        raise ValueError("not a check result")
    tests, outside = item["tests"], item["read_outside"]
    if not isinstance(outside, list) or not all(isinstance(r, str) for r in outside):
        raise ValueError("not a check result")
    tests = None if tests is None else TestRun.from_record(tests)
    result = CheckResult(**{**item, "tests": tests, "read_outside": tuple(outside)})
    if not isinstance(result.output, str) or not isinstance(result.name, str):
        raise ValueError("not a check result")
    return result
