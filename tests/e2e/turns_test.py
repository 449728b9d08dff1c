"""How the pinned Claude Code CLI identifies turns, seen through a recording plugin: what tiergate's loop
relies on to let through only the Stop of a turn an API error ended (tiergate.loop.decision, "API errors").

- Stop and StopFailure carry the `prompt_id` of the UserPromptSubmit that started their turn.
- A turn that ends on an API error fires StopFailure and no Stop; the next prompt has a new prompt_id.
- A background agent's result comes back as a `<task-notification>` prompt with a prompt_id of its own.
"""

from __future__ import annotations

import pytest
from testing.claude.cli import RunClaude
from testing.claude.probe_plugin import (
    ProbePlugin,
    probe_fixture,  # noqa: F401  (the `probe` fixture)
    script_background_checker,
)
from testing.claude.scripted_api import Failure, ScriptedApi, bash, text

pytestmark = pytest.mark.e2e


def test_stop_and_stop_failure_carry_the_prompt_id_of_their_turn(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    scripted_api.on(Failure(429, "rate_limit_error", "slow down"), thread="main", times=1)
    scripted_api.sequence(bash("echo hi"), text("second answer"), thread="main")

    # The StopFailure hook of the first turn only completes while the CLI is kept alive.
    run = run_claude(["first prompt", "second prompt"], plugin_dir=probe.root, await_hooks=["StopFailure"])

    assert run.returncode == 0, run.describe()
    first, second = probe.records("UserPromptSubmit")
    [failure] = probe.records("StopFailure")
    [stop] = probe.records("Stop")
    assert first["prompt_id"] and second["prompt_id"] and first["prompt_id"] != second["prompt_id"]
    assert (failure["error"], failure["prompt_id"]) == ("rate_limit", first["prompt_id"])
    assert (stop["last_assistant_message"], stop["prompt_id"]) == ("second answer", second["prompt_id"])


def test_a_task_notification_is_a_prompt_with_a_turn_of_its_own(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    script_background_checker(scripted_api, probe)

    run = run_claude("hello", plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    asked, notified = probe.records("UserPromptSubmit")
    assert notified["prompt"].startswith("<task-notification>")
    assert asked["prompt_id"] != notified["prompt_id"]
    assert [s["prompt_id"] for s in probe.records("Stop")] == [asked["prompt_id"], notified["prompt_id"]]
