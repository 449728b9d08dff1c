"""SessionEnd: the session ends. With an active loop, one record in the decision log says so; the loop
is left as it is, since the session may be resumed; the checks it runs in the background end with it.
Claude Code gives this hook 1.5 s: the record costs a state read and one appended line."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.handlers import common
from tiergate.hook.inputs import parse_input
from tiergate.loop.events import SessionEnd

if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.protocol import HookReply
    from tiergate.project import Project


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    event = parse_input("SessionEnd", payload)
    reason = event.reason or "unknown"
    common.apply(project, "SessionEnd", event.session_id, SessionEnd(reason))
    _stop_background(project, event.session_id)
    return None


def _stop_background(project: Project, session_id: str) -> None:
    """The session's background gate ends with it: SIGTERM, no wait (a SessionEnd has about a second)."""
    if not (project.state_dir / "gate" / "job.lock").exists():
        return  # no background gate ever ran here: nothing more to import
    from tiergate.gate import background

    background.cancel(project, session_id, grace=0.0)
