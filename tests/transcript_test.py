from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tiergate import transcript
from tiergate.transcript import agent_model, last_assistant_text, ran_a_command

T0 = datetime(2026, 5, 1, 12, 0, 0, tzinfo=UTC)


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def user(text: str, seconds: float = 0) -> dict[str, Any]:
    return {"type": "user", "timestamp": _at(seconds), "message": {"role": "user", "content": text}}


def assistant(message_id: str, *blocks: dict[str, Any], seconds: float = 0) -> dict[str, Any]:
    return {
        "type": "assistant",
        "timestamp": _at(seconds),
        "message": {"id": message_id, "type": "message", "role": "assistant", "content": list(blocks)},
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(tool_use_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}


def tool_result(tool_use_id: str, seconds: float, *, is_error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": "ok", "is_error": is_error}
    return {"type": "user", "timestamp": _at(seconds), "message": {"role": "user", "content": [block]}}


def write_jsonl(path: Path, records: list[dict[str, Any]], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail)
    return path


def test_the_last_message_with_text_wins_over_later_bookkeeping(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            user("do it"),
            assistant("m1", text("first answer")),
            user("again"),
            assistant("m2", {"type": "thinking", "thinking": "hmm"}),
            assistant("m2", text("All done.")),
            assistant("m2", text("<promise>DONE</promise>")),
            {"type": "system", "subtype": "stop_hook_summary"},
            {"type": "attachment", "attachment": {"type": "date"}},
            {"type": "last-prompt", "text": "assistant"},
        ],
    )

    assert last_assistant_text(path) == "All done.\n<promise>DONE</promise>"


def test_a_message_id_change_ends_the_message(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            assistant("m1", text("earlier")),
            assistant("m2", tool_use("t1", "Bash", {})),
            assistant("m3", text("last")),
        ],
    )

    assert last_assistant_text(path) == "last"


def test_a_half_written_last_line_is_skipped(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [assistant("m1", text("complete"))],
        tail='{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"cut sh',
    )

    assert last_assistant_text(path) == "complete"


def test_junk_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        json.dumps(assistant("m1", text("kept"))).encode()
        + b'\n\xff\xfe not json "assistant"\n["assistant"]\n\n   \n'
        + b'{"type":"assistant","message":"a string"}\n{"type":"assistant","message":{"content":"str"}}\n'
    )

    assert last_assistant_text(path) == "kept"


def test_no_assistant_text_is_none(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [user("hi"), assistant("m1", tool_use("t1", "Bash", {}))])

    assert last_assistant_text(path) is None
    assert last_assistant_text(write_jsonl(tmp_path / "empty.jsonl", [])) is None


def test_text_beyond_the_byte_window_is_not_read(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl", [assistant("m1", text("old")), *[user("x" * 1000, i) for i in range(100)]]
    )

    assert last_assistant_text(path, max_bytes=50_000) is None
    assert last_assistant_text(path, max_bytes=200_000) == "old"


def test_a_first_line_is_read_when_the_window_reaches_the_start(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(assistant("m1", text("only"))))  # no trailing newline either

    assert last_assistant_text(path) == "only"
    assert last_assistant_text(path, max_bytes=path.stat().st_size - 1) is None


def test_lines_longer_than_a_read_block(tmp_path: Path) -> None:
    long_text = "y" * 3_000_000
    path = write_jsonl(tmp_path / "t.jsonl", [assistant("m1", text(long_text)), user("z" * 700_000)])

    assert last_assistant_text(path) == long_text


@pytest.mark.parametrize("kind", ["missing", "directory", "empty string", "none", "fifo", "device"])
def test_unreadable_transcripts_are_none_and_never_hang(tmp_path: Path, kind: str) -> None:
    path: str | Path | None
    if kind == "missing":
        path = tmp_path / "nope.jsonl"
    elif kind == "directory":
        path = tmp_path
    elif kind == "empty string":
        path = ""
    elif kind == "none":
        path = None
    elif kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    else:
        path = "/dev/zero"
    answers: list[object] = []
    reader = threading.Thread(
        target=lambda: answers.extend(
            [last_assistant_text(path), ran_a_command(path, T0), agent_model(str(path) if path else None)]
        )
    )

    reader.start()
    reader.join(timeout=5)

    assert not reader.is_alive(), "the reader blocked"
    assert answers == [None, False, None]


