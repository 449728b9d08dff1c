from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from testing import tiergatecli
from testing.fulldisk import run_on_full_tmpfs, run_with_file_limit
from testing.gitrepo import init_repo
from testing.statefolder import state_dir, state_env

from tiergate import seal
from tiergate.handlers.common import log_outcome
from tiergate.log import (
    append_record,
    decision_log,
    decision_record,
    errors_log_path,
    log_path,
    read_log,
    read_records,
    record_incident,
    utc_timestamp,
    write_decision,
)
from tiergate.loop.events import Outcome
from tiergate.loop.logfields import log_fields
from tiergate.loop.state import new_loop
from tiergate.project import Project, ensure_state_dir


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path, state_dir(tmp_path))
    ensure_state_dir(project)
    return project


def test_a_decision_record_has_the_contract_fields(
    project: Project, capfd: pytest.CaptureFixture[str]
) -> None:
    log = decision_log(project, session_id="s1")

    log.info(
        "stop", decision="block", reasons=["tier: STANDARD (5 files)", "check tests failed"], iteration=2
    )

    [record] = list(read_log(project))
    assert record["event"] == "stop"
    assert record["session_id"] == "s1"
    assert record["decision"] == "block"
    assert record["reasons"] == ["tier: STANDARD (5 files)", "check tests failed"]
    assert record["iteration"] == 2
    assert record["level"] == "info"
    stamp = datetime.fromisoformat(record["timestamp"])
    assert stamp.utcoffset() == timedelta(0)
    assert abs(datetime.now(UTC) - stamp) < timedelta(seconds=30)
    assert capfd.readouterr() == ("", ""), "the log never writes to stdout or stderr"


def test_records_append_in_order_and_bound_context_sticks(project: Project) -> None:
    log = decision_log(project, session_id="s1").bind(tier="LIGHT")
    log.info("first", decision="allow", reasons=[])
    log.warning("second", decision="block", reasons=["r"])
    decision_log(project, session_id="s2").error("third", decision="halt", reasons=["stalled"])

    records = list(read_log(project))

    assert [(r["event"], r["session_id"], r["level"]) for r in records] == [
        ("first", "s1", "info"),
        ("second", "s1", "warning"),
        ("third", "s2", "error"),
    ]
    assert [r.get("tier") for r in records] == ["LIGHT", "LIGHT", None]
    assert log_path(project).read_text().count("\n") == 3


def test_exceptions_are_logged_with_their_traceback(project: Project) -> None:
    try:
        raise RuntimeError("disk on fire")
    except RuntimeError:
        decision_log(project, session_id="s1").exception("check_crashed", decision="allow", reasons=[])

    [record] = list(read_log(project))
    assert "RuntimeError: disk on fire" in record["exception"]
    assert "Traceback" in record["exception"]


def test_values_json_cannot_encode_are_written_as_text(project: Project) -> None:
    decision_log(project).info("odd", path=Path("/x/y"), when=datetime(2026, 1, 2, tzinfo=UTC), raw=b"\xff")

    [record] = list(read_log(project))
    assert record["path"] == "/x/y"
    assert record["when"].startswith("2026-01-02")


def test_read_log_skips_truncated_and_junk_lines_and_counts_them(project: Project) -> None:
    append_record(log_path(project), {"event": "a"})
    with log_path(project).open("ab") as f:
        f.write(b"not json\n[1, 2]\n\xff\xfe\n\n" + b"[" * 100_000 + b'\n{"event": "cut sh')
    append_record(log_path(project), {"event": "b"})  # after the cut line, on a line of its own

    records = read_log(project)

    assert [r["event"] for r in records] == ["a", "b"]
    assert (records.damaged, records.foreign) == (5, 0)
    assert records.left_out() == f"tiergate: left out of {log_path(project)}: 5 damaged lines"


def test_read_log_of_a_project_without_a_log_is_empty(tmp_path: Path) -> None:
    assert list(read_log(Project(tmp_path, tmp_path / "missing"))) == []


def test_a_log_that_cannot_be_written_raises(tmp_path: Path) -> None:
    project = Project(tmp_path, tmp_path / "no-such-dir")

    with pytest.raises(OSError):
        decision_log(project).info("x")


