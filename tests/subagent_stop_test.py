"""Finding the command a verifier ran in its own transcript: fast on tens of megabytes, exact about
what counts (a Bash call of the verifier, after it started)."""

from __future__ import annotations

import json
import os
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tiergate.handlers import subagent_stop
from tiergate.handlers.subagent_stop import ran_a_command

STARTED = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def stamp(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def tool_call(name: str, at: datetime, command: str = "pytest -q") -> str:
    use = {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": {"command": command}}
    record = {"type": "assistant", "timestamp": stamp(at), "message": {"id": "m", "content": [use]}}
    return json.dumps(record, separators=(",", ":")) + "\n"


def tool_output(at: datetime, text: str) -> str:
    result = {"type": "tool_result", "tool_use_id": "toolu_x", "content": text}
    record = {"type": "user", "timestamp": stamp(at), "message": {"role": "user", "content": [result]}}
    return json.dumps(record, separators=(",", ":")) + "\n"


def transcript(path: Path, *lines: str, padding_mb: int = 0) -> Path:
    with path.open("w") as f:
        f.write(lines[0] if lines else "")
        output = tool_output(STARTED + timedelta(seconds=2), "x" * 20_000)
        while f.tell() < padding_mb * 1024 * 1024:
            f.write(output)
        for line in lines[1:]:
            f.write(line)
    return path


AFTER = STARTED + timedelta(seconds=1)


def test_a_command_early_in_a_large_transcript_is_found_fast_and_lean(tmp_path: Path) -> None:
    path = transcript(tmp_path / "agent.jsonl", tool_call("Bash", AFTER), padding_mb=50)
    tracemalloc.start()
    began = time.perf_counter()
    found = ran_a_command(str(path), STARTED)
    took = time.perf_counter() - began
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert found
    assert peak < 20 * 1024 * 1024  # blocks of 1 MB, not the file
    assert took < 1.0, f"{took:.3f} s for 50 MB"  # about 0.05 s measured; generous for a loaded CI machine


def test_the_latest_call_decides_and_calls_before_the_start_do_not_count(tmp_path: Path) -> None:
    before = STARTED - timedelta(minutes=3)
    assert not ran_a_command(
        str(transcript(tmp_path / "a", tool_call("Bash", before), padding_mb=1)), STARTED
    )
    both = transcript(tmp_path / "b", tool_call("Bash", before), tool_call("Bash", AFTER))
    assert ran_a_command(str(both), STARTED)


@pytest.mark.parametrize(
    "lines",
    [
        (tool_call("Read", AFTER),),
        (tool_output(AFTER, '{"name":"Bash","input":{}} is what a call looks like'),),
        (json.dumps({"type": "user", "timestamp": stamp(AFTER), "name": "Bash"}) + "\n",),
        (tool_call("Bash", AFTER)[:-20] + "\n",),  # cut short: not a record
        (),
    ],
)
def test_only_a_bash_call_of_the_verifier_counts(tmp_path: Path, lines: tuple[str, ...]) -> None:
    assert not ran_a_command(str(transcript(tmp_path / "agent.jsonl", *lines)), STARTED)


@pytest.mark.parametrize("shift", [-40, -13, -5, 0, 3, 30])
def test_a_call_across_a_block_boundary_is_found(tmp_path: Path, shift: int) -> None:
    block = 1024 * 1024
    head, call, tail = tool_output(AFTER, "z"), tool_call("Bash", AFTER), tool_output(AFTER, "y" * 100)
    key = len(head) + call.index('"name"')
    # Filler so that the call's "name" key starts `shift` bytes after the last block's boundary.
    filler = tool_output(AFTER, "")
    filler = tool_output(AFTER, "p" * (key - shift + block - len(head) - len(call) - len(tail) - len(filler)))
    path = tmp_path / "agent.jsonl"
    path.write_text(head + call + filler + tail)
    assert key - (path.stat().st_size - block) == shift
    assert ran_a_command(str(path), STARTED)


def test_a_call_beyond_the_window_is_not_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = transcript(tmp_path / "agent.jsonl", tool_call("Bash", AFTER), padding_mb=3)
    assert ran_a_command(str(path), STARTED)
    monkeypatch.setattr(subagent_stop, "TRANSCRIPT_TAIL_BYTES", 2 * 1024 * 1024)
    assert not ran_a_command(str(path), STARTED)


def test_what_is_not_a_transcript_reads_as_no_command(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert not ran_a_command(str(fifo), STARTED)  # and does not hang
    assert not ran_a_command(str(tmp_path / "missing.jsonl"), STARTED)
    assert not ran_a_command(str(tmp_path), STARTED)
    assert not ran_a_command(None, STARTED)


def test_the_model_a_verifier_ran_on_comes_from_its_meta_file(tmp_path: Path) -> None:
    agent = tmp_path / "agent-a1.jsonl"
    agent.write_text("")
    assert subagent_stop.model_of(str(agent)) is None
    meta = tmp_path / "agent-a1.meta.json"
    meta.write_text(
        json.dumps({"agentType": "tiergate:architect", "model": "claude-opus-5-5", "finished": True})
    )
    assert subagent_stop.model_of(str(agent)) == "claude-opus-5-5"
    for junk in ("{", "[]", '{"model": 5}', '{"model": ""}'):
        meta.write_text(junk)
        assert subagent_stop.model_of(str(agent)) is None
    assert subagent_stop.model_of(None) is None
    assert subagent_stop.model_of(str(tmp_path / "agent-a1.txt")) is None
