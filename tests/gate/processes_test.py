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
from typing import Any

import pytest
from testing.procwatch import HANG_GUARD, gone_within, running, still_written, wait_for_text

from tiergate.gate import processes
from tiergate.gate.checks import Check, make_check
from tiergate.gate.processes import Progress, ProgressEvent, Running, run_checks

# How long a file the killed processes wrote every 0.2 s must stay unchanged: two and a half of their ticks,
# after `gone_within` has seen every writer gone (a second, waited out in full, proved nothing more).
QUIET = 0.5


def check(name: str, command: str) -> Check:
    return make_check(name, command, "test")


def gone_soon(pid: int) -> bool:
    return gone_within([pid]) == []


def until_exists(path: Path) -> str:
    """Shell: wait until `path` exists (the test, or another check, says when)."""
    return f"until test -e {path}; do sleep 0.01; done"


def held_until_written(path: Path) -> Progress:
    """Progress that holds the run's event loop at the check's first heartbeat until the check has written
    `path`: a short timeout cannot end the check before it has set up what the test is about, however
    slowly a loaded machine runs it. (Give a heartbeat far shorter than the timeout.)"""

    def hold(event: ProgressEvent) -> None:
        if event.event == "running":
            wait_for_text(path)

    return hold


@pytest.fixture
def group_signals(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, float]]:
    """The signals the runner sends to process groups, with when (time.monotonic), not its probes."""
    sent: list[tuple[int, float]] = []
    real = os.killpg

    def killpg(pgid: int, signum: int) -> None:
        if signum:
            sent.append((signum, time.monotonic()))
        real(pgid, signum)

    monkeypatch.setattr(os, "killpg", killpg)
    return sent


