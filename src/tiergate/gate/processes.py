"""Running checks: each one a `/bin/sh -c` process in its own process group, all at once.

Only the tail of each output is kept, a timeout ends the whole group, nothing a check starts outlives
it or the hook (`tiergate.reaper`), a check whose program is missing is not started, and credentials in
the output are redacted. See docs/judging.md, "Running a check".
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal

import anyio
import anyio.abc

from tiergate import reaper
from tiergate.frozen import frozen
from tiergate.gate import sandbox
from tiergate.gate.checks import Check, CheckResult, Status
from tiergate.gate.detection.projectchecks import locate_program
from tiergate.redact import redact

DEFAULT_TIMEOUT = 300.0
DEFAULT_GRACE = 5.0
DEFAULT_TAIL_BYTES = 64 * 1024
DEFAULT_HEARTBEAT = 30.0
SHELL = "/bin/sh"
EXIT_NOT_FOUND = 127
EXIT_NOT_EXECUTABLE = 126
_POLL = 0.05
_COMPLAINT_KEPT = 200
_DRAIN_AFTER_EXIT = 2.0  # seconds to wait for the output pipe once the whole group is gone


@frozen
class ProgressEvent:
    """`start` and `end` once per check, `running` every heartbeat while it runs. `label` names the
    run the check belongs to ("" for the gate itself, "baseline" for a baseline run)."""

    event: Literal["start", "running", "end"]
    check: Check
    elapsed: float
    result: CheckResult | None = None
    label: str = ""


Progress = Callable[[ProgressEvent], None]
# A check's time limit in seconds, asked again every `_LIMIT_POLL` seconds while it runs.
Limits = Callable[[Check], float]
_LIMIT_POLL = 1.0


class ChecksInterruptedError(Exception):
    """The run was stopped by a signal; every check's process group has been killed."""


LIMIT_VARIABLE = "TIERGATE_CHECK_LIMIT"


@frozen
class Running:
    """How checks run: each one's `timeout`, and its `limits` (asked again as it runs: a limit that follows
    the base's time is learnt meanwhile; never over `timeout`); who hears of `progress`, every `heartbeat`
    seconds, under `label`; the `grace` a check ended has to exit; the tail of its output kept."""

    timeout: float = DEFAULT_TIMEOUT
    limits: Limits | None = None
    progress: Progress | None = None
    label: str = ""
    heartbeat: float = DEFAULT_HEARTBEAT
    grace: float = DEFAULT_GRACE
    tail_bytes: int = DEFAULT_TAIL_BYTES


def run_checks(
    checks: Sequence[Check],
    cwd: Path,
    running: Running | None = None,
    *,
    env: Mapping[str, Mapping[str, str]] | None = None,
) -> tuple[CheckResult, ...]:
    """Run `checks` concurrently in `cwd`, as `running` says; their results in the order given. `env`:
    variables added to the environment of some checks, by check key (the gate's coverage measurement)."""
    r = running or Running()
    runner = _Runner(
        cwd, r.timeout, r.grace, r.tail_bytes, r.progress, r.heartbeat, r.label, env or {}, r.limits
    )
    reaping = _Reaping()
    try:
        return anyio.run(runner.run_all, tuple(checks), reaping)
    except BaseException:
        # A KeyboardInterrupt can leave the event loop before every check's own cleanup ran.
        reaping.kill_all()
        raise
    finally:
        reaping.close()


def skipped(check: Check, reason: str) -> CheckResult:
    return CheckResult(
        check.name, check.command, check.kind, check.stage, "skipped", None, 0.0, "", 0, reason
    )


