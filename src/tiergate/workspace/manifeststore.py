"""The manifest taken when a verifier started, kept until its run is over:
`<state_dir>/manifests/<session_id>.<agent_id>.json`, written atomically and sealed; the newest `KEEP` stay.

Its SubagentStop compares the workspace with it to name what changed. An unreadable, foreign or unsealed
file is treated as absent and logged: it never credits a verifier, it only names the files.
"""
# The sealed loop state's fingerprints decide. See docs/ARCHITECTURE.md, section "State the agent can reach
# is not trusted".

from __future__ import annotations

import contextlib
import json
import re

from tiergate import TYPE_CHECKING, seal
from tiergate.project import (
    ensure_state_dir,
    is_valid_session_id,
    keep_newest,
    open_sealed,
    write_sealed,
)
from tiergate.workspace import manifest

if TYPE_CHECKING:
    from pathlib import Path

    from tiergate.project import Project
    from tiergate.workspace.manifest import Manifest

DIR = "manifests"
KEEP = 20
# Claude Code's agent ids are "a" and 16 hex digits; anything else is not used in a file name.
_AGENT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def path_for(project: Project, session_id: str, agent_id: str) -> Path | None:
    if not (is_valid_session_id(session_id) and _AGENT_ID.fullmatch(agent_id)):
        return None
    return project.state_dir / DIR / f"{session_id}.{agent_id}.json"


def keep(project: Project, session_id: str, agent_id: str, taken: Manifest) -> None:
    """Keep the manifest of a verifier's start, unless one is kept already (a repeated SubagentStart
    must not replace the one its recorded fingerprint was taken from)."""
    path = path_for(project, session_id, agent_id)
    if path is None or path.exists():
        return
    ensure_state_dir(project)
    write_sealed(project, path, json.dumps(manifest.to_dict(taken)).encode())
    keep_newest(path.parent, KEEP)


def load(project: Project, session_id: str, agent_id: str) -> Manifest | None:
    path = path_for(project, session_id, agent_id)
    if path is None:
        return None
    try:
        raw = path.read_bytes()
    except OSError:
        return None  # never kept (a repeated start, a run from before), or gone
    try:
        taken = manifest.from_dict(json.loads(open_sealed(project, path, raw)))
    except (ValueError, seal.SealError) as exc:
        _rejected(project, path, str(exc) or type(exc).__name__)
        return None
    if taken is None:
        _rejected(project, path, "it is not a manifest")
    return taken


def _rejected(project: Project, path: Path, why: str) -> None:
    from tiergate.log import record_rejected

    record_rejected(project, "manifest_rejected", path, why)


def drop(project: Project, session_id: str, agent_id: str) -> None:
    path = path_for(project, session_id, agent_id)
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()