def test_record_incident_goes_to_the_project_log(project: Project) -> None:
    where = record_incident(project.state_dir, {"event": "internal_error"})

    assert where == log_path(project)
    assert [r["event"] for r in read_log(project)] == ["internal_error"]


@pytest.mark.parametrize("state_dir", ["file", "missing", None])
def test_record_incident_falls_back_to_the_user_errors_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state_dir: str | None
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    unusable: Path | None = None
    if state_dir == "file":
        unusable = tmp_path / "state-is-a-file"
        unusable.write_text("")
    elif state_dir == "missing":
        unusable = tmp_path / "missing"

    where = record_incident(unusable, {"event": "internal_error", "n": 1})

    assert where == tmp_path / "xdg" / "tiergate" / "errors.log"
    assert list(read_records(where)) == [{"event": "internal_error", "n": 1}]


def test_errors_log_honours_only_an_absolute_xdg_state_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")
    assert errors_log_path() == tmp_path / "home" / ".local" / "state" / "tiergate" / "errors.log"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert errors_log_path() == tmp_path / "home" / ".local" / "state" / "tiergate" / "errors.log"


STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def test_a_decision_record_has_one_shape_whichever_writer_writes_it(project: Project) -> None:
    state = new_loop("s1", "fix it", now=0.0, base="b" * 40, promise="DONE")
    outcome = Outcome(state, "cancel", ("cancelled by tiergate cancel",))

    log_outcome(project, "cancel", "s1", outcome)  # the hooks' writer
    decision_log(project).info("cancel", **log_fields("s1", outcome))  # the command line's
    write_decision(project, "claim_check_error", {"session_id": "s1", "error": "E"}, level="error")
    decision_log(project, session_id="s1").error("claim_check_error", error="E")

    lean, structured, lean_error, structured_error = read_log(project)
    assert (
        list(lean)
        == list(structured)
        == [
            "event",
            "session_id",
            "decision",
            "reasons",
            "phase",
            "iteration",
            "level",
            "timestamp",
        ]
    )
    assert {**lean, "timestamp": ""} == {**structured, "timestamp": ""}
    assert (
        list(lean_error) == list(structured_error) == ["event", "session_id", "error", "level", "timestamp"]
    )
    assert {**lean_error, "timestamp": ""} == {**structured_error, "timestamp": ""}
    for record in (lean, structured, lean_error, structured_error):
        assert STAMP.match(record["timestamp"]), record["timestamp"]
    lines = [line.split(', "seal": ')[0] for line in log_path(project).read_text().splitlines()]
    assert lines[0].replace(lean["timestamp"], "T") == lines[1].replace(structured["timestamp"], "T")


def test_the_command_line_and_the_hooks_write_the_same_record_in_a_real_project(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project", {"README.md": "hi\n"})
    state_dir(repo).mkdir(parents=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "CLAUDE_PROJECT_DIR": str(repo), **state_env()}

    def tiergate(*args: str, stdin: str = "") -> None:
        result = tiergatecli.tiergate(repo, *args, stdin=stdin, environ=env)
        assert result.returncode == 0, result

    def prompt(session: str, text: str) -> None:
        event = "UserPromptSubmit"
        payload = {"session_id": session, "cwd": str(repo), "prompt": text, "hook_event_name": event}
        tiergate("hook", "UserPromptSubmit", stdin=json.dumps(payload))

    prompt("s1", "/tiergate:ralph fix it")
    prompt("s2", "/tiergate:ralph fix it")
    prompt("s1", "/tiergate:cancel")  # a hook: the lean writer
    tiergate("cancel", "--session", "s2")  # the command line: structlog
    by_hook, by_command = (
        r for r in read_log(Project(repo, state_dir(repo)), env) if r["decision"] == "cancel"
    )

    assert (by_hook["event"], by_command["event"]) == ("UserPromptSubmit", "cancel")
    assert list(by_hook) == list(by_command)
    assert [type(v) for v in by_hook.values()] == [type(v) for v in by_command.values()]
    assert STAMP.match(by_hook["timestamp"]) and STAMP.match(by_command["timestamp"])


def test_decision_record_puts_the_event_first_and_level_and_time_last() -> None:
    record = decision_record("stop", {"session_id": "s", "decision": "pass"}, level="warning", timestamp="T")
    assert record == {
        "event": "stop",
        "session_id": "s",
        "decision": "pass",
        "level": "warning",
        "timestamp": "T",
    }
    assert list(record) == ["event", "session_id", "decision", "level", "timestamp"]
    assert STAMP.match(decision_record("x", {})["timestamp"])


def test_utc_timestamp_matches_structlogs_format(project: Project) -> None:
    decision_log(project).info("x")
    [record] = list(read_log(project))

    ours = utc_timestamp()

    assert ours.endswith("Z") and record["timestamp"].endswith("Z")
    assert len(ours) == len(record["timestamp"])


WRITER = """
import sys
from pathlib import Path
from tiergate.log import decision_log
from tiergate.project import Project

state_dir, writer, count, size = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
log = decision_log(Project(state_dir.parent, state_dir), session_id=f"s{writer}")
for i in range(count):
    # A different size per record, most of them far over PIPE_BUF (4096 bytes).
    log.info("stress", writer=writer, i=i, padding=chr(65 + writer) * (size * (i % 7 + 1)))
"""


def test_concurrent_writers_never_interleave_records(project: Project) -> None:
    writers, count, size = 8, 60, 9000

    processes = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(project.state_dir), str(w), str(count), str(size)]
        )
        for w in range(writers)
    ]
    assert [p.wait(timeout=120) for p in processes] == [0] * writers

    lines = log_path(project).read_bytes().split(b"\n")
    assert lines[-1] == b""
    records = [json.loads(line) for line in lines[:-1]]  # every line is a whole record
    assert len(records) == writers * count
    for record in records:
        assert record["padding"] == chr(65 + record["writer"]) * (size * (record["i"] % 7 + 1))
    for w in range(writers):
        assert [r["i"] for r in records if r["writer"] == w] == list(range(count))