@frozen
class _Runner:
    cwd: Path
    timeout: float
    grace: float
    tail_bytes: int
    progress: Progress | None
    heartbeat: float
    label: str
    env: Mapping[str, Mapping[str, str]]
    limits: Limits | None = None

    def limit(self, check: Check) -> float:
        return self.timeout if self.limits is None else min(self.timeout, self.limits(check))

    async def run_all(self, checks: tuple[Check, ...], reaping: _Reaping) -> tuple[CheckResult, ...]:
        results: dict[int, CheckResult] = {}
        interrupted: list[str] = []

        async def one(index: int, check: Check) -> None:
            results[index] = await self.run_one(check, reaping, f"{reaping.mark}.{index}")

        async with anyio.create_task_group() as group:
            if threading.current_thread() is threading.main_thread():
                group.start_soon(_watch_signals, group.cancel_scope, interrupted)
            async with anyio.create_task_group() as checks_group:
                for index, check in enumerate(checks):
                    checks_group.start_soon(one, index, check)
            group.cancel_scope.cancel()
        if interrupted:
            raise ChecksInterruptedError(f"interrupted by {interrupted[0]}: every check was stopped")
        return tuple(results[i] for i in range(len(checks)))

    async def run_one(self, check: Check, reaping: _Reaping, mark: str) -> CheckResult:
        self._report(ProgressEvent("start", check, 0.0, label=self.label))
        problem = locate_program(check.command, self.cwd).problem
        if problem:
            result = _result(check, "not_found", None, 0.0, _Tail(0), f"could not run: {problem}")
            self._report(ProgressEvent("end", check, 0.0, result, self.label))
            return result
        started = time.monotonic()
        try:
            # The check's own time limit, told: the mutants its tests run after them keep within it.
            added = {**self.env.get(check.key, {}), LIMIT_VARIABLE: f"{self.limit(check):.3f}"}
            process = await reaping.spawn([SHELL, "-c", check.command], self.cwd, mark, added)
        except OSError as exc:
            result = _result(check, "error", None, 0.0, _Tail(0), f"could not run: could not start: {exc}")
            self._report(ProgressEvent("end", check, 0.0, result, self.label))
            return result
        tail = _Tail(self.tail_bytes)
        try:
            timed_out = await self._supervise(check, process, tail, started, mark)
        except BaseException:
            # Cancelled or interrupted: the group lives in its own session and would outlive us.
            _signal_group(process.pid, signal.SIGKILL)
            reaper.sweep(mark)
            with anyio.CancelScope(shield=True):
                await process.wait()
            raise
        finally:
            reaping.ended(process.pid)
        elapsed = time.monotonic() - started
        limit = self.limit(check)
        result = _classify(check, process.returncode, timed_out, elapsed, tail, limit)
        self._report(ProgressEvent("end", check, elapsed, result, self.label))
        return result

    async def _supervise(
        self, check: Check, process: anyio.abc.Process, tail: _Tail, started: float, mark: str
    ) -> bool:
        """Wait for the check, ending its group on timeout and its leftovers on exit; True if timed out."""
        drained = anyio.Event()
        async with anyio.create_task_group() as group:
            assert process.stdout is not None
            group.start_soon(_drain, process.stdout, tail, drained)
            if self.progress is not None:
                group.start_soon(self._beat, check, started)
            timed_out = await self._wait(check, process, started)
            await _end_group(process.pid, self.grace)
            await process.wait()
            reaper.sweep(mark)  # what left the group (setsid, a double fork), by the mark it carries
            with anyio.move_on_after(_DRAIN_AFTER_EXIT):
                # A process that left the group without its environment may still hold the pipe.
                await drained.wait()
            group.cancel_scope.cancel()
        return timed_out

    async def _wait(self, check: Check, process: anyio.abc.Process, started: float) -> bool:
        """Wait for the check's process until its limit; True if the limit came first."""
        if self.limits is None:
            with anyio.move_on_after(self.timeout) as deadline:
                await process.wait()
            return deadline.cancelled_caught
        while True:
            left = self.limit(check) - (time.monotonic() - started)
            if left <= 0:
                return True
            with anyio.move_on_after(min(left, _LIMIT_POLL)) as slice_:
                await process.wait()
            if not slice_.cancelled_caught:
                return False

    async def _beat(self, check: Check, started: float) -> None:
        while True:
            await anyio.sleep(self.heartbeat)
            self._report(ProgressEvent("running", check, time.monotonic() - started, label=self.label))

    def _report(self, event: ProgressEvent) -> None:
        if self.progress is not None:
            self.progress(event)


class _Reaping:
    """One run's means of ending what its checks start (`tiergate.reaper`): the run's mark, the
    parent-death signal, and the watcher, started before the first check is."""

    def __init__(self) -> None:
        self.mark = reaper.new_mark()
        self._watcher: reaper.Watcher | None = None
        self._groups: set[int] = set()

    async def spawn(
        self, command: list[str], cwd: Path, mark: str, added: Mapping[str, str]
    ) -> anyio.abc.Process:
        if self._watcher is None:
            self._watcher = reaper.Watcher(self.mark)
        # anyio.open_process takes no preexec_fn; its backend passes one on to subprocess.Popen.
        from anyio._core._eventloop import get_async_backend

        # A check in a copy or a worktree starts in namespaces of its own (`tiergate.gate.sandbox`).
        command, own = sandbox.wrapped(command, cwd, added)
        argv, preexec = reaper.with_death_signal(command)
        process = await get_async_backend().open_process(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=reaper.marked_env({**os.environ, **own}, mark),
            start_new_session=True,
            preexec_fn=preexec,
        )
        self._groups.add(process.pid)
        self._watcher.started(process.pid)
        return process

    def ended(self, pgid: int) -> None:
        self._groups.discard(pgid)
        if self._watcher is not None:
            self._watcher.ended(pgid)

    def kill_all(self) -> None:
        """End every group still open and every process of the run's mark, at once."""
        for pgid in self._groups:
            reaper.kill_group(pgid)
        reaper.sweep(self.mark)

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.close()