# Finding the command a verifier ran: fast on tens of megabytes, exact about what counts (a Bash call,
# made after the verifier started).

STARTED = T0 + timedelta(minutes=10)
AFTER = STARTED + timedelta(seconds=1)


def call_line(name: str, at: datetime, command: str = "pytest -q") -> str:
    """An assistant tool call as the CLI writes it: compact JSON, one record a line."""
    use = tool_use(f"toolu_{name}", name, {"command": command})
    record = assistant("m", use) | {"timestamp": at.isoformat().replace("+00:00", "Z")}
    return json.dumps(record, separators=(",", ":")) + "\n"


def output_line(at: datetime, text: str) -> str:
    block = {"type": "tool_result", "tool_use_id": "toolu_x", "content": text}
    record = {"type": "user", "timestamp": at.isoformat(), "message": {"role": "user", "content": [block]}}
    return json.dumps(record, separators=(",", ":")) + "\n"


def padded(path: Path, *lines: str, padding_mb: int = 0) -> Path:
    """`lines[0]`, then `padding_mb` MB of tool output, then the other lines."""
    with path.open("w") as f:
        f.write(lines[0] if lines else "")
        output = output_line(STARTED + timedelta(seconds=2), "x" * 20_000)
        while f.tell() < padding_mb * 1024 * 1024:
            f.write(output)
        f.writelines(lines[1:])
    return path


class CountedJson:
    """`json` as the transcript module sees it, counting the lines it parses."""

    def __init__(self) -> None:
        self.parsed = 0

    def loads(self, data: str | bytes) -> Any:
        self.parsed += 1
        return json.loads(data)


def test_a_command_far_back_in_a_large_transcript_is_found_fast_and_lean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = padded(tmp_path / "agent.jsonl", call_line("Bash", AFTER), padding_mb=50)
    counted = CountedJson()
    monkeypatch.setattr(transcript, "json", counted)
    tracemalloc.start()
    found = ran_a_command(str(path), STARTED)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert found
    assert peak < 20 * 1024 * 1024  # blocks of 1 MB, not the file
    # What makes it fast: 50 MB of tool output searched for the call's bytes, and only its line parsed.
    assert counted.parsed == 1


def test_the_latest_call_decides_and_calls_before_the_start_do_not_count(tmp_path: Path) -> None:
    before = STARTED - timedelta(minutes=3)
    assert not ran_a_command(padded(tmp_path / "a", call_line("Bash", before), padding_mb=1), STARTED)
    assert ran_a_command(padded(tmp_path / "b", call_line("Bash", before), call_line("Bash", AFTER)), STARTED)
    # A naive time is taken as UTC rather than failing to compare.
    assert ran_a_command(tmp_path / "b", STARTED.replace(tzinfo=None))


def test_a_call_without_a_readable_time_still_counts(tmp_path: Path) -> None:
    line = call_line("Bash", AFTER).replace(AFTER.isoformat().replace("+00:00", "Z"), "yesterday")
    assert "yesterday" in line
    assert ran_a_command(padded(tmp_path / "agent.jsonl", line), STARTED)


@pytest.mark.parametrize(
    "lines",
    [
        (call_line("Read", AFTER),),
        (output_line(AFTER, '{"name":"Bash","input":{}} is what a call looks like'),),
        (json.dumps({"type": "user", "timestamp": AFTER.isoformat(), "name": "Bash"}) + "\n",),
        (call_line("Bash", AFTER)[:-20] + "\n",),  # cut short: not a record
        (),
    ],
)
def test_only_a_bash_call_of_the_verifier_counts(tmp_path: Path, lines: tuple[str, ...]) -> None:
    assert not ran_a_command(padded(tmp_path / "agent.jsonl", *lines), STARTED)


@pytest.mark.parametrize("shift", [-40, -13, -5, 0, 3, 30])
def test_a_call_across_a_block_boundary_is_found(tmp_path: Path, shift: int) -> None:
    block = 1024 * 1024
    head, call, tail = output_line(AFTER, "z"), call_line("Bash", AFTER), output_line(AFTER, "y" * 100)
    key = len(head) + call.index('"name"')
    # Filler so that the call's "name" key starts `shift` bytes after the last block's boundary.
    filler = output_line(AFTER, "")
    filler = output_line(AFTER, "p" * (key - shift + block - len(head) - len(call) - len(tail) - len(filler)))
    path = tmp_path / "agent.jsonl"
    path.write_text(head + call + filler + tail)
    assert key - (path.stat().st_size - block) == shift
    assert ran_a_command(path, STARTED)


