"""The gate in the background: a claim's checks run in a process of their own (`tiergate.gate.job`), bound
to the workspace they were started for, so that no Stop is held for a whole suite.

One job at a time per project, running exactly while it holds `gate/job.lock` (dropped however it
dies); its record (`gate/job.json`, sealed) names its workspace (the claim's evidence key), session,
start and phase, its results kept under `job_key`. See docs/judging.md, "A suite longer than a Stop".
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tiergate.frozen import frozen
from tiergate.project import Project, ensure_state_dir, open_sealed, write_sealed

FOLDER = "gate"
OVER = frozenset({"done", "changed", "failed", "cancelled"})
_POLL = 0.2
_FIRST_POLL = 0.01
_MAX_FD = 65536
# How long `cancel` waits for a job to end on SIGTERM (its checks' groups ended) before SIGKILL.
CANCEL_GRACE = 5.0
# How long a job waits for the one before it to let go of the lock (it was just ended: `cancel`).
LOCK_WAIT = 4 * CANCEL_GRACE
# How long a job may take to start (its lock taken, its record rewritten) before it counts as lost.
START_GRACE = 30.0
_ENTRY = "import sys; from tiergate.gate.job import main; sys.exit(main(sys.argv[1:]))"


@frozen
class Job:
    """A job's record, and whether it is running now (its lock held)."""

    key: str  # the claim's evidence key: the workspace it runs for (a baseline's: "baseline:<commit>")
    session_id: str
    pid: int
    started: float  # time.time()
    running: bool
    # "starting" (written by the Stop that starts it), "running", "done", "changed" (the workspace changed
    # under it: its results are not this workspace's), "failed", "cancelled"
    state: str
    phase: str = ""  # "first": the tests the change affects; "suite": the whole run; "" unknown
    elapsed: float = 0.0  # seconds the checks had run at its last report
    base_seconds: float | None = None  # what the slowest check took at the base, when known
    note: str = ""  # why it failed
    kind: str = "claim"  # "claim": a claim's checks; "baseline": the loop's checks at its base, at its start

    @property
    def died(self) -> bool:
        """Over without saying so: its process ended before it could (killed, or the machine restarted)."""
        return self.over and self.state in ("starting", "running")

    @property
    def over(self) -> bool:
        """Its run is over: it says so, or its process is gone (a record left "running" by a job that died,
        or by a machine restart) and it is not still starting."""
        if self.state in OVER:
            return True
        if self.running:
            return False
        return self.state != "starting" or time.time() - self.started > START_GRACE

    @property
    def done(self) -> bool:
        """Over, with results for its workspace."""
        return self.over and self.state == "done"

    def to_record(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "session_id": self.session_id,
            "pid": self.pid,
            "started": self.started,
            "state": self.state,
            "phase": self.phase,
            "elapsed": self.elapsed,
            "base_seconds": self.base_seconds,
            "note": self.note,
            "kind": self.kind,
        }

    @staticmethod
    def from_record(record: dict[str, Any], running: bool) -> Job:
        base = record.get("base_seconds")
        return Job(
            key=str(record["key"]),
            session_id=str(record["session_id"]),
            pid=int(record["pid"]),
            started=float(record["started"]),
            running=running,
            state=str(record["state"]),
            phase=str(record.get("phase", "")),
            elapsed=float(record.get("elapsed", 0.0)),
            base_seconds=None if base is None else float(base),
            note=str(record.get("note", "")),
            kind=str(record.get("kind", "claim")),
        )


def job_key(claim_key: str) -> str:
    """Where a job keeps its results for the Stop to read once (not the claim's own evidence key: a
    check that timed out or could not run is shown once, never kept as the workspace's evidence)."""
    return hashlib.sha256(f"background\0{claim_key}".encode()).hexdigest()


def folder(project: Project) -> Path:
    return project.state_dir / FOLDER


def status(project: Project) -> Job | None:
    """The project's job: the last one started, running or not (None: none, or its record unreadable)."""
    path = folder(project) / "job.json"
    try:
        data = path.read_bytes()
        record = json.loads(open_sealed(project, path, data))
        return Job.from_record(record, running=_locked(project))
    except Exception:
        return None


def write(project: Project, job: Job) -> None:
    ensure_state_dir(project)
    path = folder(project) / "job.json"
    path.parent.mkdir(mode=0o700, exist_ok=True)
    write_sealed(project, path, json.dumps(job.to_record()).encode())


