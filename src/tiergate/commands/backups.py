"""`tiergate backups [--json]`: the workspaces tiergate saved before rolling back, newest first.

Each backup: its name (what `tiergate restore` takes), when and why it was saved, where HEAD was, and
how its files differ from HEAD's (untracked files count as added). `--json` prints a list of objects
with `name`, `ref`, `commit`, `created` (UTC, ISO 8601), `head`, `reason`, `files` and `changes`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tiergate.workspace.backups import Backup

HELP = "list the workspaces saved before a rollback, newest first"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list, one object per backup")


def run(args: argparse.Namespace) -> int:
    import json
    import os

    from tiergate import git
    from tiergate.project import locate
    from tiergate.workspace import backups

    root = git.repo_root(locate(Path.cwd(), os.environ).root)
    rows = [describe(root, backup) for backup in backups.list_backups(root)]
    if args.json:
        print(json.dumps(rows, indent=2))
    elif not rows:
        print(f"tiergate: no backups in {root}")
    else:
        for row in rows:
            print(line(row))
        print("restore one with: tiergate restore <name>")
    return 0


def describe(root: Path, backup: Backup) -> dict[str, Any]:
    import time

    from tiergate.workspace import backups

    changed = backups.changes(root, backups.tree_of(root, backup.head), backups.tree_of(root, backup.commit))
    counts = dict.fromkeys(("added", "modified", "deleted"), 0)
    for letter in changed.values():
        counts[{"A": "added", "D": "deleted"}.get(letter, "modified")] += 1
    return {
        "name": backup.name,
        "ref": backup.ref,
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
    return f"{row['name']}  {head}  {counts}  {why}"
