"""The ledger of loop starts and a session's fail-closed marker: sealed, or read as absent."""

from __future__ import annotations

import json
from pathlib import Path

from testing.statefolder import state_dir

from tiergate.loop import ledger


def a_state_dir(tmp_path: Path) -> str:
    folder = state_dir(tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder)


def test_the_ledger_names_the_latest_loop_of_each_session(tmp_path: Path) -> None:
    folder = a_state_dir(tmp_path)
    ledger.record_start(folder, "s1", ledger.loop_token(1.0))
    ledger.record_start(folder, "s1", ledger.loop_token(2.0))
    ledger.record_start(folder, "s2", ledger.loop_token(3.0))
    assert ledger.started(folder, "s1") == ledger.loop_token(2.0)
    assert ledger.started(folder, "s2") == ledger.loop_token(3.0)
    assert ledger.started(folder, "s3") is None


def test_a_line_appended_without_its_seal_reads_as_absent(tmp_path: Path) -> None:
    folder = a_state_dir(tmp_path)
    ledger.record_start(folder, "s1", ledger.loop_token(1.0))
    with (Path(folder) / ledger.LEDGER).open("a") as handle:
        handle.write(f"s1 {ledger.loop_token(9.0)} forged\n")
    assert ledger.started(folder, "s1") == ledger.loop_token(1.0)


def test_a_loop_is_lost_when_the_ledger_names_it_and_its_file_is_gone_without_a_halt(tmp_path: Path) -> None:
    folder = a_state_dir(tmp_path)
    token = ledger.loop_token(1.0)
    ledger.record_start(folder, "s1", token)
    assert ledger.lost_loop(folder, "s1")
    (Path(folder) / "loops" / "s1.json").write_text("{}")
    assert not ledger.lost_loop(folder, "s1")
    (Path(folder) / "loops" / "s1.json").unlink()
    ledger.write_marker(folder, "s1", {"stage": "halted", "token": token})
    assert not ledger.lost_loop(folder, "s1")
    assert not ledger.lost_loop(folder, "s2")


def test_a_marker_is_read_back_until_cleared(tmp_path: Path) -> None:
    folder = a_state_dir(tmp_path)
    path = ledger.write_marker(folder, "s1", {"stage": "blocked", "token": "t"})
    assert path == ledger.marker_paths(folder, "s1")[0]
    assert ledger.read_marker(folder, "s1") == {"stage": "blocked", "token": "t", "state_dir": folder}
    ledger.clear_marker(folder, "s1")
    assert ledger.read_marker(folder, "s1") is None


def test_a_marker_rewritten_without_its_seal_reads_as_absent(tmp_path: Path) -> None:
    folder = a_state_dir(tmp_path)
    path = ledger.write_marker(folder, "s1", {"stage": "halted", "token": "t"})
    assert path is not None
    Path(path).write_text(json.dumps({"stage": "blocked", "token": "t", "state_dir": folder}))
    assert ledger.read_marker(folder, "s1") is None
