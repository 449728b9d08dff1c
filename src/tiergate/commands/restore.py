"""`tiergate restore <backup>`: put back the workspace a backup saved, byte for byte: its files, tracked
and untracked, what was staged, its empty directories, and HEAD.

A workspace holding anything HEAD does not is saved first as a backup of its own, so a restore can be
undone; HEAD only moves forward along its own history (docs/state.md, "Listing and restoring")."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tiergate.git import repository
from tiergate.project import locate
from tiergate.workspace import backups, putback


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("backup", help="a name from `tiergate backups`, its ref, or a prefix only it has")


def run(args: argparse.Namespace) -> int:
    project = locate(Path.cwd(), os.environ)
    root = repository.repo_root(project.root)
    backup = backups.find(project, root, args.backup)
    result = putback.restore(project, backup)
    if not result.changed:
        print(f"tiergate: the workspace already is backup {backup.name}; nothing to do")
        return 0
    if result.saved is not None:
        print(f"tiergate: saved the workspace as it was first, as backup {result.saved.name}")
    head = f"HEAD at {backup.head[:12]}" if backup.head else "no commit yet"
    print(f"tiergate: restored backup {backup.name} ({head}): {backup.reason}")
    return 0
