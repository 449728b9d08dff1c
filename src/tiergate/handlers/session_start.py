"""SessionStart: a session starts, resumes or has just been compacted with an active loop; the model is
reminded of it (task, iteration, phase, promise), since compaction may have dropped it."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.hook.protocol import HookReply
from tiergate.loop import messages
from tiergate.loop import store as state

if TYPE_CHECKING:
    from typing import Any

    from tiergate.project import Project


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    from tiergate.hook.inputs import parse_input

    start = parse_input("SessionStart", payload)
    current = state.read(project, start.session_id)
    if current is None or not current.active:
        return None
    if current.adopted is not None:
        from tiergate.loop.adoption import adopted_context

        return HookReply(additional_context=adopted_context(current))
    return HookReply(additional_context=messages.restated_context(current, start.source))
