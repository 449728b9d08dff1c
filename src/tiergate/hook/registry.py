"""The hook events tiergate handles: the one registry, each event with what "fail open" means for it
(for the one line that reports an internal error).

hooks/hooks.json registers exactly these, `tiergate.handlers` has one module for each, and each has its
input (`tiergate.hook.inputfields`); tests/hook/registry_test.py holds them all to this list. Imported on
the hook's fast path: nothing but this dict.
"""

EVENTS = {
    "SessionStart": "the session started without tiergate",
    "UserPromptSubmit": "the prompt went through unchanged",
    "Stop": "the stop was allowed",
    "SubagentStart": "the subagent started without tiergate's evidence packet",
    "SubagentStop": "the subagent's stop was allowed",
    "PreCompact": "compaction went ahead",
    "SessionEnd": "the session ended normally",
    "StopFailure": "nothing was changed",
    "TaskCompleted": "the task was marked completed unchecked",
    "PostToolUse": "the tool's result went through unchanged",
}
