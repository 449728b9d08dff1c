"""What tells tiergate that a loop's state is gone or was refused: the ledger of loop starts
(`loops/started.log`), and the fail-closed marker of a session (`loops/<session_id>.failclosed`). Both
are sealed; unsealed or mis-sealed lines and markers read as absent (docs/state.md, "The ledger and the
fail-closed marker"). On the hooks' fast path: os.path only, no pathlib, no json at the top.
"""

# os.path and try/except rather than pathlib and contextlib: a Stop without a loop file imports this.
# ruff: noqa: PTH102, PTH103, PTH108, PTH110, PTH117, PTH118, PTH120, PTH123, SIM105
from __future__ import annotations

import os

from tiergate import TYPE_CHECKING, seal

if TYPE_CHECKING:
    from typing import Any

LEDGER = "loops/started.log"
MARKER_SUFFIX = ".failclosed"
FALLBACK_PREFIX = "tiergate-"  # + the user id, under the system temp dir


def loop_token(started_at: float) -> str:
    """A loop's identity within its session: when it started (repr: exact, and no space in it)."""
    return repr(float(started_at))


# The ledger --------------------------------------------------------------------------------------------


def record_start(state_dir: str, session_id: str, token: str) -> None:
    """Append the sealed line of a loop bound to `session_id`. Raises OSError if it cannot."""
    line = f"{session_id} {token}"
    data = f"{line} {seal.line_tag(LEDGER, line)}\n".encode()
    os.makedirs(os.path.join(state_dir, "loops"), mode=0o700, exist_ok=True)
    # One short write on an O_APPEND descriptor: whole beside concurrent appenders.
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
    fd = os.open(os.path.join(state_dir, LEDGER), flags, 0o600)
    try:
        if os.write(fd, data) != len(data):
            raise OSError(f"short write to {LEDGER}")
    finally:
        os.close(fd)


def started(state_dir: str, session_id: str) -> str | None:
    """The token of the latest loop the ledger names for `session_id` (sealed lines only), or None."""
    try:
        with open(os.path.join(state_dir, LEDGER), "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if session_id.encode() not in data:  # the common case: no seal computed at all
        return None
    token = None
    for raw in data.decode("utf-8", "replace").splitlines():
        parts = raw.split(" ")
        if len(parts) == 3 and parts[0] == session_id:
            line = f"{parts[0]} {parts[1]}"
            if _sealed_line(line, parts[2]):
                token = parts[1]
    return token


def _sealed_line(line: str, found: str) -> bool:
    try:
        return seal.line_is_sealed(LEDGER, line, found)
    except (OSError, seal.SealError):
        return False  # no usable key: nothing reads as sealed


def lost_loop(state_dir: str, session_id: str) -> bool:
    """Whether `session_id` had a loop (the ledger says so) whose loop file is gone without a halt."""
    if os.path.exists(os.path.join(state_dir, "loops", session_id + ".json")):
        return False
    token = started(state_dir, session_id)
    if token is None:
        return False
    marker = read_marker(state_dir, session_id)
    return not (marker is not None and marker.get("stage") == "halted" and marker.get("token") == token)


# The marker --------------------------------------------------------------------------------------------


def marker_name(session_id: str) -> str:
    return f"loops/{session_id}{MARKER_SUFFIX}"


def marker_paths(state_dir: str, session_id: str) -> tuple[str, str]:
    """Where the marker is kept: beside the loop file, else in the per-user fallback folder."""
    from _blake2 import blake2b

    project_key = blake2b(os.fsencode(state_dir), digest_size=8).hexdigest()
    return (
        os.path.join(state_dir, marker_name(session_id)),
        os.path.join(fallback_dir(), f"{project_key}.{session_id}{MARKER_SUFFIX}"),
    )


def fallback_dir() -> str:
    """`$TMPDIR/tiergate-<uid>` (else under /tmp). Not `tempfile.gettempdir()`: it probes each
    candidate by writing a file, and fails outright when nothing can be written, the very case here."""
    temp = os.environ.get("TMPDIR", "")
    return os.path.join(temp if os.path.isabs(temp) else "/tmp", f"{FALLBACK_PREFIX}{os.getuid()}")


def read_marker(state_dir: str, session_id: str) -> dict[str, Any] | None:
    """The session's marker (the first sealed one of its two places), or None."""
    import json

    for path in marker_paths(state_dir, session_id):
        try:
            with open(path, "rb") as handle:
                body = seal.open_file(marker_name(session_id), handle.read())
            record = json.loads(body)
        except (OSError, ValueError, seal.SealError):
            continue
        if isinstance(record, dict) and record.get("state_dir") == state_dir:
            return record
    return None


def write_marker(state_dir: str, session_id: str, record: dict[str, Any]) -> str | None:
    """Keep `record` as the session's marker, in the state folder or else in the fallback folder;
    the path it went to, or None when it could be written nowhere."""
    import json

    body = json.dumps({**record, "state_dir": state_dir}, sort_keys=True).encode()
    try:
        data = seal.seal_file(marker_name(session_id), body)
    except (OSError, seal.SealError):
        return None
    primary, fallback = marker_paths(state_dir, session_id)
    for path in (primary, fallback):
        try:
            if path == fallback:
                _own_private_dir(os.path.dirname(path))
            _write_atomic(path, data)
        except OSError:
            continue
        for other in (primary, fallback):  # only one place holds it: no stale copy read first
            if other != path:
                _remove(other)
        return path
    return None


def clear_marker(state_dir: str, session_id: str) -> None:
    """Forget the session's marker (its loop decided a stop normally again)."""
    for path in marker_paths(state_dir, session_id):
        _remove(path)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _own_private_dir(path: str) -> None:
    """Make `path` (0700) or accept it only if it is this user's own, private, real directory: the
    system temp dir is shared, and another user's folder there must not hold this user's markers."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(path)
    import stat

    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise OSError(f"{path} is not a private directory of this user")


def _write_atomic(path: str, data: bytes) -> None:
    from pathlib import Path

    from tiergate.project import write_atomic

    write_atomic(Path(path), data)
