"""Claude Code's /goal evaluator, scripted as the judge it is: it reads the transcript alone and believes
what the agent writes. At each Stop under a goal the CLI sends it one request with no tools, whose last
user text ends with "ARGUMENTS: <the Stop hook's input JSON>"; it answers one JSON object, `{"ok": true,
"reason"}`, `{"ok": false, "reason"}` or `{"ok": false, "impossible": true, "reason"}` (CLI 2.1.332,
docs/interop.md).

The scripted judge says met when the agent's final message claims the work done, impossible when it says
it cannot be done, and not yet otherwise: exactly the judge tiergate exists to back with evidence.
"""

from __future__ import annotations

import json
import re
from typing import Any

from testing.claude.scripted_api import ApiRequest, Reply, Rule, ScriptedApi, text

EVALUATOR_SYSTEM = "evaluating a stop-condition hook"
# What a believing judge takes for "done" and for "cannot be done" in the agent's last message.
DONE_WORDS = re.compile(r"\b(?:pass|passes|done|fixed|complete)\b", re.IGNORECASE)
IMPOSSIBLE_WORDS = re.compile(r"\b(?:impossible|cannot be done)\b", re.IGNORECASE)


def is_evaluation(request: ApiRequest) -> bool:
    """Whether a request is the goal evaluator's: no tools, and its system text says so."""
    return request.is_messages_call and not request.tool_names and EVALUATOR_SYSTEM in request.system


def stop_input(request: ApiRequest) -> dict[str, Any]:
    """The Stop hook input the evaluator is given (the JSON after "ARGUMENTS:")."""
    last = request.last_user_text()
    _, _, arguments = last.rpartition("ARGUMENTS:")
    try:
        data = json.loads(arguments.strip())
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def believing_answer(request: ApiRequest) -> Reply:
    """Met if the agent said the work is done, impossible if it said it cannot be, else not yet."""
    message = str(stop_input(request).get("last_assistant_message") or "")
    if IMPOSSIBLE_WORDS.search(message):
        answer: dict[str, Any] = {
            "ok": False,
            "impossible": True,
            "reason": "the agent says it cannot be done",
        }
    elif DONE_WORDS.search(message):
        answer = {"ok": True, "reason": "the agent reports the condition met"}
    else:
        answer = {"ok": False, "reason": "the agent has not reported the condition met yet"}
    return text(json.dumps(answer))


def believing_judge(api: ScriptedApi) -> None:
    """Answer every goal evaluation as a judge that believes the agent (first, before other rules)."""
    api.rules.insert(0, Rule(believing_answer, when=is_evaluation, name="goal evaluator"))


def evaluations(api: ScriptedApi) -> list[ApiRequest]:
    """The evaluator's requests, in order."""
    return [r for r in api.requests if is_evaluation(r)]
