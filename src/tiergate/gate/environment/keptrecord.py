"""The record of the environment taken as a loop began (`envrecord`), kept until its claims are judged:
`<state_dir>/environment/<session_id>.json`, written atomically, naming its loop.

The agent can write the state folder, so the record is bound to its loop by its digest (BLAKE2b), held
in the loop's sealed state (`LoopState.environment`): any other file reads as no record, THOROUGH
(`difference.NO_RECORD`). No seal of its own: the digest binds it tighter, and costs less on a large record.
"""

from __future__ import annotations

import json
from pathlib import Path

from tiergate.gate.environment.envrecord import EnvironmentRecord, from_dict, to_dict
from tiergate.project import Project, ensure_state_dir, is_valid_session_id, keep_newest, write_atomic

DIR = "environment"
KEEP = 50  # the newest records kept: each session's loop has one


def path_for(project: Project, session_id: str) -> Path | None:
    if not is_valid_session_id(session_id):
        return None
    return project.state_dir / DIR / f"{session_id}.json"


def keep(project: Project, session_id: str, loop: str, record: EnvironmentRecord) -> str | None:
    """Keep `record` as the environment of the session's loop `loop` (`tiergate.loop.ledger.loop_token`);
    the digest of what was kept, for the loop's state to hold (None: a session id no file can have)."""
    path = path_for(project, session_id)
    if path is None:
        return None
    ensure_state_dir(project)
    body = json.dumps({"loop": loop, "record": to_dict(record)}, separators=(",", ":")).encode()
    write_atomic(path, body)
    keep_newest(path.parent, KEEP)
    return _digest(body)


def load(project: Project, session_id: str, loop: str, digest: str) -> EnvironmentRecord | None:
    """The record kept as the session's loop `loop` began, whose digest its state holds (`digest`); None
    when there is no such record (a file that is not it is logged)."""
    path = path_for(project, session_id)
    if path is None:
        return None
    try:
        body = path.read_bytes()
    except OSError:
        return None
    if _digest(body) != digest:
        _rejected(project, path, "it is not the record this loop kept")
        return None
    data = json.loads(body)  # what tiergate wrote, to the byte
    found = from_dict(data.get("record")) if data.get("loop") == loop else None
    if found is None:
        _rejected(project, path, "it is not a record of this loop's environment")
    return found


def _digest(body: bytes) -> str:
    from _blake2 import blake2b  # as `tiergate.seal` does: hashlib's import costs a hook milliseconds

    return blake2b(body, digest_size=16).hexdigest()


def _rejected(project: Project, path: Path, why: str) -> None:
    from tiergate.log import record_rejected

    record_rejected(project, "environment_rejected", path, why)
