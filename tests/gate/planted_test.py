"""Reading what a check's processes wrote, as the tests' code may have shaped it: a named pipe neither
hangs nor is read, a link is not followed, nesting too deep for the parser is bad JSON, a file over the
limit is refused; a plain report reads as written."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tiergate.gate import planted


def test_a_report_reads_as_written(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text('{"key": "k", "fates": {"0": ["killed", "t"]}}')

    assert planted.read_json(tmp_path / "r.json") == {"key": "k", "fates": {"0": ["killed", "t"]}}


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    pipe = tmp_path / "node-zz.json"
    os.mkfifo(pipe)
    done = threading.Event()

    def read() -> None:
        with pytest.raises(OSError, match="not a regular file"):
            planted.read_json(pipe)
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    if not done.is_set():  # unblock the reader before failing, so that the run can end
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
    assert done.is_set()


def test_a_link_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "node-1.json").symlink_to(tmp_path / "real.json")

    with pytest.raises(OSError):
        planted.read_json(tmp_path / "node-1.json")


def test_nesting_too_deep_is_bad_json_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "node-1.json").write_text("[" * 200_000)

    with pytest.raises(ValueError, match="nested too deeply"):
        planted.read_json(tmp_path / "node-1.json")


def test_a_file_over_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(planted, "LIMIT", 10)
    (tmp_path / "node-1.json").write_text('{"key": "0123456789"}')

    with pytest.raises(OSError, match="over 10 bytes"):
        planted.read_json(tmp_path / "node-1.json")


def test_text_that_is_not_utf8_is_a_value_error(tmp_path: Path) -> None:
    (tmp_path / "node-1.jsonl").write_bytes(b"\xff\xfe")

    with pytest.raises(ValueError):
        planted.read_text(tmp_path / "node-1.jsonl")
