"""The hook event handlers (the loop controller's). Placeholder until they land: answers nothing."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tiergate.project import Project
    from tiergate.protocol import HookReply


def handle(event_name: str, payload: dict[str, Any], project: Project) -> HookReply | None:
    return None
