"""`tiergate hook <Event>`: one Claude Code hook event in (JSON on stdin), one protocol answer out.
Fail open, always: the hook exits 0, the event goes ahead, the user gets one `systemMessage` line and
the log the details (the one exception: `tiergate.handlers.failclosed`); what print mode would not show
is repeated at the next Stop or prompt (`tiergate.notices`). Fast path: a project with no state folder
costs `os` and `sys` and writes nothing, except for a prompt that may be `/tiergate:ralph`.
"""

from __future__ import annotations

import os
import sys

from tiergate import TYPE_CHECKING
from tiergate.hook.registry import EVENTS

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from tiergate.hook.protocol import HookAnswer, HookReply
    from tiergate.project import Project

MAX_INPUT_BYTES = 16 * 1024 * 1024
# The events whose systemMessage reaches the user in print mode too (CLI 2.1.332: SessionStart,
# SubagentStart, SubagentStop and SessionEnd notices are dropped there). What tiergate has to say about
# the others is repeated at the session's next one of these: a headless user must not miss it.
VISIBLE_EVENTS = frozenset({"UserPromptSubmit", "Stop"})


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in EVENTS:
        got = f"{argv[0]!r}" if argv else "no event name"
        _say(f"`tiergate hook` needs one hook event name ({', '.join(EVENTS)}); got {got}")
        return 0
    event_name = argv[0]
    try:
        return _answer(event_name)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        # Only a bug in this module gets here: handler errors are caught in _dispatch.
        return _internal_error(event_name, None, None, exc)


