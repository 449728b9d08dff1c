from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tiergate.transcript import ToolRun, last_assistant_text, tool_runs_since

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
        target=lambda: answers.extend([last_assistant_text(path), tool_runs_since(path)])
    )

    reader.start()
    reader.join(timeout=5)

    assert not reader.is_alive(), "the reader blocked"
    assert answers == [None, None]


def test_tool_runs_since_pairs_calls_with_results(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "agent.jsonl",
        [
            user("verify", 0),
            assistant("m1", tool_use("t0", "Read", {"file_path": "/p/a.py"}), seconds=1),
            tool_result("t0", 2),
            assistant("m2", text("Running the tests"), seconds=10),
            assistant("m2", tool_use("t1", "Bash", {"command": "pytest -q"}), seconds=10),
            assistant("m2", tool_use("t2", "Bash", {"command": "ruff check ."}), seconds=10),
            tool_result("t1", 12, is_error=True),
            tool_result("t2", 13),
            assistant("m3", tool_use("t3", "Bash", {"command": "sleep 100"}), seconds=20),
        ],
    )

    runs = tool_runs_since(path, T0 + timedelta(seconds=5))

    assert runs == [
        ToolRun(
            "t1", "Bash", {"command": "pytest -q"}, T0 + timedelta(seconds=10), finished=True, is_error=True
        ),
        ToolRun(
            "t2",
            "Bash",
            {"command": "ruff check ."},
            T0 + timedelta(seconds=10),
            finished=True,
            is_error=False,
        ),
        ToolRun(
            "t3", "Bash", {"command": "sleep 100"}, T0 + timedelta(seconds=20), finished=False, is_error=False
        ),
    ]
    all_runs = tool_runs_since(path)
    assert all_runs is not None
    assert [run.tool_use_id for run in all_runs] == ["t0", "t1", "t2", "t3"]
    # A naive `since` is taken as UTC rather than failing to compare.
    assert tool_runs_since(path, datetime(2026, 5, 1, 12, 0, 15)) == runs[-1:]
    assert tool_runs_since(path, T0 + timedelta(hours=1)) == []


def test_tool_runs_of_an_empty_transcript_are_an_empty_list(tmp_path: Path) -> None:
    assert tool_runs_since(write_jsonl(tmp_path / "t.jsonl", [user("x")])) == []


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


def test_a_50_mb_transcript_costs_under_02_s_and_100_mb(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    _big_transcript(path, 50 * 1024 * 1024, "<promise>DONE</promise>")
    # In a fresh process, so that peak RSS measures this read and nothing else.
    code = (
        "import resource, sys, time\n"
        "from tiergate.transcript import last_assistant_text, tool_runs_since\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "start = time.perf_counter()\n"
        "text = last_assistant_text(sys.argv[1])\n"
        "elapsed = time.perf_counter() - start\n"
        "start = time.perf_counter()\n"
        "runs = tool_runs_since(sys.argv[1])\n"
        "elapsed_tools = time.perf_counter() - start\n"
        "grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before\n"
        "print(repr(text), elapsed, elapsed_tools, grown, len(runs))\n"
    )

    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    )
    assert time.perf_counter() - started < 5
    found, elapsed, elapsed_tools, grown_kib, run_count = result.stdout.split()

    assert found == "'<promise>DONE</promise>'"
    assert float(elapsed) < 0.2
    assert int(grown_kib) < 100 * 1024
    # The worst case, a full 16 MiB window of records to look at, stays bounded too.
    assert float(elapsed_tools) < 2.0
    assert int(run_count) > 100
