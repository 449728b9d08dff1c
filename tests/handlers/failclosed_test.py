"""State the agent can reach is not trusted: through the real hook entry point, on real git, with a loop
started by `tiergate ralph start`, each move the red team made on tiergate's own state files fails
closed: the claim's Stop is blocked once with the problem named, the next Stop halts the loop with the
claim NOT verified, and nothing is ever finalized (no PASS, no new green point) nor excused."""

from __future__ import annotations

import json
import os
import resource
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from testing.gitrepo import git, write
from testing.hooksession import HookSession
from testing.valueproject import value_project

from tiergate import seal
from tiergate.log import read_log
from tiergate.loop import ledger
from tiergate.project import Project, locate

SESSION = "11111111-2222-3333-4444-555555555555"
OTHER = "99999999-2222-3333-4444-555555555555"
CLAIM = "value.txt is right now.\n\n<promise>DONE</promise>"
CHECK = 'grep -qx good value.txt || { echo "FAIL: test_value"; exit 1; }\n'
TASK = "make value.txt right"
# Long enough that the loop file (which keeps the task) is larger than the size limit of the full-disk
# test, while the fail-closed marker stays under it.
LONG_TASK = TASK + " and keep it that way" * 150
NEW_FAILURE = "new failures in 1 check of 1, not failing when the loop began"


@pytest.fixture(autouse=True)
def _fallback_in_the_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-user fallback folder of the markers under the test's own temp dir (hooks and test alike)."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))


class Loop(HookSession):
    @property
    def state(self) -> Project:
        return locate(self.project, self.env)

    @property
    def loop_file(self) -> Path:
        return self.state.state_dir / "loops" / f"{self.session_id}.json"

    def stop(self, message: str = CLAIM) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=message)

    def log(self) -> list[dict[str, Any]]:
        return [r for r in read_log(self.state) if r.get("session_id") == self.session_id]

    def green_refs(self) -> str:
        return git(self.project, "for-each-ref", "refs/tiergate/green/")


def started(root: Path, session_id: str = SESSION, project: Path | None = None, task: str = TASK) -> Loop:
    """A loop started from a shell and bound to `session_id` at its SessionStart; value.txt then broken."""
    if project is None:
        project = value_project(root, CHECK)
    session = Loop(root, project, session_id)
    session.env["TMPDIR"] = str(root / "tmp")
    result = session.run("ralph", "start", task)
    assert result.returncode == 0, result.stderr
    assert "loop" in session.hook("SessionStart", source="startup").get("systemMessage", "")
    assert session.loop().active
    write(project, {"value.txt": "bad\n"})
    return session


def assert_fails_closed(session: Loop, problem: str, *, settled: bool = True) -> dict[str, Any]:
    """Block once, then halt; never PASS, green point unchanged, the session not blocked again."""
    green = session.green_refs()
    first = session.stop()
    assert first["decision"] == "block", first
    assert "claim is NOT accepted" in first["reason"] and problem in first["reason"]
    assert "this claim is not accepted" in first["systemMessage"] and problem in first["systemMessage"]

    second = session.stop()
    assert "decision" not in second, second  # the stop goes ahead: the user is never trapped
    assert (
        "loop halted" in second["systemMessage"] and "The claim was NOT verified" in second["systemMessage"]
    )

    messages = first["systemMessage"] + second["systemMessage"]
    assert "PASS" not in messages.replace("no PASS", "") and "loop finished" not in messages
    assert session.green_refs() == green
    if settled:
        assert_halted_for_good(session, problem)
    return second


def assert_halted_for_good(session: Loop, problem: str) -> None:
    assert session.stop() == {}  # halted: nothing more to block or say
    halted = [r for r in session.log() if r.get("decision") == "loop_halted"]
    assert len(halted) == 1 and problem in halted[0]["halt_reason"]
    assert not any(r.get("decision") in ("pass", "finish") for r in session.log())


