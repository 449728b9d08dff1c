"""UserPromptSubmit: `/tiergate:ralph` starts a loop in this session, `/tiergate:cancel` ends it; any
other prompt only tells an active loop that a new turn starts: the user is back, or a background task
(a verifier launched in the background) reports back through a `<task-notification>` prompt, which is
not the user."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.errors import UserError
from tiergate.handlers import FOREIGN_COMMANDS, GOAL_PROMPTS, common
from tiergate.hook.protocol import HookReply
from tiergate.loop import messages
from tiergate.loop import slash as loopcommands
from tiergate.loop import store as state
from tiergate.loop.events import Cancel, Outcome, TaskNotification, UserPrompt
from tiergate.loop.state import LoopState
from tiergate.text import plural

if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.inputs import UserPromptSubmitInput
    from tiergate.loop.features import Feature
    from tiergate.loop.goal import GoalAtStop
    from tiergate.project import Project

TASK_NOTIFICATION = "<task-notification>"


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    from tiergate.hook.inputs import parse_input

    prompt = parse_input("UserPromptSubmit", payload)
    session_id = prompt.session_id
    command = loopcommands.parse(prompt.prompt)
    if isinstance(command, loopcommands.StartLoop | loopcommands.StartAutopilot):
        return start(project, session_id, command)
    if isinstance(command, loopcommands.CancelLoop):
        outcome = common.apply(project, "UserPromptSubmit", session_id, Cancel("/tiergate:cancel"))
        cancelled = outcome.state if outcome.decision == "cancel" else None
        return HookReply(
            additional_context=messages.CANCELLED_CONTEXT if cancelled else None,
            system_message=messages.cancelled_message(cancelled),
        )
    if isinstance(command, loopcommands.CommandError):
        return HookReply(
            additional_context=messages.not_started_context(command.message),
            system_message=f"tiergate: {command.message}",
        )
    if command is None:
        adopted = adopt_command(project, session_id, prompt.prompt, prompt.transcript_path)
        if adopted is not None:
            return adopted
    return new_turn(project, prompt)


def new_turn(project: Project, prompt: UserPromptSubmitInput) -> HookReply | None:
    """Any other prompt tells an active loop that a new turn starts: the user's, or a background task's."""
    current = state.read(project, prompt.session_id)
    if current is None or not current.active:
        return None
    if is_task_notification(prompt.prompt):
        common.apply(project, "UserPromptSubmit", prompt.session_id, TaskNotification())
        return None
    event = UserPrompt(_goal(current, prompt))
    outcome = common.apply(project, "UserPromptSubmit", prompt.session_id, event)
    return None if outcome.message is None else HookReply(system_message=outcome.message)


def _goal(current: LoopState, prompt: UserPromptSubmitInput) -> GoalAtStop | None:
    """An adopted goal loop's goal as the transcript has it now: `/goal clear` runs no hook, so the next
    prompt is where tiergate sees it first."""
    if current.adopted != "goal":
        return None
    from tiergate.handlers import goal

    return goal.at_prompt(prompt.transcript_path)


def adopt_command(
    project: Project, session_id: str, typed: str, transcript_path: str | None = None
) -> HookReply | None:
    """The user's own loop started by its command (ralph-loop's, OMC's mode, Claude Code's /goal or a goal
    the user approved), adopted; or its cancel (OMC's, /goal clear), which ends the adopted loop (never
    a claim). None: nothing of the kind, the prompt goes on as usual."""
    text = typed.lstrip()
    if not text.startswith(FOREIGN_COMMANDS):
        return None  # what the parsers below would say, without importing them for every prompt
    if text.startswith(GOAL_PROMPTS):
        from tiergate.handlers import goal

        return goal.typed(project, session_id, typed) or goal.approved(
            project, session_id, typed, transcript_path
        )
    return _plugin_command(project, session_id, typed)


def _plugin_command(project: Project, session_id: str, typed: str) -> HookReply | None:
    """A loop plugin's command: ralph-loop's or an OMC mode's, adopted, or OMC's cancel."""
    from tiergate.loop import adoption

    found = adoption.parse_ralph_loop_command(typed) or adoption.parse_omc_command(typed)
    if found is None:
        return None
    if isinstance(found, adoption.OmcCancel):
        current = state.read(project, session_id)
        if current is None or not current.active or current.adopted not in ("omc-ralph", "omc-autopilot"):
            return None
        common.apply(project, "UserPromptSubmit", session_id, Cancel("/oh-my-claudecode:cancel"))
        return HookReply(system_message="tiergate: the adopted OMC loop ends with /oh-my-claudecode:cancel.")
    from tiergate.handlers import adoption as adopting

    loop = adopting.adopt(project, session_id, "UserPromptSubmit", found, by_command=True)
    return None if loop is None else adopting.adopted_reply(loop)


def is_task_notification(prompt: str) -> bool:
    """Whether the prompt is Claude Code reporting a background task's end (CLI 2.1.332: the prompt
    starts with a `<task-notification>` element), not something the user typed."""
    return prompt.lstrip().startswith(TASK_NOTIFICATION)


def start(
    project: Project, session_id: str, command: loopcommands.StartLoop | loopcommands.StartAutopilot
) -> HookReply:
    """Start a loop (or an autopilot) in this session, replacing whatever loop it had."""
    from tiergate.loop.start import base_text, measured_at_head, rules_reason
    from tiergate.loop.startrequest import Start

    try:
        if isinstance(command, loopcommands.StartAutopilot):
            listed = load_features(project, command.features_file)
            asked = Start(features=listed, max_iterations=command.max_iterations)
        else:
            asked = Start(command.task, promise=command.promise, max_iterations=command.max_iterations)
        new, differs = measured_at_head(project, session_id, asked)
    except UserError as exc:
        return HookReply(
            additional_context=messages.not_started_context(str(exc)),
            system_message=f"tiergate: cannot start a loop: {exc}",
        )

    def replace_loop(current: LoopState | None) -> tuple[LoopState, LoopState | None]:
        return new, current

    previous = state.update(project, session_id, replace_loop)
    _mark_start(project, session_id, new.base, differs)
    _begin_baseline(project, new)
    name = "/tiergate:autopilot" if new.features else "/tiergate:ralph"
    reasons: tuple[str, ...] = (
        f"start: {name}, at most {plural(new.max_iterations, 'iteration')}, base {base_text(new)}",
        rules_reason(new),
    )
    if previous is not None and previous.active:
        reasons += (f"replaces the active loop of this session (phase {previous.phase})",)
    # The task, for `tiergate report` to name the loop by (the log is its one source).
    logged = (("task", new.task),)
    common.log_outcome(project, "UserPromptSubmit", session_id, Outcome(new, "start", reasons, logged=logged))
    return HookReply(
        additional_context=messages.started_context(new),
        system_message=messages.started_message(new, previous),
    )


def load_features(project: Project, name: str) -> tuple[Feature, ...]:
    """The features file named relative to the project's directory; UserError when it is unusable."""
    from pathlib import Path

    from tiergate.loop.start import read_features

    return read_features(project.root / Path(name).expanduser())


def _begin_baseline(project: Project, new: LoopState) -> None:
    from tiergate.handlers import effects

    effects.begin_baseline(project, new)


def _mark_start(project: Project, session_id: str, base: str | None, differs: bool | None) -> None:
    """The workspace as the loop finds it is its first green point: a rollback never goes behind what
    the user had before the loop (uncommitted work included). `differs`: as the start measured it."""
    from tiergate.handlers import effects

    effects.mark_start(project, session_id, base, differs)
