"""`tiergate status [--json]`: where each loop of this project stands, read from the state files.

`--json`: one object per loop (`describe`; `"pending": true` for one waiting for a session), with the
claim's checks running in the background for its session; a damaged loop file is `"phase": "damaged"`
(`damage`), not an error. The text form adds the other loop plugins (docs/troubleshooting.md).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from tiergate.claudecode import loopplugins
from tiergate.gate import background
from tiergate.gate.atclaim import running_text
from tiergate.loop import store as state
from tiergate.loop.adoption import name_of
from tiergate.loop.features import standings
from tiergate.loop.state import LoopState
from tiergate.loop.store import Damaged
from tiergate.project import Project, locate
from tiergate.text import brief


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list, one object per loop")


def run(args: argparse.Namespace) -> int:
    project = locate(Path.cwd(), os.environ)
    found, damaged = state.survey(project)
    checks = _background(project)
    loops = [{**describe(s), "background_checks": _mine(checks, s.session_id)} for s in found]
    try:
        pending = state.read_pending(project)
    except state.StateError:  # damaged since the survey: reported with the others
        pending = None
    if pending is not None:
        loops.append(describe(pending, pending=True))
    if args.json:
        print(json.dumps([*loops, *(damage(d) for d in damaged)], indent=2))
        return 0
    if not loops and not damaged:
        print(f"tiergate: no loops in {project.root}")
    for entry in loops:
        print(line(entry))
    for problem in damaged:
        # The file's own problem already says to run `tiergate cancel`.
        who = "pending (next session)" if problem.session_id is None else f"session {problem.session_id}"
        print(f"{who}  damaged: {problem.problem}")

    for neighbour in loopplugins.lines(project, os.environ):
        print(f"other loops: {neighbour}")
    return 0


def describe(loop: LoopState, *, pending: bool = False) -> dict[str, Any]:
    verification = loop.verification
    return {
        "session_id": None if pending else loop.session_id,
        "pending": pending,
        "active": loop.active,
        "phase": loop.phase,
        "iteration": loop.iteration,
        "max_iterations": loop.max_iterations,
        "tier": loop.tier,
        "verdict": loop.verdict,
        "task": loop.task,
        "features": _features(loop),
        "promise": loop.promise,
        # The user's own loop this one adopted ("ralph-loop", "omc-ralph", "omc-autopilot"), else None.
        "adopted": loop.adopted,
        "base": loop.base,
        # The workspace the loop began on when it had uncommitted or untracked changes (its change is
        # measured from it), else None.
        "start": loop.start,
        "started_at": loop.started_at,
        "ended_at": loop.ended_at,
        "end_reason": loop.end_reason,
        # The rules the loop runs with: kept at its start (None: a loop from before they were kept,
        # which reads the project's configuration at each decision).
        "config_source": loop.config_source,
        "config": loop.config,
        "verification": None
        if verification is None
        else {
            "id": verification.id,
            "tier": verification.tier,
            "agent": verification.agent,
            "model": verification.model,
            "verifiers_started": len(verification.runs),
        },
    }


def _background(project: Project) -> dict[str, Any] | None:
    """The claim's checks running in the background (`tiergate.gate.background`), as status shows them:
    None when none runs."""
    job = background.status(project)
    if job is None or job.over:
        return None
    return {
        "session_id": job.session_id,
        "state": job.state,
        "phase": job.phase,
        "started": job.started,
        "base_seconds": job.base_seconds,
        "text": running_text(job).split(". ")[0],
    }


def _mine(checks: dict[str, Any] | None, session_id: str) -> dict[str, Any] | None:
    return checks if checks is not None and checks["session_id"] == session_id else None


def damage(found: Damaged) -> dict[str, Any]:
    """A loop file that does not read, in the JSON list: `phase` "damaged", `file` and `problem`."""
    return {
        "session_id": found.session_id,
        "pending": found.session_id is None,
        "active": None,
        "phase": "damaged",
        "iteration": None,
        "max_iterations": None,
        "tier": None,
        "verdict": None,
        "file": str(found.path),
        "problem": found.problem,
    }


def _features(loop: LoopState) -> list[dict[str, str]]:
    """An autopilot's features with their standing (done / current / skipped / pending); [] for ralph."""
    standing = standings(loop.features, loop.approach, loop.done)
    if not loop.active:
        # A loop that ended has no current feature any more.
        standing = {k: ("pending" if v == "current" else v) for k, v in standing.items()}
    return [{"id": f.id, "title": f.title, "status": standing[f.id]} for f in loop.features]


def line(entry: dict[str, Any]) -> str:
    who = "pending (next session)" if entry["pending"] else f"session {entry['session_id']}"
    standing = entry["phase"] if entry["active"] or entry["phase"] != "passed" else "passed (finished)"
    parts = [who, standing, f"iteration {entry['iteration']}/{entry['max_iterations']}"]
    if entry.get("adopted"):
        parts.append(f"adopted from {name_of(entry['adopted'])}")
    if entry["tier"]:
        parts.append(f"tier {entry['tier']}")
    if entry["verdict"]:
        parts.append(f"verdict {entry['verdict']}")
    if entry["verification"]:
        v = entry["verification"]
        parts.append(f"waiting for {v['agent']} ({v['id']}, {v['verifiers_started']} started)")
    if entry.get("background_checks"):
        parts.append(entry["background_checks"]["text"].removeprefix("tiergate is "))
    if entry["end_reason"] and entry["phase"] in ("halted", "cancelled"):
        parts.append(entry["end_reason"])
    if entry["features"]:
        listed = ", ".join(f"{f['id']} {f['status']}" for f in entry["features"])
        return "  ".join(parts) + f"  features: {listed}"
    return "  ".join(parts) + f"  task: {brief(entry['task'])}"
