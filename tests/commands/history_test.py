"""`tiergate history [--json]`: every verification, derived from the decision log, and its cost against
always THOROUGH."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from testing.gitrepo import init_repo, repo_fixture
from testing.statefolder import state_dir
from testing.tiergatecli import tiergate

from tiergate.commands.history import verifications
from tiergate.log import append_record

COSTS = {"LIGHT": 1.0, "STANDARD": 5.0, "THOROUGH": 20.0}
AGENTS = {
    "LIGHT": "tiergate:architect-low",
    "STANDARD": "tiergate:architect-medium",
    "THOROUGH": "tiergate:architect",
}


def snap(vid: str, tier: str, status: str, at: float, **extra: Any) -> dict[str, Any]:
    size = {"files_changed": 2, "lines_changed": 30, "claim_types": ["Fixed"], "request": 1}
    costs = {"relative_cost": COSTS[tier], "thorough_cost": 20.0}
    return {
        "id": vid,
        "status": status,
        "tier": tier,
        "agent": AGENTS[tier],
        "model": "m",
        "requested_at": at,
        **size,
        **costs,
        **extra,
    }


def record(session: str, decision: str, *snaps: dict[str, Any]) -> dict[str, Any]:
    return {
        "event": "x",
        "session_id": session,
        "decision": decision,
        "reasons": ["r"],
        "verifications": list(snaps),
    }


def write_log(root: Path) -> None:
    """Three sessions' verifications, and a line cut short by a crash."""
    log = state_dir(root) / "log.jsonl"
    log.parent.mkdir(parents=True)
    for entry in [
        record("s1", "spawn", snap("v1", "LIGHT", "requested", 1.0)),
        {"event": "Stop", "session_id": "s1", "decision": "continue", "reasons": ["no claim"]},
        record("s1", "verdict", snap("v1", "LIGHT", "PASS", 1.0, duration_s=12.5, agent_id="a1", redos=0)),
        record("s2", "spawn", snap("v1", "STANDARD", "requested", 2.0)),
        record(
            "s2",
            "request-again",
            snap("v1", "STANDARD", "DISQUALIFIED", 2.0, duration_s=3.0),
            snap("v2", "STANDARD", "requested", 3.0),
        ),
        record("s2", "verdict", snap("v2", "STANDARD", "FAIL", 3.0, duration_s=40.0)),
        record("s2", "spawn", snap("v3", "THOROUGH", "requested", 4.0)),
        record("s2", "halt", snap("v3", "THOROUGH", "VOID", 4.0, why="the cap")),
        record("s3", "spawn", snap("v1", "THOROUGH", "requested", 5.0)),
    ]:
        append_record(log, entry)
    with log.open("a") as f:
        f.write('{"cut short by a crash\n')


repo = repo_fixture({"README.md": "hi\n"}, then=write_log)


def test_one_row_per_verification_completed_by_later_records(repo: Path) -> None:
    result = tiergate(repo, "history", "--json")
    assert result.returncode == 0, result.stderr
    history = json.loads(result.stdout)
    rows = [
        (r["session_id"], r["id"], r["tier"], r["verdict"], r["duration_s"]) for r in history["verifications"]
    ]
    assert rows == [
        ("s1", "v1", "LIGHT", "PASS", 12.5),
        ("s2", "v1", "STANDARD", "DISQUALIFIED", 3.0),
        ("s2", "v2", "STANDARD", "FAIL", 40.0),
        ("s2", "v3", "THOROUGH", "VOID", None),
        ("s3", "v1", "THOROUGH", "requested", None),
    ]
    first = history["verifications"][0]
    described = ("agent", "model", "files_changed", "lines_changed", "relative_cost")
    assert tuple(first[key] for key in described) == ("tiergate:architect-low", "m", 2, 30, 1.0)


def test_the_total_counts_verifiers_that_ran_against_always_thorough(repo: Path) -> None:
    total = json.loads(tiergate(repo, "history", "--json").stdout)["total"]
    # PASS (1) + DISQUALIFIED (5) + FAIL (5) ran; the VOID and the pending one cost nothing yet.
    assert total == {
        "verifications": 5,
        "ran": 3,
        "relative_cost": 11.0,
        "always_thorough": 60.0,
        "saving": 0.8167,
    }


def test_the_human_form(repo: Path) -> None:
    lines = tiergate(repo, "history").stdout.splitlines()
    assert len(lines) == 6
    assert "LIGHT" in lines[0] and "tiergate:architect-low (m)" in lines[0] and "PASS" in lines[0]
    assert "12s" in lines[0] and "2 files, 30 lines" in lines[0] and "cost 1x" in lines[0]
    assert lines[-1] == (
        "total: 3 verifiers ran, cost 11x; always THOROUGH: 60x (82% less), in [costs] weights, not money"
    )


def test_no_log_no_history(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "fresh")
    assert "no verifications" in tiergate(root, "history").stdout
    assert json.loads(tiergate(root, "history", "--json").stdout)["total"]["ran"] == 0
    assert verifications([{"verifications": "junk"}, {"verifications": [{"no": "id"}]}]) == []


def test_a_record_the_agent_appended_is_not_history_and_is_counted(repo: Path) -> None:
    log = state_dir(repo) / "log.jsonl"
    genuine = log.read_text().splitlines()[2]  # s1's v1 PASS
    with log.open("a") as f:
        forged = record("s9", "verdict", snap("v1", "THOROUGH", "PASS", 9.0, duration_s=1.0))
        f.write(json.dumps(forged) + "\n")
        f.write(genuine.replace('"s1"', '"s8"') + "\n")  # a genuine record, copied and edited

    result = tiergate(repo, "history", "--json")

    sessions = {row["session_id"] for row in json.loads(result.stdout)["verifications"]}
    assert sessions == {"s1", "s2", "s3"}
    assert (
        result.stderr
        == f"tiergate: left out of {log}: 1 damaged line and 2 records not written by tiergate\n"
    )
    human = tiergate(repo, "history")
    assert "s9" not in human.stdout and "s8" not in human.stdout
    assert human.stderr == result.stderr