GHP = "ghp_" + "a1B2c3D4" * 4 + "e5F6"  # made up, in the format of a GitHub token


def test_both_writers_and_the_incident_record_redact_credentials(project: Project) -> None:
    reasons = [f"check tests failed: token {GHP} rejected"]
    write_decision(project, "claim", {"session_id": "s1", "reasons": reasons})  # the hooks' writer
    decision_log(project, session_id="s1").info("claim", reasons=reasons)  # the command line's
    record_incident(project.state_dir, {"event": "crash", "error": f"ValueError: {GHP}"})

    text = log_path(project).read_text()
    assert GHP[4:] not in text
    lean, structured, incident = read_log(project)
    assert (
        lean["reasons"]
        == structured["reasons"]
        == ["check tests failed: token ghp_[redacted: github token] rejected"]
    )
    assert incident["error"] == "ValueError: ghp_[redacted: github token]"


def test_the_log_is_written_0600_and_a_wider_one_is_tightened(project: Project) -> None:
    path = log_path(project)
    write_decision(project, "claim", {"session_id": "s1"})
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o644)
    decision_log(project).info("cancel", session_id="s1")
    assert path.stat().st_mode & 0o777 == 0o600


def test_every_record_of_both_writers_ends_in_its_seal(project: Project) -> None:
    write_decision(project, "stop", {"session_id": "s1", "decision": "block"})
    decision_log(project, session_id="s1").info("cancel", decision="cancel")
    record_incident(project.state_dir, {"event": "crash"})

    for line in log_path(project).read_text().splitlines():
        body, tag = re.fullmatch(r'(\{.*), "seal": "([0-9a-f]{32})"\}', line).groups()  # type: ignore[union-attr]
        assert seal.line_is_sealed("log.jsonl", body + "}", tag)
    assert [r["event"] for r in read_log(project)] == ["stop", "cancel", "crash"]
    assert all("seal" not in r for r in read_log(project))


PASS_SNAPSHOT = {"id": "v9", "status": "PASS", "tier": "LIGHT", "requested_at": 1.0}


