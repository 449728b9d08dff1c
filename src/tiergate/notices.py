"""What a session's hooks said where the user may not see it (print mode shows only some events'
notices, `tiergate.hook.entry.VISIBLE_EVENTS`): kept, sealed, under `<state_dir>/notices/`, and taken
at the session's next visible event."""

from __future__ import annotations

from tiergate import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from tiergate.project import Project

NOTICES_DIR = "notices"


def keep(state_dir: Path, session_id: str, event_name: str, text: str) -> None:
    """Keep `text`, said at `event_name`, for the session's next `take`; best effort, never raised."""
    import contextlib

    from tiergate import seal
    from tiergate.log import append_line
    from tiergate.redact import redact
    from tiergate.text import one_line

    line = f"(at {event_name}) " + redact(one_line(text.removeprefix("tiergate: ")))  # no tab: one_line
    # Best effort: the notice has been given once already, and the log has what matters.
    with contextlib.suppress(OSError, seal.SealError):
        (state_dir / NOTICES_DIR).mkdir(mode=0o700, exist_ok=True)  # project.STATE_DIR_MODE
        tag = seal.line_tag(_name(session_id), line)
        append_line(state_dir / NOTICES_DIR / f"{session_id}.txt", f"{line}\t{tag}")


def take(project: Project, session_id: str) -> list[str]:
    """The session's kept notices, taken once even by concurrent hooks: the lines tiergate wrote (their
    seal holds), without it; the others are logged and dropped."""
    path = project.state_dir / NOTICES_DIR / f"{session_id}.txt"
    taken = path.with_name(path.name + ".taken")
    try:
        path.replace(taken)
    except OSError:
        return []
    import contextlib

    lines: list[str] = []
    with contextlib.suppress(OSError):
        lines = taken.read_text(encoding="utf-8", errors="replace").splitlines()
        taken.unlink()
    return _sealed(project, session_id, lines)


def _name(session_id: str) -> str:
    """A notices file's seal name: its path relative to the state folder."""
    return f"{NOTICES_DIR}/{session_id}.txt"


def _sealed(project: Project, session_id: str, lines: list[str]) -> list[str]:
    from tiergate import seal

    kept, dropped = [], 0
    for raw in lines:
        line, _, found = raw.rstrip("\n").rpartition("\t")
        try:
            sealed = bool(line.strip()) and seal.line_is_sealed(_name(session_id), line, found)
        except (OSError, seal.SealError):
            sealed = False
        if sealed:
            kept.append(line.strip())
        elif raw.strip():
            dropped += 1
    if dropped:
        from tiergate.incidents import record_dropped_notices

        record_dropped_notices(project, session_id, dropped, _name(session_id))
    return kept