def lock(project: Project, wait: float = LOCK_WAIT) -> int | None:
    """The job's lock, taken once the job before it is gone (its file descriptor, to keep open for the
    job's life); the lock file then names this process. None when it is still held after `wait`
    seconds: a job before it that does not end, or another process holding it (a claim's Stop ends the
    job before it first, so a wait longer than its grace is not tiergate's)."""
    import fcntl

    ensure_state_dir(project)
    folder(project).mkdir(mode=0o700, exist_ok=True)
    fd = os.open(folder(project) / "job.lock", os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError:
            if time.monotonic() >= deadline:
                os.close(fd)
                return None
            time.sleep(_POLL)
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


def _holder(project: Project) -> int | None:
    """The process holding the lock, as the lock file names it (None: none, or not known)."""
    if not _locked(project):
        return None
    try:
        pid = int((folder(project) / "job.lock").read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if pid > 0 else None


def _locked(project: Project) -> bool:
    """Whether a job holds the lock now."""
    import fcntl

    try:
        fd = os.open(folder(project) / "job.lock", os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def start(project: Project, spec: dict[str, Any], child: Callable[[list[str]], int]) -> Job:
    """Start a job for `spec` (`tiergate.gate.job` reads it; its `key` and `session_id` are the job's),
    detached: its own session, no stdin, its output to a file beside its record (the hook's stdout is the
    protocol's channel, and a process holding it would keep Claude Code waiting). `child`: the job's
    main (`tiergate.gate.job.main`), run in a forked child."""
    ensure_state_dir(project)
    where = folder(project)
    where.mkdir(mode=0o700, exist_ok=True)
    spec_path = where / "spec.json"
    write_sealed(project, spec_path, json.dumps(spec).encode())
    # Written before the job starts, which then rewrites it: never after, over what the job wrote.
    kind = str(spec.get("kind", "claim"))
    job = Job(str(spec["key"]), str(spec["session_id"]), 0, time.time(), True, "starting", kind=kind)
    write(project, job)
    if _fork_job(project, child):
        return job
    with (where / "job.log").open("ab") as log:
        subprocess.Popen(
            [sys.executable, "-I", "-c", _ENTRY, str(project.root), str(project.state_dir)],
            cwd=project.root,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )
    return job


def _fork_job(project: Project, child: Callable[[list[str]], int]) -> bool:
    """The job begun in a forked child of this process (no interpreter to start, nothing to import again:
    a claim whose checks take a second pays for none of it); False when this process has another thread
    (a fork would copy its locks half taken) or cannot fork: the job is then started afresh."""
    import threading

    if not hasattr(os, "fork") or threading.active_count() != 1:
        return False
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid == 0:  # the child: it ends here, whatever happens, and never returns into the hook's code
        code = 1
        try:
            os.setsid()
            _detach_stdio(folder(project) / "job.log")
            code = child([str(project.root), str(project.state_dir)])
        except BaseException as exc:
            _failed(project, exc)
        finally:
            os._exit(code)
    return True


def _failed(project: Project, exc: BaseException) -> None:
    """A job that could not run: why, in its log and in its record (an error never passes silently)."""
    import traceback

    with contextlib.suppress(BaseException):
        traceback.print_exception(exc)
        job = status(project)
        if job is not None and not job.over:
            write(project, replace(job, state="failed", note=f"{type(exc).__name__}: {exc}"))


def _detach_stdio(log: Path) -> None:
    """The hook's stdin, stdout and stderr are Claude Code's pipes, which it reads until they close: the
    job must not hold them open once the hook has answered, under any number (the hook keeps a copy of
    its stdout aside while it works: `tiergate.hook.entry`). Its output goes to its log; every other
    descriptor the hook had is closed (the job opens its own files)."""
    null = os.open(os.devnull, os.O_RDONLY)
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.closerange(3, _MAX_FD)


def read_spec(project: Project) -> dict[str, Any]:
    path = folder(project) / "spec.json"
    spec = json.loads(open_sealed(project, path, path.read_bytes()))
    if not isinstance(spec, dict):
        raise ValueError("not a job's spec")
    return spec


def wait(project: Project, key: str | None, seconds: float) -> Job | None:
    """The project's job once it is over, or as it stands after `seconds`; at once when there is none or
    it runs for another workspace than `key`'s (None: any)."""
    deadline = time.monotonic() + seconds
    pause = _FIRST_POLL
    while True:
        job = status(project)
        if job is None or (key is not None and job.key != key) or job.over:
            return job
        if time.monotonic() >= deadline:
            return job
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(_POLL, pause * 2)  # a check of a second is read at once, a long run without cost


def cancel(project: Project, session_id: str | None = None, *, grace: float = CANCEL_GRACE) -> Job | None:
    """End the project's job (only the given session's, when one is named), and the one queued behind
    it: its record says cancelled (a job that starts reads it and leaves at once), its process gets
    SIGTERM, which ends its checks' process groups, then SIGKILL after `grace` seconds (0: no wait, as a
    SessionEnd must). What its checks started is reaped as theirs always is (`tiergate.reaper`). The
    job ended (None: none was running)."""
    job = status(project)
    if job is None or (session_id is not None and job.session_id != session_id):
        return None
    if job.over and not job.running:
        return None
    write(project, replace(job, state="cancelled", note="cancelled"))
    # Only the process the job's own (sealed) record names, and only while the lock file names it too:
    # the lock file alone is writable by anyone, and would have tiergate signal any process it names.
    pid = _holder(project)
    if pid is None or pid != job.pid:
        return job
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGTERM)
    if grace <= 0:
        return job
    deadline = time.monotonic() + grace
    while _holder(project) == pid and time.monotonic() < deadline:
        time.sleep(_POLL)
    if _holder(project) == pid:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        while _holder(project) == pid and time.monotonic() < deadline + grace:
            time.sleep(_POLL)
    return job
