"""Loop state on disk: one sealed JSON file per session, `<state_dir>/loops/<session_id>.json`, and
`<state_dir>/pending.json` for a loop started from a shell before any session exists.

Writes are atomic and every read-modify-write holds the file's lock, since hooks run in parallel; a file
that is not tiergate's own writing raises StateError (an active loop's Stop then fails closed). The rules:
docs/state.md, "How the loop files are written".
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import asdict, fields, replace
from pathlib import Path

from tiergate import TYPE_CHECKING, seal
from tiergate.errors import UserError
from tiergate.frozen import frozen
from tiergate.loop import ledger
from tiergate.loop.features import Feature
from tiergate.loop.state import (
    PHASES,
    AttemptRecord,
    LoopState,
    RefutedWorkspace,
    Verification,
    VerifierRun,
)
from tiergate.project import (
    STATE_DIR_MODE,
    STATE_FILE_MODE,
    Project,
    ensure_state_dir,
    is_valid_session_id,
    open_sealed,
    write_sealed,
)
from tiergate.redact import redact

if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

LOOPS_DIR = "loops"
PENDING_NAME = "pending.json"
SCHEMA = 1


class StateError(UserError):
    """A state file that cannot be read as a loop (hand-edited, from another version, damaged)."""


CANCEL_IT = "run `tiergate cancel`: it keeps the file aside and ends that loop"


@frozen
class Damaged:
    """A loop state file that does not read as tiergate wrote it, and why."""

    path: Path
    problem: str  # the StateError's one line
    session_id: str | None  # None: the pending loop


def loops_dir(project: Project) -> Path:
    return project.state_dir / LOOPS_DIR


def loop_path(project: Project, session_id: str) -> Path:
    if not is_valid_session_id(session_id):
        raise UserError(f"not a session id: {session_id!r}")
    return loops_dir(project) / f"{session_id}.json"


def pending_path(project: Project) -> Path:
    return project.state_dir / PENDING_NAME


def read(project: Project, session_id: str) -> LoopState | None:
    """The session's loop, or None if it never had one."""
    return _read(project, loop_path(project, session_id))


def read_pending(project: Project) -> LoopState | None:
    return _read(project, pending_path(project))


def update(
    project: Project, session_id: str, change: Callable[[LoopState | None], tuple[LoopState | None, T]]
) -> T:
    """Apply `change` to the session's loop under its lock; write what it returns (None: leave it)."""
    path = loop_path(project, session_id)
    ensure_state_dir(project)
    with _locked(path):
        current = _read(project, path)
        new, result = change(current)
        if new is not None and new != current:
            if new.active and (current is None or current.started_at != new.started_at):
                # Before the loop file: a start the ledger does not name could be deleted unnoticed.
                token = ledger.loop_token(new.started_at)
                ledger.record_start(os.fspath(project.state_dir), session_id, token)
            _write(project, path, new)
    return result


def write_pending(project: Project, state: LoopState) -> LoopState | None:
    """Store a loop for the next session to reach a hook; returns the pending loop it replaces."""
    path = pending_path(project)
    ensure_state_dir(project)
    with _locked(path):
        previous = _read(project, path)
        _write(project, path, state)
    return previous


def take_pending(project: Project, session_id: str, now: float) -> LoopState | None:
    """Bind the pending loop to this session, unless it already runs an active loop.

    Returns the loop as bound (its clock starts now), or None if there was nothing to take."""
    path = pending_path(project)
    if not path.exists():
        return None
    with _locked(path):
        pending = _read(project, path)
        if pending is None:
            return None
        bound = replace(pending, session_id=session_id, started_at=now)

        def bind(current: LoopState | None) -> tuple[LoopState | None, LoopState | None]:
            if current is not None and current.active:
                return None, None
            return bound, bound

        taken = update(project, session_id, bind)
        if taken is not None:
            path.unlink()
    return taken


def drop_pending(project: Project) -> LoopState | None:
    """Remove the pending loop; returns it."""
    path = pending_path(project)
    if not path.exists():
        return None
    with _locked(path):
        pending = _read(project, path)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    return pending


def all_loops(project: Project) -> list[LoopState]:
    """Every session's loop in this project, oldest start first."""
    folder = loops_dir(project)
    if not folder.is_dir():
        return []
    loops = []
    for path in folder.glob("*.json"):
        with contextlib.suppress(FileNotFoundError):
            state = _read(project, path)
            if state is not None:
                loops.append(state)
    return sorted(loops, key=lambda s: (s.started_at, s.session_id))