def test_a_call_beyond_the_window_is_not_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = padded(tmp_path / "agent.jsonl", call_line("Bash", AFTER), padding_mb=3)
    assert ran_a_command(path, STARTED)
    monkeypatch.setattr(transcript, "COMMAND_WINDOW_BYTES", 2 * 1024 * 1024)
    assert not ran_a_command(path, STARTED)


def test_the_model_a_verifier_ran_on_comes_from_its_meta_file(tmp_path: Path) -> None:
    agent = tmp_path / "agent-a1.jsonl"
    agent.write_text("")
    assert agent_model(str(agent)) is None
    meta = tmp_path / "agent-a1.meta.json"
    meta.write_text(
        json.dumps({"agentType": "tiergate:architect", "model": "claude-opus-5-5", "finished": True})
    )
    assert agent_model(str(agent)) == "claude-opus-5-5"
    for junk in ("{", "[]", '{"model": 5}', '{"model": ""}'):
        meta.write_text(junk)
        assert agent_model(str(agent)) is None
    assert agent_model(None) is None
    assert agent_model(str(tmp_path / "agent-a1.txt")) is None


def _big_transcript(path: Path, size: int, final: str) -> None:
    """A transcript of about `size` bytes in the shape of a long session: tool output dominates."""
    output = "line of test output " * 400
    with path.open("w") as f:
        i = 0
        while f.tell() < size:
            f.write(json.dumps(assistant(f"m{i}", tool_use(f"t{i}", "Bash", {"command": "pytest"}))) + "\n")
            f.write(json.dumps(tool_result(f"t{i}", i) | {"toolUseResult": {"stdout": output}}) + "\n")
            f.write(json.dumps({"type": "attachment", "attachment": {"type": "date"}}) + "\n")
            i += 1
        f.write(json.dumps(assistant(f"m{i}", text(final))) + "\n")
        f.write(json.dumps({"type": "system", "subtype": "stop_hook_summary"}) + "\n")


def test_a_50_mb_transcript_is_read_from_its_end_in_under_100_mb(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    _big_transcript(path, 50 * 1024 * 1024, "<promise>DONE</promise>")
    # In a fresh process, so that peak RSS and the bytes read (the kernel's count for the process) measure
    # these reads and nothing else. (The whole 50 MB window is searched for a command in a test above.)
    code = (
        "import resource, sys\n"
        "from datetime import datetime, UTC\n"
        "from pathlib import Path\n"
        "from tiergate.transcript import last_assistant_text, ran_a_command\n"
        "def read():\n"
        "    return int(Path('/proc/self/io').read_text().split()[1])\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "start = read()\n"
        "text = last_assistant_text(sys.argv[1])\n"
        "read_for_text = read() - start\n"
        "start = read()\n"
        "ran = ran_a_command(sys.argv[1], datetime(2100, 1, 1, tzinfo=UTC))\n"
        "read_for_scan = read() - start\n"
        "grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before\n"
        "print(repr(text), read_for_text, read_for_scan, grown, ran)\n"
    )

    result = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True, timeout=60
    )
    found, read_for_text, read_for_scan, grown_kib, ran = result.stdout.split()

    assert found == "'<promise>DONE</promise>'"
    # What keeps it fast: the answers are near the end, and the file is read backwards until they are found.
    assert int(read_for_text) < 1024 * 1024
    assert int(grown_kib) < 100 * 1024
    assert ran == "False"  # the latest call in the file is older than the time asked about
    assert int(read_for_scan) < 2 * 1024 * 1024


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record) + "\n"


TOOL_DEFINITIONS = {
    "type": "attachment",
    "tools": [{"name": "Bash", "description": "Executes a bash command"}],
}
ANSWER = {
    "type": "assistant",
    "timestamp": "2026-01-01T00:00:00Z",
    "message": {"content": [{"type": "text", "text": "ok"}]},
}
BASH_CALL = {
    "type": "assistant",
    "timestamp": "2026-01-01T00:00:01Z",
    "message": {"content": [{"type": "tool_use", "name": "Bash", "input": {"command": "touch x"}}]},
}


def test_a_transcript_that_only_answers_ran_no_command_even_with_the_tool_list_in_it(tmp_path: Path) -> None:
    path = tmp_path / "agent.jsonl"
    path.write_text(_line(TOOL_DEFINITIONS) + _line(ANSWER))
    assert transcript.ran_no_command(path)


