"""The check runner on real processes: concurrency, timeouts that end the whole process group, leftovers,
bounded output, exit codes, progress, and an interrupted run that leaves nothing behind."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from testing.procwatch import gone_within, running, still_written, wait_for_text

from tiergate.gate.checks import Check, make_check
from tiergate.gate.processes import ProgressEvent, run_checks


def check(name: str, command: str) -> Check:
    return make_check(name, command, "test")


def gone_soon(pid: int, seconds: float = 3.0) -> bool:
    return gone_within([pid], seconds) == []


def test_checks_run_concurrently(tmp_path: Path) -> None:
    checks = [check("one", "sleep 1"), check("two", "sleep 2"), check("three", "sleep 3")]
    started = time.monotonic()
    results = run_checks(checks, tmp_path)
    elapsed = time.monotonic() - started
    assert [r.status for r in results] == ["passed"] * 3
    assert [r.name for r in results] == ["one", "two", "three"]  # the order given, not finishing order
    assert [round(r.duration) for r in results] == [1, 2, 3]
    assert elapsed < 5.0, f"three checks of 1, 2 and 3 s took {elapsed:.2f} s (sequentially: 6 s)"


def test_a_check_runs_in_the_given_directory_with_stdin_closed(tmp_path: Path) -> None:
    (result,) = run_checks([check("where", "pwd; cat; echo read-nothing")], tmp_path)
    assert result.status == "passed"
    assert result.output.splitlines() == [str(tmp_path), "read-nothing"]


def test_exit_codes_become_statuses_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "script.sh").write_text("#!/bin/sh\necho hi\n")  # not executable
    results = run_checks(
        [
            check("ok", "true"),
            check("three", "echo failing >&2; exit 3"),
            check("missing", "no-such-command-tiergate-test --flag"),
            check("noexec", "./script.sh"),
            check("later", "true && no-such-command-tiergate-test"),
            check("noexec-later", "true && ./script.sh"),
            check("killed", "kill -KILL $$"),
        ],
        tmp_path,
    )
    by_name = {r.name: r for r in results}
    assert (by_name["ok"].status, by_name["ok"].exit_code) == ("passed", 0)
    three = by_name["three"]
    assert (three.status, three.exit_code, three.reason) == ("failed", 3, "exit 3")
    assert three.output == "failing\n"  # stderr is captured with stdout
    # A program that is not there is found missing before anything starts.
    missing = by_name["missing"]
    assert (missing.status, missing.exit_code, missing.output) == ("not_found", None, "")
    assert missing.reason == "could not run: `no-such-command-tiergate-test` is not on PATH"
    assert missing.failing and missing.could_not_run
    noexec = by_name["noexec"]
    assert (noexec.status, noexec.exit_code) == ("not_found", None)
    assert noexec.reason == "could not run: `./script.sh` is not an executable file"
    # Missing further in: the shell's own exit codes, and its own line saying which command.
    later = by_name["later"]
    assert (later.status, later.exit_code) == ("not_found", 127)
    assert later.reason.startswith("could not run: /bin/sh: ")
    assert later.reason.endswith("no-such-command-tiergate-test: not found (exit 127 from the shell)")
    assert later.could_not_run
    noexec_later = by_name["noexec-later"]
    assert (noexec_later.status, noexec_later.exit_code) == ("not_found", 126)
    assert noexec_later.reason.endswith("./script.sh: Permission denied (exit 126 from the shell)")
    killed = by_name["killed"]
    assert (killed.status, killed.exit_code, killed.reason) == ("failed", -9, "killed by SIGKILL")


def test_a_directory_that_does_not_exist_is_an_error_not_a_crash(tmp_path: Path) -> None:
    (result,) = run_checks([check("tests", "true")], tmp_path / "gone")
    assert result.status == "error"
    assert result.failing
    assert result.could_not_run
    assert result.reason.startswith("could not run: could not start:")


def test_a_timeout_ends_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    command = f"sleep 60 & echo $! > {pid_file}; echo started; wait"
    started = time.monotonic()
    (result,) = run_checks([check("hangs", command)], tmp_path, timeout=1.0, grace=2.0)
    elapsed = time.monotonic() - started
    grandchild = int(pid_file.read_text())
    assert result.status == "timed_out"
    assert result.failing
    assert result.reason == "timed out after 1 s; its process group was ended"
    assert result.output == "started\n"
    assert gone_soon(grandchild)
    assert elapsed < 3.0  # SIGTERM was enough: no need to wait out the grace period


def test_a_grandchild_that_ignores_sigterm_gets_sigkill_after_the_grace_period(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    command = f"(trap '' TERM; exec sleep 60) & echo $! > {pid_file}; wait"
    started = time.monotonic()
    (result,) = run_checks([check("stubborn", command)], tmp_path, timeout=0.5, grace=1.0)
    elapsed = time.monotonic() - started
    assert result.status == "timed_out"
    assert gone_soon(int(pid_file.read_text()))
    assert 1.4 < elapsed < 5.0


def test_what_a_check_leaves_running_is_ended_and_does_not_hold_the_run(tmp_path: Path) -> None:
    pid_file = tmp_path / "server.pid"
    command = f"sleep 60 & echo $! > {pid_file}; echo served"
    started = time.monotonic()
    (result,) = run_checks([check("server", command)], tmp_path, timeout=30.0)
    assert time.monotonic() - started < 5.0  # the leftover held the output pipe open
    assert result.status == "passed"
    assert result.output == "served\n"
    assert gone_soon(int(pid_file.read_text()))


def test_only_the_tail_of_a_large_output_is_kept(tmp_path: Path) -> None:
    script = "import sys\nfor i in range(200000): sys.stdout.write(f'line {i:07}\\n')\n"
    (tmp_path / "loud.py").write_text(script)
    (result,) = run_checks([check("loud", f"{sys.executable} loud.py")], tmp_path, tail_bytes=4096)
    total = 200000 * len("line 0000000\n")
    assert result.output_bytes == total
    lines = result.output.splitlines()
    assert lines[0] == f"[... {total - 4096} earlier bytes not kept]"
    assert lines[-1] == "line 0199999"
    assert all(line.startswith("line ") and len(line) == 12 for line in lines[1:])  # no cut line
    assert len(result.output.encode()) <= 4096 + 100


def test_output_that_is_not_utf8_is_kept_readable(tmp_path: Path) -> None:
    (result,) = run_checks([check("bytes", r"printf 'caf\351 ok\n'; exit 1")], tmp_path)
    assert result.output == "caf\ufffd ok\n"


def test_progress_reports_start_heartbeats_and_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events: list[ProgressEvent] = []
    run_checks([check("slow", "sleep 0.7")], tmp_path, progress=events.append, heartbeat=0.2, label="demo")
    kinds = [e.event for e in events]
    assert kinds[0] == "start"
    assert kinds[-1] == "end"
    assert kinds.count("running") >= 2
    assert all(e.label == "demo" and e.check.name == "slow" for e in events)
    end = events[-1]
    assert end.result is not None
    assert end.result.status == "passed"
    assert end.elapsed == pytest.approx(0.7, abs=0.3)
    assert capsys.readouterr() == ("", "")  # the runner itself never prints: stdout is the hook's channel


def test_no_checks_is_no_results(tmp_path: Path) -> None:
    assert run_checks([], tmp_path) == ()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_run_kills_every_check_group_before_it_ends(tmp_path: Path, signum: int) -> None:
    pid_file = tmp_path / "grandchild.pid"
    program = textwrap.dedent(
        f"""
        from pathlib import Path
        from tiergate.gate.processes import run_checks
        from tiergate.gate.checks import make_check
        command = "sleep 60 & echo $! > {pid_file}; wait"
        run_checks([make_check("hangs", command, "test")], Path({str(tmp_path)!r}), timeout=60)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", program], stderr=subprocess.PIPE, text=True)
    grandchild = int(wait_for_text(pid_file))
    assert running(grandchild)
    os.kill(child.pid, signum)
    _, stderr = child.communicate(timeout=20)
    assert child.returncode != 0
    expected = (
        "ChecksInterruptedError: interrupted by SIGTERM" if signum == signal.SIGTERM else "KeyboardInterrupt"
    )
    assert expected in stderr
    deadline = time.monotonic() + 5
    while running(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone_soon(grandchild)


def daemon(pid_file: Path, ticks: Path) -> str:
    """A `setsid` daemon that leaves the check's process group and appends to `ticks` every 0.2 s; the
    check goes on once the daemon runs."""
    loop = f"echo $$ > {pid_file}; while :; do echo tick >> {ticks}; sleep 0.2; done"
    started = f"until test -s {pid_file}; do sleep 0.05; done;"
    return f"setsid sh -c '{loop}' > /dev/null 2>&1 < /dev/null & {started}"


@pytest.mark.parametrize(
    ("command", "status"),
    [
        ("echo started", "passed"),  # the check ends at once, its daemon does not
        ("exit 1", "failed"),
        ("sleep 60", "timed_out"),
        ("(setsid sh -c 'sleep 60' &) ; echo started", "passed"),  # and a double fork besides
    ],
)
def test_a_daemon_a_check_started_with_setsid_is_gone_when_the_run_returns(
    tmp_path: Path, command: str, status: str
) -> None:
    pid_file, ticks = tmp_path / "daemon.pid", tmp_path / "ticks"
    started = time.monotonic()
    (result,) = run_checks(
        [check("daemon", f"{daemon(pid_file, ticks)} {command}")], tmp_path, timeout=1.0, grace=0.5
    )
    assert result.status == status
    assert time.monotonic() - started < 4.0  # nothing held the run for the drain's grace
    assert gone_within([int(wait_for_text(pid_file))], 1.0) == []  # SIGKILLed: dead once scheduled
    assert not still_written(ticks)


def test_every_check_carries_its_own_mark_of_the_run(tmp_path: Path) -> None:
    one, two = run_checks([check("one", "echo $TIERGATE_RUN"), check("two", "echo $TIERGATE_RUN")], tmp_path)
    run, first = one.output.strip().rsplit(".", 1)
    assert re.fullmatch(r"[0-9a-f]{16}", run) and first == "0"
    assert two.output.strip() == f"{run}.1"


def test_a_check_ending_does_not_touch_what_the_other_checks_run(tmp_path: Path) -> None:
    pid_file, ticks = tmp_path / "daemon.pid", tmp_path / "ticks"
    # The quick one ends first; the slow one's daemon must live until the slow one ends.
    slow = f"{daemon(pid_file, ticks)} sleep 1.5; test -s {ticks} && kill -0 $(cat {pid_file})"
    quick, slow_result = run_checks([check("quick", "true"), check("slow", slow)], tmp_path)
    assert (quick.status, slow_result.status) == ("passed", "passed"), slow_result.output


RUN_AND_WAIT = """
import sys
from pathlib import Path
from tiergate.gate.checks import make_check
from tiergate.gate.processes import run_checks
run_checks([make_check("slow", sys.argv[2], "test")], Path(sys.argv[1]), timeout=60)
"""


def test_checks_die_with_a_runner_killed_by_sigkill(tmp_path: Path) -> None:
    pids, ticks = tmp_path / "pids", tmp_path / "ticks"
    pids.mkdir()
    command = (
        f"echo $$ > {pids}/shell; {daemon(pids / 'daemon', tmp_path / 'daemon-ticks')} "
        f"(while :; do echo tick >> {ticks}; sleep 0.2; done) & echo $! > {pids}/loop; wait"
    )
    runner = subprocess.Popen([sys.executable, "-c", RUN_AND_WAIT, str(tmp_path), command])
    started = [int(wait_for_text(pids / name)) for name in ("shell", "daemon", "loop")]
    assert all(running(pid) for pid in started)

    runner.kill()
    runner.wait()

    assert gone_within(started, 2.0) == []
    assert not still_written(ticks) and not still_written(tmp_path / "daemon-ticks")
