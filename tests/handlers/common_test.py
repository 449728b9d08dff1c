"""What every event adapter does: decide under the session's lock and log it, answer only with what
the decision says, keep the no-progress limit within Claude Code's block cap, and tell the model and
the user of a loop bound from a shell where the event can say so."""

from __future__ import annotations

from pathlib import Path

from testing.loopproject import a_project, decisions, with_loop

from tiergate.handlers import common
from tiergate.hook.protocol import HookReply
from tiergate.loop import store
from tiergate.loop.events import Outcome, UserPrompt
from tiergate.loop.state import LIMITS, new_loop


def test_a_decision_is_stored_and_logged(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    with_loop(project, idle_blocks=3)
    outcome = common.apply(project, "UserPromptSubmit", "s1", UserPrompt())
    assert outcome.decision == "user-prompt"
    assert store.read(project, "s1") == outcome.state
    assert [r["decision"] for r in decisions(project)] == ["user-prompt"]


def test_a_decision_with_nothing_to_say_answers_nothing() -> None:
    assert common.reply(Outcome(None, "ignore", ())) is None
    said = common.reply(Outcome(None, "continue", (), block="back to work"))
    assert said == HookReply(block_reason="back to work")


def test_a_lowered_block_cap_lowers_the_no_progress_limit_and_nothing_else_does() -> None:
    assert common.limits({"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "3"}).idle_blocks == 3
    assert common.limits({"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "50"}) == LIMITS
    assert common.limits({"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "0"}) == LIMITS
    assert common.limits({"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "x"}) == LIMITS
    assert common.limits({}) == LIMITS


def test_a_bound_loop_is_told_where_the_event_can_say_so() -> None:
    bound = new_loop("s1", "Fix the parser", now=0.0, base=None, promise="DONE")
    told = common.with_binding("UserPromptSubmit", None, bound)
    assert told is not None and told.additional_context and told.system_message
    assert common.with_binding("Stop", None, bound) is None
