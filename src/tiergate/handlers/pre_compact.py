"""PreCompact: the session is about to be compacted. With an active loop, one record in the decision log
says so; the loop itself is restated to Claude at the SessionStart (source "compact") that follows."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.handlers import common
from tiergate.hook.inputs import parse_input
from tiergate.loop.events import Compaction

if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.protocol import HookReply
    from tiergate.project import Project


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    event = parse_input("PreCompact", payload)
    trigger = event.trigger or "unknown"
    common.apply(project, "PreCompact", event.session_id, Compaction(trigger))
    return None
