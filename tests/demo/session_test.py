"""The scripted session (`tiergate.demo.session`): hook answers read as the CLI reads them, answers the
protocol does not allow fail the demo, and transcripts in the CLI's JSON Lines shape."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tiergate.demo import OffScriptError
from tiergate.demo.session import Answer, Session, Transcript, _answer


def _ran(exit_code: int, stdout: str, stderr: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(["tiergate", "hook"], exit_code, stdout, stderr)


def test_an_answer_blocks_only_with_a_block_decision_and_a_reason() -> None:
    blocking = Answer("Stop", 0, {"decision": "block", "reason": "run the tests"}, "")
    no_reason = Answer("Stop", 0, {"decision": "block"}, "")
    approving = Answer("Stop", 0, {"decision": "approve", "reason": "fine"}, "")

    assert blocking.block == "run the tests"
    assert no_reason.block is None
    assert approving.block is None


def test_an_answer_reads_its_context_and_message_only_when_they_are_text() -> None:
    answer = Answer(
        "SubagentStart",
        0,
        {"hookSpecificOutput": {"additionalContext": "check the diff"}, "systemMessage": "tiergate: on"},
        "",
    )
    malformed = Answer("SubagentStart", 0, {"hookSpecificOutput": "x", "systemMessage": 3}, "")

    assert (answer.context, answer.message) == ("check the diff", "tiergate: on")
    assert (malformed.context, malformed.message) == (None, "")


def test_a_described_answer_names_the_block_first_then_the_latest_notice() -> None:
    blocked = Answer("Stop", 0, {"decision": "block", "reason": "the\ntests  fail", "systemMessage": "x"}, "")
    notices = Answer("Stop", 0, {"systemMessage": "first notice\nlatest notice\n"}, "")
    silent = Answer("SessionEnd", 0, {}, "")

    assert blocked.describe() == 'exit 0, "the tests fail"'
    assert notices.describe() == 'exit 0, "latest notice"'
    assert silent.describe() == "exit 0, no output"


def test_a_bash_call_is_recorded_as_a_tool_use_and_its_matching_result(tmp_path: Path) -> None:
    path = tmp_path / "projects" / "p" / "s.jsonl"
    transcript = Transcript(path, "demo-1")

    transcript.bash("pytest -q", 1, "1 failed")
    transcript.bash("pytest -q", 0, "5 passed")

    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [record["type"] for record in records] == ["assistant", "user", "assistant", "user"]
    assert {record["sessionId"] for record in records} == {"demo-1"}
    for use_record, result_record, failed in (
        (records[0], records[1], True),
        (records[2], records[3], False),
    ):
        [use] = use_record["message"]["content"]
        [result] = result_record["message"]["content"]
        assert (use["name"], use["input"]) == ("Bash", {"command": "pytest -q"})
        assert result["tool_use_id"] == use["id"]
        assert result["is_error"] is failed
    assert records[0]["message"]["content"][0]["id"] != records[2]["message"]["content"][0]["id"]


def test_a_session_keeps_its_transcript_under_the_projects_folder_and_drops_the_state_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERGATE_STATE_DIR", str(tmp_path / "elsewhere"))
    project = tmp_path / "my.project"
    project.mkdir()

    session = Session(project, tmp_path / "home")

    assert session.transcript.path.parent.parent == tmp_path / "home" / "projects"
    assert "." not in session.transcript.path.parent.name
    assert session.transcript.path.name == f"{session.id}.jsonl"
    assert "TIERGATE_STATE_DIR" not in session.env
    assert session.env["CLAUDE_PROJECT_DIR"] == str(project)


def test_a_hook_answer_the_protocol_allows_is_read_with_its_exit_code_and_stderr() -> None:
    answer = _answer("SubagentStop", _ran(2, "", "verify again"))

    assert (answer.exit_code, answer.output, answer.stderr) == (2, {}, "verify again")


@pytest.mark.parametrize(
    ("result", "said"),
    [
        (_ran(0, "Traceback (most recent call last)"), "the Stop hook wrote something that is not a JSON"),
        (_ran(0, "[1, 2]"), "the Stop hook wrote something that is not a JSON"),
        (_ran(1, "{}", "boom"), "the Stop hook exited 1: boom"),
        (_ran(0, json.dumps({"systemMessage": "tiergate: internal error"})), "the Stop hook failed open"),
    ],
)
def test_a_hook_answer_off_the_protocol_or_failing_open_fails_the_demo(
    result: subprocess.CompletedProcess[str], said: str
) -> None:
    with pytest.raises(OffScriptError, match=said):
        _answer("Stop", result)
