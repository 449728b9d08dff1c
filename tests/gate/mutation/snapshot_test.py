"""A folder put back as a run found it (`snapshot.Snapshot`), times included: answers kept in a file's or
a folder's times (`utime`, `touch -a`) are gone for the next run; a file whose times nothing set is left
alone (putting its times back would move its change time, which the claim's copy's check watches)."""

from __future__ import annotations

import os
from pathlib import Path

from tiergate.gate.mutation.snapshot import Snapshot

SET = 3_000_000_123 * 10**9  # a time in 2065, set by a run


def times(path: Path) -> tuple[int, int]:
    found = path.stat()
    return found.st_atime_ns, found.st_mtime_ns


def test_times_a_run_set_on_a_file_or_a_folder_are_put_back(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "notes.txt").write_text("notes\n")
    was = {p: times(p) for p in (tmp_path, tmp_path / "data", tmp_path / "data" / "notes.txt")}
    snapshot = Snapshot(tmp_path)
    for path in was:
        os.utime(path, ns=(SET, SET))
    notes = tmp_path / "data" / "notes.txt"
    os.utime(notes, ns=(SET, was[notes][1]))  # its access time alone, as `touch -a` sets it

    assert snapshot.put_back() == ""

    # (A folder's access time may move as the put back reads it, never to the time a run set.)
    assert {p: times(p)[1] for p in was} == {p: t[1] for p, t in was.items()}
    assert all(times(p)[0] < SET for p in was)


def test_times_are_put_back_after_what_is_in_a_folder(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    was = times(tmp_path / "data")
    snapshot = Snapshot(tmp_path)
    (tmp_path / "data" / "made.txt").write_text("made by a run\n")

    assert snapshot.put_back() == ""

    assert not (tmp_path / "data" / "made.txt").exists()
    assert times(tmp_path / "data") == was


def test_a_file_whose_times_nothing_set_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "calc.js").write_text("module.exports = 1;\n")
    changed = (tmp_path / "calc.js").stat().st_ctime_ns
    snapshot = Snapshot(tmp_path)
    (tmp_path / "calc.js").read_bytes()

    assert snapshot.put_back() == ""

    assert (tmp_path / "calc.js").stat().st_ctime_ns == changed