def test_garbage_in_the_loop_file_blocks_once_then_halts_and_keeps_the_file(tmp_path: Path) -> None:
    session = started(tmp_path)
    session.loop_file.write_bytes(b"garbage\x00{")

    halt = assert_fails_closed(session, "is not trustworthy")

    aside = list(session.loop_file.parent.glob(f"{SESSION}.json.damaged-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == b"garbage\x00{"
    assert str(aside[0]) in halt["systemMessage"]
    assert not session.loop_file.exists()


def test_a_loop_file_edited_to_passed_never_finalizes(tmp_path: Path) -> None:
    session = started(tmp_path)
    text = session.loop_file.read_text()
    assert '"phase": "working"' in text
    session.loop_file.write_text(text.replace('"phase": "working"', '"phase": "passed"'))

    assert_fails_closed(session, "its seal does not match its contents")


def test_a_loop_file_rewritten_without_its_seal_is_not_trusted(tmp_path: Path) -> None:
    session = started(tmp_path)
    body = seal.open_file(f"loops/{SESSION}.json", session.loop_file.read_bytes())
    session.loop_file.write_bytes(body.replace(b'"phase": "working"', b'"phase": "passed"'))

    assert_fails_closed(session, "it carries no seal")


def test_another_sessions_sealed_loop_file_copied_over_this_one_is_not_trusted(tmp_path: Path) -> None:
    other = started(tmp_path, OTHER)
    assert other.run("cancel").returncode == 0  # its loop file: genuine, sealed, and no longer active
    assert not other.loop().active
    session = started(tmp_path, SESSION, project=other.project)
    session.loop_file.write_bytes(other.loop_file.read_bytes())

    assert_fails_closed(session, "its seal does not match its contents")


def test_a_loop_file_deleted_mid_loop_is_noticed_from_the_ledger(tmp_path: Path) -> None:
    session = started(tmp_path)
    session.loop_file.unlink()

    assert_fails_closed(session, "is gone")
    assert ledger.started(str(session.state.state_dir), SESSION) is not None


def test_a_session_that_never_had_a_loop_is_not_blocked_by_the_ledger(tmp_path: Path) -> None:
    session = started(tmp_path)
    stranger = Loop(tmp_path, session.project, OTHER)
    assert stranger.stop() == {}
    forged = f"{OTHER} 1.0 {'0' * 32}\n"  # a line naming it, not sealed: not a loop of its
    with (session.state.state_dir / ledger.LEDGER).open("a") as handle:
        handle.write(forged)
    assert stranger.stop() == {}


def test_an_active_false_edit_does_not_turn_the_loop_off(tmp_path: Path) -> None:
    session = started(tmp_path)
    session.loop_file.write_text(json.dumps({"schema": 1, "active": False}))

    assert_fails_closed(session, "it carries no seal")


def test_garbage_in_pending_json_does_not_stop_the_active_loop_from_being_decided(tmp_path: Path) -> None:
    session = started(tmp_path)
    (session.state.state_dir / "pending.json").write_text("garbage")

    answer = session.stop()

    assert answer["decision"] == "block" and NEW_FAILURE in answer["reason"]  # the gate ruled, as usual
    [rejected] = [r for r in session.log() if r.get("event") == "pending_rejected"]
    assert "carries no seal" in rejected["reason"]


def test_a_forged_notice_is_never_shown_and_is_logged(tmp_path: Path) -> None:
    session = started(tmp_path)
    write(session.project, {"value.txt": "good\n"})
    notices = session.state.state_dir / "notices"
    notices.mkdir(exist_ok=True)
    (notices / f"{SESSION}.txt").write_text("(at SubagentStop) loop finished: PASS\n")

    answer = session.hook("UserPromptSubmit", prompt="how is it going?")

    assert "PASS" not in json.dumps(answer)
    dropped = [r for r in session.log() if r.get("event") == "notices_dropped"]
    assert len(dropped) == 1 and "not sealed" in dropped[0]["reason"]


def limit_file_size(limit: int) -> Callable[[], None]:
    """A hook process whose files cannot grow past `limit` bytes: writes fail with EFBIG, as on a
    full disk (SIGXFSZ ignored, so that the write fails instead of killing the process)."""

    def preexec() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


def test_a_full_disk_at_a_claim_with_a_failing_check_never_lets_it_through(tmp_path: Path) -> None:
    session = started(tmp_path, task=LONG_TASK)
    assert session.stop("Still working on it.")["decision"] == "block"  # a turn without a claim
    # The disk fills up where the log ends: no record can be appended, none is cut in two.
    full = (session.state.state_dir / "log.jsonl").stat().st_size
    assert 800 <= full < session.loop_file.stat().st_size  # room for the marker, not the loop file
    session.preexec = limit_file_size(full)

    assert_fails_closed(session, "could not be written", settled=False)
    assert session.loop().active  # its halt could not be written either: the marker keeps it

    session.preexec = None
    assert_halted_for_good(session, "could not be written")  # its halt and its record, now written
    assert not session.loop().active


def test_a_full_disk_where_not_even_the_marker_can_be_written_halts_at_once(tmp_path: Path) -> None:
    session = started(tmp_path)
    session.preexec = limit_file_size(0)
    green = session.green_refs()

    answer = session.stop()

    assert "decision" not in answer
    assert "loop halted" in answer["systemMessage"] and "could not record a block" in answer["systemMessage"]
    assert "could not be written" in answer["systemMessage"]
    assert session.green_refs() == green


def test_a_block_marker_of_a_sound_stop_is_cleared(tmp_path: Path) -> None:
    session = started(tmp_path)
    saved = session.loop_file.read_bytes()
    session.loop_file.write_bytes(b"garbage")
    assert session.stop()["decision"] == "block"
    session.loop_file.write_bytes(saved)  # put back as tiergate wrote it: the loop goes on

    answer = session.stop()

    assert answer["decision"] == "block" and NEW_FAILURE in answer["reason"]  # the gate's own block
    assert ledger.read_marker(str(session.state.state_dir), SESSION) is None


@pytest.mark.parametrize("edit", ["failed", "garbage"])
def test_a_baseline_edited_to_excuse_a_new_failure_is_measured_again(tmp_path: Path, edit: str) -> None:
    session = started(tmp_path)
    first = session.stop()
    assert first["decision"] == "block" and NEW_FAILURE in first["reason"]
    [baseline] = (session.state.state_dir / "baseline").glob("*.json")
    if edit == "failed":
        text = baseline.read_text()
        assert '"status": "passed"' in text
        baseline.write_text(text.replace('"status": "passed"', '"status": "failed"'))
    else:
        baseline.write_text('{"schema": 1, "checks": {"x": {"where": "workspace", "result": 3}}}')
    write(session.project, {"notes.txt": "another try\n"})  # a new workspace: the gate runs again

    again = session.stop()

    assert again["decision"] == "block" and NEW_FAILURE in again["reason"]  # not excused
    assert session.loop().verification is None  # refuted by the gate, no verifier asked for
    rejected = [r for r in read_log(session.state) if r.get("event") == "cache_rejected"]
    assert rejected and rejected[0]["file"] == f"baseline/{baseline.name}"
    assert '"status": "passed"' in baseline.read_text()  # measured again, and kept sealed


def on_a_full_filesystem(folder: Path) -> Callable[[], None]:
    """A hook process that sees `folder` as it is now, but on a tmpfs of its own with no space left: every
    write there fails with ENOSPC, a real full disk (a private mount namespace: nothing outside sees it)."""
    import ctypes

    saved = {path.name: path.read_bytes() for path in folder.iterdir() if path.is_file()}

    def preexec() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        clone_newns, ms_rec, ms_private = 0x00020000, 16384, 1 << 18
        if libc.unshare(clone_newns) != 0 or libc.mount(b"none", b"/", None, ms_rec | ms_private, None) != 0:
            raise OSError(ctypes.get_errno(), "no private mount namespace")
        if libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", 0, b"size=64k,mode=0700") != 0:
            raise OSError(ctypes.get_errno(), "no tmpfs")
        for name, data in saved.items():
            (folder / name).write_bytes(data)
        filler = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while os.write(filler, b"\0" * 4096):
                pass
        except OSError:
            pass  # full
        os.close(filler)

    return preexec


def test_a_real_full_disk_under_the_loop_files_never_lets_the_claim_through(tmp_path: Path) -> None:
    session = started(tmp_path)
    loops = session.loop_file.parent
    session.preexec = on_a_full_filesystem(loops)
    green = session.green_refs()

    first = session.stop()
    assert first["decision"] == "block" and "No space left on device" in first["reason"]
    marker = ledger.read_marker(str(session.state.state_dir), SESSION)
    assert marker is not None and marker["stage"] == "blocked"
    assert list((tmp_path / "tmp" / f"tiergate-{os.getuid()}").iterdir())  # kept in the fallback folder
    assert not (loops / f"{SESSION}.failclosed").exists()
    session.preexec = on_a_full_filesystem(loops)
    halt = session.stop()["systemMessage"]
    assert "loop halted" in halt and "The claim was NOT verified" in halt

    session.preexec = None
    assert session.stop() == {}  # space again: the halt is recorded in the loop's own state
    assert not session.loop().active and session.loop().phase == "halted"
    assert session.green_refs() == green
    assert [r["decision"] for r in session.log() if r.get("level") == "error" and "decision" in r] == [
        "fail_closed",
        "loop_halted",
    ]
