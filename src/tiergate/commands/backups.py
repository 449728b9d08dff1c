"""`tiergate backups [--json] [--migrate]`: the workspaces tiergate saved before rolling back, newest first.

Each with its name (what `tiergate restore` takes), when and why it was saved, where HEAD was and how its
files differ from HEAD's. A backup that cannot be read is named on stderr, never left out. `--migrate`
moves those of the old layout out of the repository's refs (docs/state.md, "Listing and restoring").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from tiergate.git import repository
from tiergate.project import Project, locate
from tiergate.workspace import backups, snapshots
from tiergate.workspace.backups import Backup


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list, one object per backup")
    parser.add_argument(
        "--migrate",
        action="store_true",
        help="move the backups of the old layout (refs/tiergate/backups/) into tiergate's own store",
    )


def run(args: argparse.Namespace) -> int:
    project = locate(Path.cwd(), os.environ)
    root = repository.repo_root(project.root)
    if args.migrate:
        for old, new in backups.migrate(project, root):
            if isinstance(new, str):
                print(f"tiergate: could not move backup {old.name}: {new}", file=sys.stderr)
            else:
                print(f"tiergate: moved backup {old.name} out of the repository's refs, as {new.name}")
    found = backups.inventory(project, root)
    for problem in found.problems:
        print(f"tiergate: {problem}", file=sys.stderr)
    rows = [describe(project, root, backup) for backup in found.backups]
    if args.json:
        print(json.dumps(rows, indent=2))
    elif not rows:
        print(f"tiergate: no backups in {root}")
    else:
        for row in rows:
            print(line(row))
        print("restore one with: tiergate restore <name>")
        legacy = sum(1 for backup in found.backups if backup.legacy)
        if legacy:
            print(
                f"tiergate: {legacy} backup(s) marked (in refs) are in the repository's refs under "
                f"{backups.BACKUPS}, which a push (git push --mirror) can publish; "
                "move them into tiergate's own store with: tiergate backups --migrate"
            )
    return 1 if found.problems else 0


def describe(project: Project, root: Path, backup: Backup) -> dict[str, Any]:
    changed = backups.describe_changes(project, root, backup)
    counts = dict.fromkeys(("added", "modified", "deleted"), 0)
    for letter in changed.values():
        counts[{"A": "added", "D": "deleted"}.get(letter, "modified")] += 1
    return {
        "name": backup.name,
        "ref": backup.ref,
        "store": "repository" if backup.legacy else str(snapshots.store_path(project)),
        "commit": backup.commit,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(backup.created)),
        "head": backup.head,
        "reason": backup.reason,
        "files": len(changed),
        "changes": counts,
    }


def line(row: dict[str, Any]) -> str:
    head = f"HEAD {row['head'][:12]}" if row["head"] else "no commit yet"
    counts = ", ".join(f"{n} {word}" for word, n in row["changes"].items() if n) or "no change"
    why = row["reason"].removeprefix("tiergate backup ")
    where = "  (in refs)" if row["store"] == "repository" else ""
    return f"{row['name']}  {head}  {counts}  {why}{where}"