def survey(project: Project) -> tuple[list[LoopState], list[Damaged]]:
    """`all_loops`, and the loop files (the pending one's included) that do not read, instead of
    failing at the first of them: what `tiergate status` and `tiergate cancel` need."""
    loops: list[LoopState] = []
    damaged: list[Damaged] = []
    folder = loops_dir(project)
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    for path in [*paths, pending_path(project)]:
        pending = path == pending_path(project)
        try:
            found = _read(project, path)
        except StateError as exc:
            damaged.append(Damaged(path, str(exc), None if pending else path.stem))
            continue
        if found is not None and not pending:
            loops.append(found)
    return sorted(loops, key=lambda s: (s.started_at, s.session_id)), damaged


def set_aside(path: Path, now: float | None = None) -> Path:
    """Move a damaged state file out of the way, kept beside it for a post-mortem as
    `<name>.damaged-<UTC time>`; returns where it went (OSError when it cannot be moved)."""
    import time

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():  # two in the same second: neither is overwritten
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    with _locked(path):
        path.replace(aside)
    return aside


def latest_active(project: Project) -> LoopState | None:
    """The most recently started active loop in this project (for `tiergate checks`), or None."""
    active = [s for s in all_loops(project) if s.active]
    return active[-1] if active else None


# Files --------------------------------------------------------------------------------------------------


def _read(project: Project, path: Path) -> LoopState | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        data = json.loads(open_sealed(project, path, raw))
        return from_dict(data)
    except seal.SealError as exc:
        raise StateError(f"loop state {path} is not as tiergate wrote it: {exc}; {CANCEL_IT}") from None
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise StateError(f"unreadable loop state {path} ({exc}); {CANCEL_IT}") from None


def _write(project: Project, path: Path, state: LoopState) -> None:
    body = json.dumps(_redacted(to_dict(state)), indent=1, sort_keys=True).encode()
    write_sealed(project, path, body)


# The fields that may quote a check's output or a verifier's critique: credentials there are redacted
# before they reach the disk. Not the task, the promise or the features' check commands: those are
# the loop's identity and its rules, which tiergate must read back exactly as they were given.
_TEXT_FIELDS = frozenset(
    {"feedback", "text", "reason", "reasons", "note", "checks", "interrupted", "end_reason"}
)


def _redacted(value: Any, key: str = "") -> Any:
    if key == "features":
        return value
    if isinstance(value, dict):
        return {k: _redacted(v, k) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(item, key) for item in value]
    if isinstance(value, str) and key in _TEXT_FIELDS:
        return redact(value)
    return value


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    import fcntl

    lock_path = path.with_name(path.name + ".lock")
    lock_path.parent.mkdir(mode=STATE_DIR_MODE, parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, STATE_FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


# JSON form ----------------------------------------------------------------------------------------------


def to_dict(state: LoopState) -> dict[str, Any]:
    return {"schema": SCHEMA, "active": state.active, **asdict(state)}


def from_dict(data: Any) -> LoopState:
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("schema") != SCHEMA:
        raise ValueError(f"schema {data.get('schema')!r}, this tiergate reads schema {SCHEMA}")
    state = _build(LoopState, data)
    if state.phase not in PHASES:
        raise ValueError(f"unknown phase {state.phase!r}")
    return state


def _feature(data: dict[str, Any]) -> Feature:
    checks = tuple((str(name), str(command)) for name, command in data["checks"])
    return Feature(str(data["id"]), str(data["title"]), str(data["description"]), checks)


def _build(cls: type[T], data: dict[str, Any]) -> T:
    """A dataclass from its asdict() form: tuples from lists, nested records rebuilt; unknown keys ignored."""
    kwargs: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            continue
        value = data[f.name]
        kind = str(f.type)
        if kind.startswith("Verification") and value is not None:
            value = _build(Verification, value)
        elif kind.startswith("tuple[VerifierRun"):
            value = tuple(_build(VerifierRun, run) for run in value)
        elif kind.startswith("tuple[AttemptRecord"):
            value = tuple(_build(AttemptRecord, attempt) for attempt in value)
        elif kind.startswith("tuple[RefutedWorkspace"):
            value = tuple(_build(RefutedWorkspace, entry) for entry in value)
        elif kind.startswith("tuple[Feature"):
            value = tuple(_feature(entry) for entry in value)
        elif kind.startswith("tuple"):
            value = tuple(value)
        kwargs[f.name] = value
    return cls(**kwargs)