@pytest.fixture
def drains(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each check's output was drained: "end" when its pipe reached its end, "cut" when the run gave
    up waiting for it (a process still held it once the check's group was gone)."""
    ended: list[str] = []
    real = processes._drain

    async def drain(*args: Any) -> None:
        try:
            await real(*args)
        except BaseException:
            ended.append("cut")
            raise
        ended.append("end")

    monkeypatch.setattr(processes, "_drain", drain)
    return ended


def test_checks_run_concurrently(tmp_path: Path) -> None:
    # Each check waits until all three have started, so that one at a time none would get past the
    # first's wait (its timeout would end it); then they end one after another in the reverse of the
    # order given, each at least 0.2 s after the one before.
    names = ("one", "two", "three")
    everyone = " && ".join(f"test -e {tmp_path}/started.{name}" for name in names)

    def command(name: str, after: str | None) -> str:
        wait = f"{until_exists(tmp_path / f'ended.{after}')}; " if after else ""
        return (
            f"touch {tmp_path}/started.{name}; until {everyone}; do sleep 0.01; done; "
            f"{wait}sleep 0.2; touch {tmp_path}/ended.{name}"
        )

    checks = [check("one", command("one", "two")), check("two", command("two", "three"))]
    checks.append(check("three", command("three", None)))
    started = time.monotonic()
    results = run_checks(checks, tmp_path, Running(timeout=60))
    elapsed = time.monotonic() - started
    assert [r.status for r in results] == ["passed"] * 3, [r.reason for r in results]
    assert [r.name for r in results] == ["one", "two", "three"]  # the order given, not finishing order
    # Each duration is the check's own: at least the waits it did, at most the whole run.
    assert [r.duration >= least for r, least in zip(results, (0.6, 0.4, 0.2), strict=True)] == [True] * 3
    assert all(r.duration <= elapsed for r in results)


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


def test_a_timeout_ends_the_whole_process_group(
    tmp_path: Path, group_signals: list[tuple[int, float]], drains: list[str]
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    command = f"sleep 600 & echo started; echo $! > {pid_file}; wait"
    hold = held_until_written(pid_file)
    (result,) = run_checks(
        [check("hangs", command)], tmp_path, Running(timeout=0.5, grace=60.0, progress=hold, heartbeat=0.01)
    )
    grandchild = int(pid_file.read_text())
    assert result.status == "timed_out"
    assert result.failing
    assert result.reason == "timed out after 0.5 s; its process group was ended"
    assert result.output == "started\n"
    assert drains == ["end"]  # the grandchild held the output pipe until it was ended
    assert gone_soon(grandchild)
    # SIGTERM was enough: the SIGKILL comes only once the grace period (a minute) is over, so the run
    # did not wait it out.
    assert [signum for signum, _ in group_signals] == [signal.SIGTERM]


def test_a_grandchild_that_ignores_sigterm_gets_sigkill_after_the_grace_period(
    tmp_path: Path, group_signals: list[tuple[int, float]]
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    # The grandchild says its pid once it ignores SIGTERM.
    command = f"sh -c 'trap \"\" TERM; echo $$ > {pid_file}; exec sleep 600' & wait"
    hold = held_until_written(pid_file)
    (result,) = run_checks(
        [check("stubborn", command)], tmp_path, Running(timeout=0.5, grace=0.5, progress=hold, heartbeat=0.01)
    )
    assert result.status == "timed_out"
    assert gone_soon(int(pid_file.read_text()))
    (term, term_at), (kill, kill_at) = group_signals
    assert (term, kill) == (signal.SIGTERM, signal.SIGKILL)
    assert kill_at - term_at >= 0.5  # the grace period, waited out


def test_what_a_check_leaves_running_is_ended_and_does_not_hold_the_run(
    tmp_path: Path, drains: list[str]
) -> None:
    pid_file = tmp_path / "server.pid"
    command = f"sleep 600 & echo $! > {pid_file}; echo served"
    # A minute's grace: the leftover is gone by the time the run returns (SIGTERM ends it).
    (result,) = run_checks([check("server", command)], tmp_path, Running(timeout=30.0, grace=60.0))
    assert not running(int(pid_file.read_text()))
    # It held the output pipe open: the run ended it and read the pipe to its end, rather than giving up
    # on it after a grace of its own.
    assert drains == ["end"]
    assert result.status == "passed"
    assert result.output == "served\n"


def test_only_the_tail_of_a_large_output_is_kept(tmp_path: Path) -> None:
    script = "import sys\nfor i in range(200000): sys.stdout.write(f'line {i:07}\\n')\n"
    (tmp_path / "loud.py").write_text(script)
    (result,) = run_checks([check("loud", f"{sys.executable} loud.py")], tmp_path, Running(tail_bytes=4096))
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
    release = tmp_path / "release"
    events: list[ProgressEvent] = []

    def record(event: ProgressEvent) -> None:
        events.append(event)
        if [e.event for e in events].count("running") == 2:
            release.touch()  # the check ends once two heartbeats were reported

    run_checks(
        [check("slow", until_exists(release))],
        tmp_path,
        Running(progress=record, heartbeat=0.2, label="demo"),
    )
    kinds = [e.event for e in events]
    assert kinds[0] == "start"
    assert kinds[-1] == "end"
    assert kinds.count("running") >= 2
    assert all(e.label == "demo" and e.check.name == "slow" for e in events)
    end = events[-1]
    assert end.result is not None
    assert end.result.status == "passed"
    # The time since the check started: a heartbeat more at each beat at least, and at the end the
    # check's duration.
    beats = [e.elapsed for e in events if e.event == "running"]
    assert [elapsed >= 0.2 * (n + 1) for n, elapsed in enumerate(beats)] == [True] * len(beats)
    assert end.elapsed >= beats[-1]
    assert end.elapsed == end.result.duration
    assert capsys.readouterr() == ("", "")  # the runner itself never prints: stdout is the hook's channel


def test_no_checks_is_no_results(tmp_path: Path) -> None:
    assert run_checks([], tmp_path) == ()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_run_kills_every_check_group_before_it_ends(tmp_path: Path, signum: int) -> None:
    pid_file = tmp_path / "grandchild.pid"
    program = textwrap.dedent(
        f"""
        import signal
        from pathlib import Path
        from tiergate.gate.processes import Running, run_checks
        from tiergate.gate.checks import make_check
        # As a terminal would have it: a test run started in the background (`&` in a script) ignores
        # SIGINT, and so would this child.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        command = "sleep 600 & echo $! > {pid_file}; wait"
        run_checks([make_check("hangs", command, "test")], Path({str(tmp_path)!r}), Running(timeout=600))
        """
    )
    child = subprocess.Popen([sys.executable, "-c", program], stderr=subprocess.PIPE, text=True)
    grandchild = int(wait_for_text(pid_file))
    assert running(grandchild)
    os.kill(child.pid, signum)
    _, stderr = child.communicate(timeout=HANG_GUARD)
    assert child.returncode != 0
    expected = (
        "ChecksInterruptedError: interrupted by SIGTERM" if signum == signal.SIGTERM else "KeyboardInterrupt"
    )
    assert expected in stderr
    assert gone_soon(grandchild)


def daemon(pid_file: Path, ticks: Path) -> str:
    """A `setsid` daemon that leaves the check's process group and appends to `ticks` every 0.2 s; the
    check goes on once the daemon runs."""
    loop = f"echo $$ > {pid_file}; while :; do echo tick >> {ticks}; sleep 0.2; done"
    started = f"until test -s {pid_file}; do sleep 0.05; done;"
    return f"setsid sh -c '{loop}' > /dev/null 2>&1 < /dev/null & {started}"


@pytest.mark.parametrize(
    ("command", "status", "timeout"),
    [
        ("echo started", "passed", 60.0),  # the check ends at once, its daemon does not
        ("exit 1", "failed", 60.0),
        ("sleep 600", "timed_out", 0.5),
        ("(setsid sh -c 'sleep 600' &) ; echo started", "passed", 60.0),  # and a double fork besides
    ],
)
def test_a_daemon_a_check_started_with_setsid_is_gone_when_the_run_returns(
    tmp_path: Path, command: str, status: str, timeout: float, drains: list[str]
) -> None:
    pid_file, ticks = tmp_path / "daemon.pid", tmp_path / "ticks"
    (result,) = run_checks(
        [check("daemon", f"{daemon(pid_file, ticks)} {command}")],
        tmp_path,
        Running(timeout=timeout, grace=0.5, progress=held_until_written(pid_file), heartbeat=0.01),
    )
    assert result.status == status
    # Nothing held the run for the drain's grace: what held the pipe (the double fork's) was ended first.
    assert drains == ["end"]
    assert gone_within([int(wait_for_text(pid_file))]) == []  # it loops forever unless killed
    assert not still_written(ticks, QUIET)


def test_every_check_carries_its_own_mark_of_the_run(tmp_path: Path) -> None:
    one, two = run_checks([check("one", "echo $TIERGATE_RUN"), check("two", "echo $TIERGATE_RUN")], tmp_path)
    run, first = one.output.strip().rsplit(".", 1)
    assert re.fullmatch(r"[0-9a-f]{16}", run) and first == "0"
    assert two.output.strip() == f"{run}.1"


def test_a_check_ending_does_not_touch_what_the_other_checks_run(tmp_path: Path) -> None:
    pid_file, ticks, quick_ended = tmp_path / "daemon.pid", tmp_path / "ticks", tmp_path / "quick-ended"

    def note_the_quick_end(event: ProgressEvent) -> None:
        if event.event == "end" and event.check.name == "quick":
            quick_ended.touch()  # reported once the quick one's processes were swept

    # The quick one ends once the slow one's daemon runs, the slow one once the quick one has ended; the
    # daemon must then still be writing (else the slow check waits for a tick until its timeout).
    size = f"$(cat {ticks} 2>/dev/null | wc -c)"
    grows = f'n={size}; until [ "{size}" -gt "$n" ]; do sleep 0.05; done'
    slow = f"{daemon(pid_file, ticks)} {until_exists(quick_ended)}; {grows}"
    checks = [check("quick", f"until test -s {pid_file}; do sleep 0.01; done"), check("slow", slow)]
    quick, slow_result = run_checks(checks, tmp_path, Running(timeout=60, progress=note_the_quick_end))
    assert (quick.status, slow_result.status) == ("passed", "passed"), slow_result.output


RUN_AND_WAIT = """
import sys
from pathlib import Path
from tiergate.gate.checks import make_check
from tiergate.gate.processes import Running, run_checks
run_checks([make_check("slow", sys.argv[2], "test")], Path(sys.argv[1]), Running(timeout=60))
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

    assert gone_within(started) == []
    assert not still_written(ticks, QUIET) and not still_written(tmp_path / "daemon-ticks", QUIET)


def test_a_limit_learnt_while_a_check_runs_ends_it_then(tmp_path: Path) -> None:
    # The limit follows the base's time, known only once the base's run ends: here after half a second.
    began = time.monotonic()

    def limit(_: Check) -> float:
        return 1.0 if time.monotonic() - began > 0.5 else 3600.0

    [hung, quick] = run_checks(
        [check("hung", "sleep 600"), check("quick", "sleep 0.1")],
        tmp_path,
        Running(timeout=3600, limits=limit),
    )

    assert hung.status == "timed_out" and hung.reason.startswith("timed out after 1 s")
    assert 1.0 <= hung.duration < 10
    assert quick.status == "passed"


async def test_the_runner_asks_a_checks_limit_again_as_it_runs(tmp_path: Path) -> None:
    asked: list[str] = []

    def limit(c: Check) -> float:
        asked.append(c.name)
        return 0.3

    runner = processes._Runner(tmp_path, 3600.0, 1.0, 1024, None, 30.0, "", {}, limit)
    reaping = processes._Reaping()
    try:
        [result] = await runner.run_all((check("slow", "sleep 600"),), reaping)
    finally:
        reaping.close()

    assert result.status == "timed_out" and asked.count("slow") >= 2