async def _watch_signals(scope: anyio.CancelScope, interrupted: list[str]) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
        async for signum in signals:
            interrupted.append(signal.Signals(signum).name)
            scope.cancel()
            return


async def _drain(stream: anyio.abc.ByteReceiveStream, tail: _Tail, drained: anyio.Event) -> None:
    with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
        async for chunk in stream:
            tail.add(chunk)
    drained.set()


class _Tail:
    """The last `limit` bytes of a stream, and how many bytes went through."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._buffer = bytearray()

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._buffer += chunk
        # Trimmed in batches, not per chunk, so that keeping the tail stays linear in the output.
        if len(self._buffer) > 2 * self.limit:
            del self._buffer[: len(self._buffer) - self.limit]

    def text(self) -> str:
        kept = bytes(self._buffer[-self.limit :]) if self.limit else b""
        dropped = self.total - len(kept)
        text = kept.decode("utf-8", errors="replace")
        if dropped and "\n" in text:
            text = text.split("\n", 1)[1]  # the first line is probably cut
        return f"[... {dropped} earlier bytes not kept]\n{text}" if dropped else text


def _classify(
    check: Check, code: int | None, timed_out: bool, elapsed: float, tail: _Tail, timeout: float
) -> CheckResult:
    if timed_out:
        return _result(
            check,
            "timed_out",
            code,
            elapsed,
            tail,
            f"timed out after {timeout:g} s; its process group was ended",
        )
    if code == 0:
        return _result(check, "passed", code, elapsed, tail, "exit 0")
    if code in (EXIT_NOT_FOUND, EXIT_NOT_EXECUTABLE):
        what = "command not found" if code == EXIT_NOT_FOUND else "command not executable"
        said = _shell_complaint(tail.text())
        reason = f"could not run: {said or what} (exit {code} from the shell)"
        return _result(check, "not_found", code, elapsed, tail, reason)
    if code is not None and code < 0:
        name = _signal_name(-code)
        return _result(check, "failed", code, elapsed, tail, f"killed by {name}")
    return _result(check, "failed", code, elapsed, tail, f"exit {code}")


def _shell_complaint(output: str) -> str:
    """The shell's own last line about a command it could not run (`/bin/sh: 1: ruff: not found`)."""
    for line in reversed(output.splitlines()):
        if line.startswith(f"{SHELL}:") and line.rstrip().endswith(("not found", "Permission denied")):
            return line.strip()[:_COMPLAINT_KEPT]
    return ""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _result(
    check: Check, status: Status, code: int | None, elapsed: float, tail: _Tail, reason: str
) -> CheckResult:
    return CheckResult(
        check.name,
        check.command,
        check.kind,
        check.stage,
        status,
        code,
        elapsed,
        # Redacted at the source: the output goes on to the block reason the model reads, the
        # verifier's packet, the caches, the loop's state and the log, none of which may hold a secret.
        redact(tail.text()),
        tail.total,
        redact(reason),
    )


# Process groups -------------------------------------------------------------------------------------------


async def _end_group(pgid: int, grace: float) -> None:
    """SIGTERM the group, then SIGKILL whatever is still alive after `grace` seconds."""
    if not _group_alive(pgid) or not _signal_group(pgid, signal.SIGTERM):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        await anyio.sleep(_POLL)
        if not _group_alive(pgid):
            return
    _signal_group(pgid, signal.SIGKILL)


def _signal_group(pgid: int, signum: int) -> bool:
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed its user: nothing more we may do
        return False
    return True


def _group_alive(pgid: int) -> bool:
    """Whether the group has a member that is not a zombie.

    Zombies count for kill(2), and an init that never reaps (some containers' PID 1) keeps them
    forever, which would make every leftover cost the whole grace period. /proc tells them apart where
    there is one."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return _proc_group_alive(pgid)


def _proc_group_alive(pgid: int) -> bool:
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return False
