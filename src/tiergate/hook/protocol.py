"""The Claude Code hook protocol: what a handler answers (`HookReply`) and how it goes on the wire.

Importing this module stays cheap (no pydantic, no json): handlers import `HookReply` on paths that
must stay fast. Reading a hook input is `tiergate.hook.inputs`. The output rules (CLI 2.1.332) are
in the comment below.
"""

from __future__ import annotations

from tiergate.frozen import frozen

# Output rules, from the protocol reference (CLI 2.1.332): exit 0 with one JSON object on stdout, or
# nothing; a `decision: block` only on Stop and SubagentStop; `hookSpecificOutput` only on the events whose
# schema has it (not PreCompact, SessionEnd, StopFailure or TaskCompleted); exit 2 with the text on stderr
# sends a verifier back to work or keeps a task open, so it is kept to SubagentStop and TaskCompleted.


__all__ = [
    "BLOCKING_EVENTS",
    "CONTEXT_EVENTS",
    "REDO_EVENTS",
    "HookAnswer",
    "HookReply",
    "render",
    "system_message_line",
]

# What each event can carry back to Claude Code.
BLOCKING_EVENTS = frozenset({"Stop", "SubagentStop"})
REDO_EVENTS = frozenset({"SubagentStop", "TaskCompleted"})
CONTEXT_EVENTS = frozenset(
    {"SessionStart", "UserPromptSubmit", "SubagentStart", "Stop", "SubagentStop", "PostToolUse"}
)

REDO_EXIT_CODE = 2


@frozen
class HookReply:
    """A handler's answer to one hook event. All None means: nothing to say, let it proceed."""

    # Stop/SubagentStop: {"decision": "block", "reason": ...}; the reason goes to the (sub)agent.
    block_reason: str | None = None
    # hookSpecificOutput.additionalContext: injected into the model's context; on Stop and
    # SubagentStop it also makes the (sub)agent continue.
    additional_context: str | None = None
    # Shown to the user, never to the model. In print mode the CLI shows it only on Stop and
    # UserPromptSubmit; the hook repeats the other events' at the session's next one of those.
    system_message: str | None = None
    # SubagentStop and TaskCompleted: written to stderr with exit code 2, so the verifier takes another
    # turn, or the task stays open (its completion refused) with this reason for the model.
    redo_feedback: str | None = None


@frozen
class HookAnswer:
    """Exactly what the hook process writes and returns."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


def render(event_name: str, reply: HookReply) -> HookAnswer:
    """The wire form of `reply` for `event_name`.

    Raises ValueError for a reply the event cannot carry (a block on SessionStart, context on
    PreCompact, ...): silently dropping it would hide a handler's bug behind an allowed stop.
    """
    _check_fits(event_name, reply)
    if reply.redo_feedback is not None:
        # The JSON beside an exit 2 carries no decision, so the CLI takes the redo text from stderr.
        extra: dict[str, object] | None = None
        if reply.system_message is not None:
            extra = {"systemMessage": reply.system_message}
        return HookAnswer(stdout=_json_line(extra), stderr=reply.redo_feedback, exit_code=REDO_EXIT_CODE)
    answer: dict[str, object] = {}
    if reply.block_reason is not None:
        answer["decision"] = "block"
        answer["reason"] = reply.block_reason
    if reply.additional_context is not None:
        answer["hookSpecificOutput"] = {
            "hookEventName": event_name,
            "additionalContext": reply.additional_context,
        }
    if reply.system_message is not None:
        answer["systemMessage"] = reply.system_message
    return HookAnswer(stdout=_json_line(answer or None))


def _check_fits(event_name: str, reply: HookReply) -> None:
    if reply.block_reason is not None:
        if event_name not in BLOCKING_EVENTS:
            raise ValueError(f"a {event_name} hook cannot block")
        if not reply.block_reason.strip():
            raise ValueError("a block needs a reason: the (sub)agent is told nothing else")
    if reply.redo_feedback is not None:
        if event_name not in REDO_EVENTS:
            raise ValueError(f"a {event_name} hook cannot send a verifier back to work nor keep a task open")
        if not reply.redo_feedback.strip():
            raise ValueError("redo feedback must say what to redo")
        if reply.block_reason is not None or reply.additional_context is not None:
            raise ValueError("redo feedback goes alone: exit code 2 overrides any decision")
    if reply.additional_context is not None and event_name not in CONTEXT_EVENTS:
        raise ValueError(f"a {event_name} hook cannot add context")


def _json_line(value: dict[str, object] | None) -> str:
    if value is None:
        return ""
    import json

    # ASCII escapes keep the line valid whatever the text holds (lone surrogates included).
    return json.dumps(value, ensure_ascii=True) + "\n"


def system_message_line(text: str) -> str:
    """One `{"systemMessage": "tiergate: ..."}` line, for what the hook itself has to tell the user."""
    from tiergate.text import one_line

    return _json_line({"systemMessage": "tiergate: " + one_line(text)})