@pytest.mark.parametrize(
    "forge",
    [
        lambda genuine: json.dumps({"event": "x", "verifications": [PASS_SNAPSHOT]}),  # no seal
        lambda genuine: genuine.replace('"FAIL"', '"PASS"'),  # a genuine record, edited
        lambda genuine: genuine.replace('{"event"', '{"seal": "", "event"'),  # a field slipped in
        lambda genuine: json.dumps({"event": "x", "verifications": [PASS_SNAPSHOT], "seal": "0" * 32}),
        lambda genuine: genuine.replace('"seal": ', '"verifications": [], "seal": '),
    ],
)
def test_a_record_tiergate_did_not_write_is_left_out_and_counted(project: Project, forge: Any) -> None:
    write_decision(
        project, "verdict", {"session_id": "s1", "verifications": [{**PASS_SNAPSHOT, "status": "FAIL"}]}
    )
    genuine = log_path(project).read_text().strip()
    with log_path(project).open("a") as f:
        f.write(forge(genuine) + "\n")

    records = read_log(project)

    assert [r["verifications"][0]["status"] for r in records] == ["FAIL"]
    assert (records.damaged, records.foreign) == (0, 1)
    assert records.left_out().endswith(": 1 record not written by tiergate")


def test_a_record_written_under_another_users_key_is_foreign(project: Project, tmp_path: Path) -> None:
    write_decision(project, "stop", {"session_id": "s1"})
    other = {"XDG_STATE_HOME": str(tmp_path / "other")}

    assert [r["event"] for r in read_log(project)] == ["stop"]
    assert [r["event"] for r in read_log(project, other)] == []


def test_a_record_after_a_line_cut_short_starts_on_a_line_of_its_own(project: Project) -> None:
    write_decision(project, "first", {})
    with log_path(project).open("a") as f:
        f.write('{"event": "cut sh')

    write_decision(project, "second", {})

    assert log_path(project).read_text().splitlines()[1] == '{"event": "cut sh'
    records = read_log(project)
    assert [r["event"] for r in records] == ["first", "second"]
    assert records.damaged == 1


APPEND = """
import sys
from pathlib import Path
from tiergate.log import append_record, record_incident
path, size, how = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
for i in range(3):
    try:
        if how == "incident":
            record_incident(path.parent, {"event": f"big{i}", "padding": "x" * size})
        else:
            append_record(path, {"event": f"big{i}", "padding": "x" * size})
        print("written")
    except OSError as exc:
        print(exc.errno)
append_record(path, {"event": "small"})
print("written")
"""


@pytest.mark.parametrize("how", ["record", "incident"])
def test_a_record_the_disk_cannot_hold_is_not_written_at_all(
    project: Project, how: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))  # the incident's fallback: full as well
    seal.key()  # made before the limit, as it is in every home tiergate has run in once
    write_decision(project, "before", {})
    room = 8192 - log_path(project).stat().st_size

    result = run_with_file_limit(APPEND, 8192, str(log_path(project)), str(room * 2 // 3), how)

    # The first big record fits; the second would cross the limit: cut back (an incident goes to the
    # user's errors log instead, and the third fits in neither); the small one fits again.
    second = "written" if how == "incident" else str(errno.EFBIG)
    assert result.stdout.split() == ["written", second, str(errno.EFBIG), "written"], result
    if how == "incident":
        assert [r["event"] for r in read_records(errors_log_path())] == ["big1"]
    text = log_path(project).read_text()
    assert all(json.loads(line) for line in text.splitlines())
    records = read_log(project)
    assert [r["event"] for r in records] == ["before", "big0", "small"]
    assert records.damaged == records.foreign == 0


def test_a_record_on_a_real_full_disk_is_not_written_at_all(tmp_path: Path) -> None:
    mount = tmp_path / "disk"
    program = """
    import sys
    from pathlib import Path
    from tiergate.log import append_record, read_records
    path = Path(sys.argv[1])
    for i in range(200):
        try:
            append_record(path, {"event": f"r{i}", "padding": "x" * 3000})
        except OSError as exc:
            print("full at", i, exc.strerror)
            break
    records = read_records(path)
    print(len(list(records)), records.damaged, records.foreign, path.read_bytes().endswith(b"}\\n"))
    """

    result = run_on_full_tmpfs(program, mount, "64k", str(mount / "log.jsonl"))

    full, counts = result.stdout.splitlines()
    assert full.startswith("full at ") and full.endswith("No space left on device"), result
    assert counts == f"{full.split()[2]} 0 0 True"


def test_without_a_key_a_record_is_still_written_and_read_as_unsealed(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "a-file" / "state"))  # no key can be made there
    monkeypatch.setattr(seal, "_key_cache", {})

    write_decision(project, "stop", {"session_id": "s1"})

    assert json.loads(log_path(project).read_text())["event"] == "stop"
    records = read_log(project)
    assert (list(records), records.foreign) == ([], 1)
