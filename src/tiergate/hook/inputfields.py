"""Each hook event's input: the fields tiergate reads of it, declared once, with their types and defaults.

The hand reader (`tiergate.hook.inputs`) and the pydantic schema derived from these classes
(`tiergate.hook.inputschema`) both read them. Fields tiergate does not read are neither checked nor kept.
"""

from __future__ import annotations

from tiergate.frozen import frozen


@frozen
class HookInput:
    """Fields every hook event carries (or may carry)."""

    session_id: str
    cwd: str
    transcript_path: str | None = None  # "" (sent for "none") reads as None
    prompt_id: str | None = None


@frozen
class StopInput(HookInput):
    stop_hook_active: bool = False  # missing or null on some CLI versions (#83365): "not yet"
    last_assistant_message: str | None = None


@frozen
class SubagentStartInput(HookInput):
    agent_id: str = ""  # required: the reader refuses an input without it
    agent_type: str = ""


@frozen
class SubagentStopInput(HookInput):
    agent_id: str = ""  # required, as above
    agent_type: str = ""
    last_assistant_message: str | None = None
    agent_transcript_path: str | None = None

    @property
    def is_phantom(self) -> bool:
        """A SubagentStop that no subagent of ours caused: the CLI's internal compaction and summary
        forks stop with an empty agent_type, no SubagentStart and a copied last message (#91910)."""
        return not self.agent_type.strip()


@frozen
class SessionStartInput(HookInput):
    source: str | None = None


@frozen
class UserPromptSubmitInput(HookInput):
    prompt: str = ""  # required, as above


@frozen
class StopFailureInput(HookInput):
    """The turn ended on an API error instead of a Stop. `error` is also the hook's matcher value:
    rate_limit, authentication_failed, billing_error, invalid_request, server_error, ..."""

    error: str = "unknown"


@frozen
class TaskCompletedInput(HookInput):
    """A task of Claude Code's task list set to `completed` (CLI 2.1.332): exit 2 refuses it."""

    task_id: str = ""  # required, as above
    task_subject: str = ""
    task_description: str = ""


@frozen
class PostToolUseInput(HookInput):
    """A tool's call and result; tiergate registers it for Claude Code's goal tool alone. The tool's
    input and result are the tool's own JSON, read where they are used (`tiergate.loop.goal`)."""

    tool_name: str = ""  # required, as above


@frozen
class PreCompactInput(HookInput):
    trigger: str | None = None


@frozen
class SessionEndInput(HookInput):
    reason: str | None = None


INPUTS: dict[str, type[HookInput]] = {
    "SessionStart": SessionStartInput,
    "UserPromptSubmit": UserPromptSubmitInput,
    "Stop": StopInput,
    "SubagentStart": SubagentStartInput,
    "SubagentStop": SubagentStopInput,
    "PreCompact": PreCompactInput,
    "SessionEnd": SessionEndInput,
    "StopFailure": StopFailureInput,
    "TaskCompleted": TaskCompletedInput,
    "PostToolUse": PostToolUseInput,
}
# Fields without which an input is refused (the others have their defaults above).
REQUIRED = {"session_id", "cwd", "agent_id", "prompt", "task_id", "tool_name"}
# Optional paths: "" reads as None.
PATHS = {"transcript_path", "agent_transcript_path"}