def _answer(event_name: str) -> int:
    from tiergate import project as projects

    raw = _read_stdin()
    early_state_dir = projects.state_dir_from_env(os.environ)
    early_root = os.environ.get("CLAUDE_PROJECT_DIR") or ""
    if early_state_dir is not None and not _concerns_tiergate(event_name, early_state_dir, raw, early_root):
        return 0
    if raw is None:
        _say(f"ignored the {event_name} event: its input is over {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
        return 0
    payload, problem = _parse(raw, event_name)
    if payload is None:
        _say(f"ignored the {event_name} event: {problem}")
        return 0
    project = projects.locate(payload["cwd"], os.environ)
    roots = (os.fspath(project.root), payload["cwd"])
    if not any(_concerns_tiergate(event_name, os.fspath(project.state_dir), raw, root) for root in roots):
        return 0
    if not projects.is_valid_session_id(payload["session_id"]):
        _say(f"ignored the {event_name} event: its session_id is not a plain identifier")
        return 0
    return _dispatch(event_name, payload, project)


def _concerns_tiergate(event_name: str, state_dir: str, raw: bytes | None, root: str) -> bool:
    """Whether tiergate may have something to do: it has a state folder here, the prompt may be one
    of its slash commands, which start a loop in a project that has none yet, or the user's own loop
    (ralph-loop, an OMC mode) may be there to adopt: its command, or its state in the project at `root`."""
    if os.path.isdir(state_dir):  # noqa: PTH112 (no pathlib on the fast path)
        return True
    # The prompt is looked for in the raw bytes, before any parsing: every other prompt of every project
    # without tiergate state stays on the fast path. ("tiergate:" rather than "/tiergate:": a JSON
    # encoder may write the slash as "\/".)
    if event_name == "UserPromptSubmit" and raw is not None and any(word in raw for word in _COMMAND_WORDS):
        return True
    if event_name == "PostToolUse":
        return True  # registered for Claude Code's goal tool alone: a goal the model set, to adopt
    return bool(root) and any(os.path.exists(os.path.join(root, p)) for p in _FOREIGN_STATE)  # noqa: PTH110, PTH118


# What may start or show a loop tiergate would adopt (`tiergate.handlers.adoption`): the commands as typed,
# ralph-loop's state file, OMC's session-scoped state folder. Claude Code's /goal opens the prompt (its
# slash escaped or not), as does the prompt it queues for a goal the user approved.
_COMMAND_WORDS = (
    b"tiergate:",
    b"ralph-loop:ralph-loop",
    b"oh-my-claudecode:",
    b'"/goal',
    b'"\\/goal',
    b'"Goal set: ',
)
_FOREIGN_STATE = (os.path.join(".claude", "ralph-loop.local.md"), os.path.join(".omc", "state", "sessions"))  # noqa: PTH118


def _read_stdin() -> bytes | None:
    """All of stdin, or None if it is larger than MAX_INPUT_BYTES (then only that much is read)."""
    stdin = sys.stdin
    if stdin is None:
        return b""
    data = stdin.buffer.read(MAX_INPUT_BYTES + 1)
    return None if len(data) > MAX_INPUT_BYTES else data


def _parse(raw: bytes, event_name: str) -> tuple[dict[str, Any] | None, str]:
    """The input object, or None and why it is unusable. Each field is checked as its handler reads it
    (`tiergate.hook.inputs`).

    An input for another event than the one this hook was registered for is bad input: the Stop
    handler must never read a SubagentStop's verdict as a claim, nor the reverse."""
    import json

    try:
        payload = json.loads(raw)
    except (ValueError, RecursionError):
        return None, "its input is not JSON"
    if not isinstance(payload, dict):
        return None, "its input is not a JSON object"
    problem = _field_problem(payload, event_name)
    return (None, problem) if problem else (payload, "")


def _field_problem(payload: dict[str, Any], event_name: str) -> str:
    """What makes the fields every event needs unusable, or ''."""
    named = payload.get("hook_event_name")
    if named != event_name:
        got = f"{named[:60]!r}" if isinstance(named, str) else "none"
        return f"its hook_event_name ({got}) is not {event_name}"
    if not isinstance(payload.get("session_id"), str):
        return "its input has no session_id string"
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return "its input has no cwd string"
    if "\0" in cwd or not os.path.isabs(cwd) or not os.path.isdir(cwd):  # noqa: PTH112, PTH117
        return f"its cwd is not an existing absolute directory: {cwd[:200]!r}"
    return ""


def _dispatch(event_name: str, payload: dict[str, Any], project: Project) -> int:
    """Run the handler and write its answer; any exception becomes the one-line fail-open notice."""
    session_id: str = payload["session_id"]
    try:
        with _StdoutToStderr():
            from tiergate import handlers

            reply = handlers.handle(event_name, payload, project)
            if event_name in VISIBLE_EVENTS:
                reply = _with_earlier_notices(reply, project, session_id)
            if reply is None:
                return 0
            from tiergate.hook.protocol import render

            answer = render(event_name, reply)
            if reply.system_message is not None:
                _keep_notice(event_name, session_id, project.state_dir, reply.system_message)
    except Exception as exc:
        return _dispatch_error(event_name, session_id, project, exc)
    _write(answer)
    return answer.exit_code


def _dispatch_error(event_name: str, session_id: str, project: Project, exc: Exception) -> int:
    from tiergate.errors import InputError, UserError

    if isinstance(exc, (UserError, InputError)):
        _tell(event_name, session_id, project.state_dir, f"ignored the {event_name} event: {exc}")
        from tiergate.incidents import record_ignored

        record_ignored(event_name, session_id, project, exc)
        return 0
    return _internal_error(event_name, session_id, project.state_dir, exc)


def _internal_error(
    event_name: str, session_id: str | None, state_dir: Path | None, exc: BaseException
) -> int:
    happened = EVENTS[event_name]
    try:
        from tiergate.incidents import record_internal_error

        where = record_internal_error(event_name, session_id, state_dir, exc)
    except Exception as log_exc:
        _say(
            f"internal error in the {event_name} hook; {happened}; the error could not be logged "
            f"({type(log_exc).__name__}: {log_exc}); the error was {type(exc).__name__}: {exc}"
        )
        return 0
    _tell(
        event_name,
        session_id,
        state_dir,
        f"internal error in the {event_name} hook; {happened}; details in {where}",
    )
    return 0


def _tell(event_name: str, session_id: str | None, state_dir: Path | None, text: str) -> None:
    """Say `text` now, and again at the session's next visible event if this one's may go unseen."""
    _say(text)
    _keep_notice(event_name, session_id, state_dir, text)


def _keep_notice(event_name: str, session_id: str | None, state_dir: Path | None, text: str) -> None:
    """Keep what was said at an event whose notices the CLI may not show, for `_with_earlier_notices`."""
    if event_name in VISIBLE_EVENTS or session_id is None or state_dir is None:
        return
    from tiergate import notices

    notices.keep(state_dir, session_id, event_name, text)


def _with_earlier_notices(reply: HookReply | None, project: Project, session_id: str) -> HookReply | None:
    """`reply` with what this session's unseen events had to say prepended to its system message."""
    # Most events find none: the store is imported only when its file is there (`notices.NOTICES_DIR`).
    if not (project.state_dir / "notices" / f"{session_id}.txt").exists():
        return reply
    from tiergate import notices

    earlier = ["tiergate: " + line for line in notices.take(project, session_id)]
    if not earlier:
        return reply
    import dataclasses

    from tiergate.hook.protocol import HookReply

    reply = reply or HookReply()
    messages = [*earlier, reply.system_message] if reply.system_message else earlier
    return dataclasses.replace(reply, system_message="\n".join(messages))


class _StdoutToStderr:
    """While a handler runs, anything it or a child process prints lands on stderr (which Claude Code
    keeps in its debug log on exit 0): stdout carries the protocol answer and nothing else, or a stray
    line would turn the answer into plain text and silently drop a block."""

    def __enter__(self) -> None:
        sys.stdout.flush()
        self._saved_fd = os.dup(1)
        self._saved_stdout = sys.stdout
        os.dup2(2, 1)
        sys.stdout = sys.stderr

    def __exit__(self, *exc_info: object) -> None:
        sys.stdout.flush()
        sys.stdout = self._saved_stdout
        os.dup2(self._saved_fd, 1)
        os.close(self._saved_fd)


def _write(answer: HookAnswer) -> None:
    _emit(sys.stdout, answer.stdout)
    _emit(sys.stderr, answer.stderr)


def _say(text: str) -> None:
    from tiergate.hook.protocol import system_message_line

    _emit(sys.stdout, system_message_line(text))


def _emit(stream: Any, text: str) -> None:
    if not text or stream is None:
        return
    try:
        stream.buffer.write(text.encode("utf-8", "backslashreplace"))
        stream.flush()
    except OSError:
        # Claude Code stopped listening (timeout, cancel); nothing left to tell it. Point the stream at
        # /dev/null so the interpreter's final flush does not print a BrokenPipeError.
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
