"""UserPromptSubmit in a loop session: a prompt starts a turn, a task notification is not the user,
/tiergate:cancel ends the loop, a bad command starts nothing and says why."""

from __future__ import annotations

from pathlib import Path

from testing.loopproject import a_project, decisions, payload, with_loop

from tiergate.handlers import user_prompt_submit
from tiergate.loop import store


def prompt(text: str, session_id: str = "s1") -> dict[str, object]:
    return payload("UserPromptSubmit", session_id, prompt=text)


def test_the_user_and_a_task_notification_are_logged_apart(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    with_loop(project)
    assert user_prompt_submit.handle(prompt("go on"), project) is None
    assert user_prompt_submit.handle(prompt("<task-notification>done</task-notification>"), project) is None
    assert [r["decision"] for r in decisions(project)] == ["user-prompt", "task-notification"]


def test_slash_cancel_ends_the_loop_and_says_so(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    with_loop(project)
    reply = user_prompt_submit.handle(prompt("/tiergate:cancel"), project)
    assert reply is not None and "cancelled" in (reply.system_message or "")
    loop = store.read(project, "s1")
    assert loop is not None and loop.phase == "cancelled"


def test_a_bad_start_command_starts_nothing_and_says_why(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    reply = user_prompt_submit.handle(prompt("/tiergate:ralph --max-iterations 3"), project)
    assert reply is not None and "no task given" in (reply.system_message or "")
    assert store.read(project, "s1") is None


def test_a_prompt_in_a_session_without_a_loop_is_left_alone(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    assert user_prompt_submit.handle(prompt("hello", "s2"), project) is None
    assert decisions(project, "s2") == []
