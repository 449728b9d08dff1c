"""StopFailure: an API error (rate limit, authentication, context or output limit...) ended the turn.
Recorded with the turn's prompt_id, so that a Stop of that turn goes through (see `tiergate.loop.decision`);
Claude Code ignores this hook's output."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.handlers import common
from tiergate.loop import store as state
from tiergate.loop.events import StopFailure

if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.protocol import HookReply
    from tiergate.project import Project


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    from tiergate.hook.inputs import parse_input

    failure = parse_input("StopFailure", payload)
    current = state.read(project, failure.session_id)
    if current is None or not current.active:
        return None
    common.apply(project, "StopFailure", failure.session_id, StopFailure(failure.error, failure.prompt_id))
    return None
