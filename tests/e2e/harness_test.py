"""The scripted Messages API on its own, spoken to over HTTP the way the CLI speaks to it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from testing.claude.scripted_api import Failure, Rule, ScriptedApi, agent, bash, text

MAIN_SYSTEM = [
    {"type": "text", "text": "x-anthropic-billing-header: cc_version=1;"},
    {"type": "text", "text": "Main."},
]
SUB_SYSTEM = [{"type": "text", "text": "x-anthropic-billing-header: cc_version=1; cc_is_subagent=true;"}]
TOOLS = [{"name": "Bash", "input_schema": {}}, {"name": "Agent", "input_schema": {}}]


def post(api: ScriptedApi, path: str, body: dict[str, Any]) -> tuple[int, str]:
    request = urllib.request.Request(
        api.url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def turn(user: Any, *, system: list[dict[str, str]] = MAIN_SYSTEM, stream: bool = True) -> dict[str, Any]:
    return {
        "model": "claude-test",
        "system": system,
        "tools": TOOLS,
        "stream": stream,
        "messages": [{"role": "user", "content": user}],
    }


def sse(body: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for chunk in body.strip().split("\n\n"):
        name_line, data_line = chunk.split("\n")
        events.append((name_line.removeprefix("event: "), json.loads(data_line.removeprefix("data: "))))
    return events


def test_a_tool_use_reply_streams_as_the_messages_api_does() -> None:
    with ScriptedApi() as api:
        api.on(bash("echo hi"), thread="main")
        status, body = post(api, "/v1/messages", turn("go"))

    assert status == 200
    events = sse(body)
    assert [name for name, _ in events] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[0][1]["message"]["model"] == "claude-test"
    assert events[1][1]["content_block"]["name"] == "Bash"
    partial = events[2][1]["delta"]["partial_json"]
    assert json.loads(partial) == {"command": "echo hi", "description": "Run a command"}
    assert events[4][1]["delta"]["stop_reason"] == "tool_use"


def test_rules_tell_main_thread_subagent_and_side_requests_apart() -> None:
    with ScriptedApi() as api:
        api.on(text("from main"), thread="main")
        api.on(text("from subagent"), thread="subagent")
        main = post(api, "/v1/messages", turn("go", stream=False))[1]
        sub = post(api, "/v1/messages", turn("go", system=SUB_SYSTEM, stream=False))[1]
        side = post(api, "/v1/messages", {**turn("title?", stream=False), "tools": []})[1]

    assert json.loads(main)["content"] == [{"type": "text", "text": "from main"}]
    assert json.loads(sub)["content"] == [{"type": "text", "text": "from subagent"}]
    assert json.loads(side)["content"][0]["text"] == "Scripted title"
    assert [r.is_main_thread for r in api.requests] == [True, False, False]
    assert [r.is_subagent for r in api.requests] == [False, True, False]
    assert api.unmatched() == []


def test_a_sequence_answers_in_order_then_falls_through() -> None:
    with ScriptedApi() as api:
        api.sequence(agent("p:x", "verify"), text("second"), thread="main")
        replies = [json.loads(post(api, "/v1/messages", turn("go", stream=False))[1]) for _ in range(3)]

    assert replies[0]["content"][0]["input"]["subagent_type"] == "p:x"
    assert replies[0]["stop_reason"] == "tool_use"
    assert replies[1]["content"] == [{"type": "text", "text": "second"}]
    assert replies[1]["stop_reason"] == "end_turn"
    assert replies[2]["content"] == [{"type": "text", "text": "OK."}]
    assert len(api.unmatched()) == 1


def test_last_user_text_sees_tool_results_and_conditions_combine() -> None:
    tool_result = [
        {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "3 passed"}]}
    ]
    with ScriptedApi() as api:
        api.script(
            Rule(text("saw result"), thread="main", after_tool_result=True, last_user_contains="passed"),
            Rule(text("fallback"), thread="main"),
        )
        first = json.loads(post(api, "/v1/messages", turn(tool_result, stream=False))[1])
        second = json.loads(post(api, "/v1/messages", turn("passed", stream=False))[1])

    assert first["content"][0]["text"] == "saw result"
    assert second["content"][0]["text"] == "fallback"
    assert api.requests[0].last_user_text() == "3 passed"


def test_failures_unknown_routes_and_token_counts_are_answered_and_logged() -> None:
    with ScriptedApi() as api:
        api.on(Failure(429, "rate_limit_error", "slow down"), thread="main")
        failed = post(api, "/v1/messages", turn("go"))
        missing = post(api, "/v1/nowhere", {})
        counted = post(api, "/v1/messages/count_tokens", turn("go" * 100))

    assert failed[0] == 429
    assert json.loads(failed[1])["error"] == {"type": "rate_limit_error", "message": "slow down"}
    assert missing[0] == 404
    assert [r.path for r in api.unknown_routes()] == ["/v1/nowhere"]
    assert counted[0] == 200
    assert json.loads(counted[1])["input_tokens"] > 10
