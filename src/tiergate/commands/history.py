"""`tiergate history [--json]`: every verification of this project, derived from the decision log.

Each row: the session, the verification id, its tier, agent and model, its verdict, the change size, how
long the verifier ran and its relative cost; then the total, against always THOROUGH (only verifiers that
ran count). Only records whose seal holds count; what was left out is one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from tiergate.log import read_log
from tiergate.project import locate
from tiergate.text import plural

RAN = frozenset({"PASS", "FAIL", "INCOMPLETE", "DISQUALIFIED"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help='print {"verifications": [...], "total": {...}}')


def run(args: argparse.Namespace) -> int:
    project = locate(Path.cwd(), os.environ)
    records = read_log(project)
    rows = verifications(records)
    totals = total(rows)
    if records.left_out():
        # Lines cut short, and records tiergate did not write (an agent's line claiming a PASS): not
        # history, and said so on stderr, where the --json form's reader does not parse it.
        print(records.left_out(), file=sys.stderr)
    if args.json:
        print(json.dumps({"verifications": rows, "total": totals}, indent=2))
        return 0
    if not rows:
        print(f"tiergate: no verifications in {project.root} yet")
        return 0
    for row in rows:
        print(line(row))
    print(total_line(totals))
    return 0


def verifications(records: Any) -> list[dict[str, Any]]:
    """One row per verification, in the order they were requested; later snapshots complete earlier ones."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        snapshots = record.get("verifications")
        if not isinstance(snapshots, list):
            continue
        for snap in snapshots:
            if not isinstance(snap, dict) or "id" not in snap:
                continue
            key = (str(record.get("session_id", "")), str(snap["id"]))
            row = rows.setdefault(key, {"session_id": key[0]})
            row.update(snap)
            row["verdict"] = snap.get("status")
            row["updated"] = record.get("timestamp")
    return [_clean(row) for row in sorted(rows.values(), key=lambda r: r.get("requested_at") or 0)]


def _clean(row: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "session_id", "id", "tier", "agent", "model", "verdict", "claim_types", "files_changed",
        "lines_changed", "duration_s", "relative_cost", "thorough_cost", "redos", "request", "requested_at",
        "ran_on", "why",
    )  # fmt: skip
    return {key: row.get(key) for key in keys}


def total(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ran = [row for row in rows if row["verdict"] in RAN]
    cost = sum(float(row["relative_cost"] or 0) for row in ran)
    thorough = sum(float(row["thorough_cost"] or 0) for row in ran)
    return {
        "verifications": len(rows),
        "ran": len(ran),
        "relative_cost": cost,
        "always_thorough": thorough,
        "saving": None if not thorough else round(1 - cost / thorough, 4),
    }


def line(row: dict[str, Any]) -> str:
    duration = "-" if row["duration_s"] is None else f"{row['duration_s']:.0f}s"
    return (
        f"{row['session_id'][:12]:12}  {row['id']:4}  {row['tier']:8}  {row['agent']} ({row['model']})  "
        f"{row['verdict']:12}  {plural(row['files_changed'], 'file')}, "
        f"{plural(row['lines_changed'], 'line')}  {duration}  "
        f"cost {row['relative_cost']:g}x"
    )


def total_line(summary: dict[str, Any]) -> str:
    if not summary["ran"]:
        return f"total: {plural(summary['verifications'], 'verification')}, none ran a verifier yet"
    saving = f"{summary['saving'] * 100:.0f}% less" if summary["saving"] is not None else "n/a"
    return (
        f"total: {plural(summary['ran'], 'verifier')} ran, cost {summary['relative_cost']:g}x; "
        f"always THOROUGH: {summary['always_thorough']:g}x ({saving}), in [costs] weights, not money"
    )
