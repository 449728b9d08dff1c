"""The incident records a hook leaves when it fails open (`tiergate.log.record_incident`): an internal
error, an event ignored for what it said, notices dropped because their seal did not hold."""

from __future__ import annotations

import sys

from tiergate import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from tiergate.project import Project


def record_internal_error(
    event_name: str, session_id: str | None, state_dir: Path | None, exc: BaseException
) -> Path:
    """Record a bug met while answering `event_name`, with its traceback and versions; where it went."""
    import platform
    import traceback

    from tiergate import __version__
    from tiergate.log import record_incident, utc_timestamp

    return record_incident(
        state_dir,
        {
            "timestamp": utc_timestamp(),
            "level": "error",
            "event": "internal_error",
            "hook_event": event_name,
            "session_id": session_id,
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": "".join(traceback.format_exception(exc)),
            "tiergate_version": __version__,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
        },
    )


def record_ignored(event_name: str, session_id: str, project: Project, exc: Exception) -> None:
    """Record an event ignored for a user or input error; never raised (the user has been told already;
    the record only helps a post-mortem)."""
    error = f"{type(exc).__name__}: {exc}"
    _warn(
        project,
        {"event": "event_ignored", "hook_event": event_name, "session_id": session_id, "error": error},
    )


def record_dropped_notices(project: Project, session_id: str, dropped: int, name: str) -> None:
    """Record `dropped` lines of the notices file `name` not sealed as tiergate wrote them; never raised."""
    reason = f"{dropped} line(s) of {name} are not sealed as tiergate wrote them"
    _warn(project, {"event": "notices_dropped", "session_id": session_id, "reason": reason})


def _warn(project: Project, fields: dict[str, object]) -> None:
    import contextlib

    from tiergate.log import record_incident, utc_timestamp

    with contextlib.suppress(Exception):
        record_incident(project.state_dir, {"timestamp": utc_timestamp(), "level": "warning", **fields})