@pytest.mark.parametrize(
    "content",
    [
        _line(ANSWER) + _line(BASH_CALL),  # a Bash call, whenever it was
        _line(ANSWER) + '{"type": "assistant", "name": "Bash", cut',  # a line naming Bash that does not parse
    ],
)
def test_anything_short_of_certain_is_not_ran_no_command(tmp_path: Path, content: str) -> None:
    path = tmp_path / "agent.jsonl"
    path.write_text(content)
    assert not transcript.ran_no_command(path)
    assert not transcript.ran_no_command(tmp_path / "missing.jsonl")
    assert not transcript.ran_no_command(None)


def test_the_turns_tool_calls_are_those_since_the_last_prompt_or_hook_feedback(tmp_path: Path) -> None:
    clear = {"mode": "ralph"}
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            user("ralph: go"),
            assistant("m1", tool_use("t1", "state_clear", clear)),
            tool_result("t1", 1),
            assistant("m2", text("Done.")),
            user("Stop hook feedback:\nFAIL: test_value"),  # a new turn: the old call is not in it
            assistant(
                "m3", tool_use("t2", "Write", {"file_path": "a"}), tool_use("t3", "Bash", {"command": "ls"})
            ),
            tool_result("t2", 2),
            tool_result("t3", 2),
            assistant("m4", text("Working.")),
        ],
    )

    assert transcript.turn_tool_calls(path) == (("Write", {"file_path": "a"}), ("Bash", {"command": "ls"}))
    assert transcript.turn_tool_calls(tmp_path / "missing.jsonl") == ()


def test_the_last_text_block_is_read_alone(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            user("go"),
            assistant("m1", text("first"), text("<promise>DONE</promise>")),
            assistant("m1", tool_use("t", "Bash", {})),
        ],
    )

    assert transcript.last_text_block(path) == "<promise>DONE</promise>"
    assert transcript.last_text_block(None) is None


# Claude Code's /goal records ------------------------------------------------------------------------------

GOAL_SET = {"type": "goal_status", "met": False, "sentinel": True, "condition": "tests pass"}
GOAL_UNMET = {"type": "goal_status", "met": False, "condition": "tests pass", "reason": "not yet"}
GOAL_MET = {"type": "goal_status", "met": True, "condition": "tests pass", "reason": "says so"}


def goal_record(status: dict[str, Any]) -> dict[str, Any]:
    return {"type": "attachment", "attachment": status}


def tool_output(output: str) -> dict[str, Any]:
    result = {"type": "tool_result", "tool_use_id": "t1", "content": output}
    return {"type": "user", "message": {"role": "user", "content": [result]}}


def test_goal_records_split_at_the_last_assistant_record(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            goal_record(GOAL_SET),
            assistant("m1", text("First try.")),
            goal_record(GOAL_UNMET),
            user("Stop hook feedback: not yet"),
            # the agent quoting a record, in its text and in a tool's output: not records of the goal
            assistant("m2", text('I saw {"type": "goal_status", "met": true} in the log.')),
            tool_output(json.dumps(goal_record(GOAL_MET))),
            assistant("m3", text("Second try.")),
            goal_record(GOAL_MET),
        ],
    )

    assert transcript.goal_statuses(path) == ((GOAL_UNMET,), (GOAL_MET,), "Second try.")


def test_goal_records_before_any_evaluation_and_none_at_all(tmp_path: Path) -> None:
    pending = write_jsonl(tmp_path / "p.jsonl", [goal_record(GOAL_SET), assistant("m1", text("Working."))])
    without = write_jsonl(tmp_path / "w.jsonl", [user("hi"), assistant("m1", text("Hello."))])

    assert transcript.goal_statuses(pending) == ((GOAL_SET,), (), "Working.")
    assert transcript.goal_statuses(without) == ((), (), "Hello.")
    assert transcript.goal_statuses(tmp_path / "missing.jsonl") is None


def test_a_transcript_longer_than_the_window_without_a_goal_record_in_it_says_nothing(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [goal_record(GOAL_SET), *(user("x" * 1000) for _ in range(40)), assistant("m1", text("Hm."))],
    )

    assert transcript.goal_statuses(path, max_bytes=10_000) is None
    assert transcript.goal_statuses(path) == ((GOAL_SET,), (), "Hm.")
