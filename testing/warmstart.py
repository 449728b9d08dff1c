"""tiergate's processes for the tests, forked from a warm interpreter instead of started cold.

A cold start spends most of its CPU importing tiergate, and the suite starts it about a thousand times:
one server per test worker imports it once and forks a child per run, with the run's own environment,
folder, arguments and streams, running `tiergate.main.main`. Only the imports are shared; the per-process
memos (git's, the sealing key's cache, the temporary folder) begin empty in each child. Tests of the
process itself, and every end-to-end test, still start cold; TIERGATE_TEST_COLD=1 makes every run cold
(CONTRIBUTING.md, "Setting up and running the tests").
"""

from __future__ import annotations

import array
import atexit
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_MAX_FDS = 3
_servers: dict[str, tuple[subprocess.Popen[bytes], str]] = {}  # this worker's, under "server"
_lock = threading.Lock()


def cold() -> bool:
    return os.environ.get("TIERGATE_TEST_COLD") == "1"


def run(
    args: list[str], *, env: dict[str, str], cwd: Path, stdin: str | None, timeout: float
) -> subprocess.CompletedProcess[str]:
    """`python -m tiergate ARGS` as `subprocess.run(..., capture_output=True, text=True)` returns it."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(_address())
        child_in, feed = os.pipe()
        out_r, child_out = os.pipe()
        err_r, child_err = os.pipe()
        header = json.dumps({"args": args, "env": env, "cwd": str(cwd)}).encode()
        conn.sendmsg(
            [len(header).to_bytes(8, "big"), header],
            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [child_in, child_out, child_err]))],
        )
        for fd in (child_in, child_out, child_err):
            os.close(fd)
        pid = int.from_bytes(_exactly(conn, 8), "big")
        out, err = _communicate(feed, out_r, err_r, (stdin or "").encode(), pid, timeout)
        conn.settimeout(timeout)
        status = int.from_bytes(_exactly(conn, 8), "big", signed=True)
    return subprocess.CompletedProcess(
        ["tiergate", *args], os.waitstatus_to_exitcode(status), out.decode(), err.decode()
    )


def _communicate(
    feed: int, out_r: int, err_r: int, data: bytes, pid: int, timeout: float
) -> tuple[bytes, bytes]:
    def write() -> None:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(feed, view) :]
        except BrokenPipeError:
            pass
        finally:
            os.close(feed)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            ready = selector.select(timeout)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                raise subprocess.TimeoutExpired(["tiergate"], timeout)
            for key, _ in ready:
                chunk = os.read(key.fd, 65536)
                if chunk:
                    chunks[key.fd].append(chunk)
                else:
                    selector.unregister(key.fd)
                    os.close(key.fd)
    writer.join()
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the warm tiergate server closed the connection")
        data += chunk
    return data


def server_pid() -> int:
    """This worker's server, the parent of every run it forks (started if need be)."""
    _address()
    return _servers["server"][0].pid


def _address() -> str:
    """The server of this test worker, started on first use and stopped when the worker exits."""
    with _lock:
        server = _servers.get("server")
        if server is None or server[0].poll() is not None:
            # An abstract socket (Linux): no file to leave behind, whatever TMPDIR the first test set.
            address = f"\0tiergate-warm-{os.getpid()}-{os.urandom(4).hex()}"
            ready_r, ready_w = os.pipe()
            process = subprocess.Popen(
                [sys.executable, "-c", f"from testing.warmstart import serve; serve({address!r}, {ready_w})"],
                cwd=REPO,
                env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "src")])},
                pass_fds=(ready_w,),
            )
            os.close(ready_w)
            with os.fdopen(ready_r, "rb") as ready:
                assert ready.read(1) == b"1", "the warm tiergate server did not start"
            atexit.register(process.kill)
            server = _servers["server"] = (process, address)
        return server[1]


# The server and its children ------------------------------------------------------------------------


def serve(address: str, ready: int) -> None:
    """Import tiergate, then fork a child for each connection until killed."""
    _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    listener.settimeout(2)
    os.write(ready, b"1")
    os.close(ready)
    worker = os.getppid()
    while os.getppid() == worker:  # a worker that died without stopping it (crashed, killed)
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        conn.settimeout(None)
        header, fds = _receive(conn)
        pid = os.fork()
        if pid == 0:
            listener.close()
            _child(conn, header, fds)
        for fd in fds:
            os.close(fd)
        conn.sendall(pid.to_bytes(8, "big"))
        threading.Thread(target=_report, args=(conn, pid), daemon=True).start()


def _preload() -> None:
    import importlib
    import pkgutil

    import tiergate

    # Every module a process may import: the warm start is only worth it when no run imports anything.
    for module in pkgutil.walk_packages(tiergate.__path__, "tiergate."):
        if module.name != "tiergate.__main__":
            importlib.import_module(module.name)
    for name in _IMPORTED_WHEN_USED:
        importlib.import_module(name)


# What tiergate's modules import only where a run uses it; the children of a server without these imported
# them in each Stop (anyio's backend and asyncio alone cost a warm Stop about as much CPU as the rest).
_IMPORTED_WHEN_USED = (
    "anyio._backends._asyncio",
    "anyio._core._signals",
    "anyio.to_thread",
    "concurrent.futures.thread",
    "pathspec.patterns.gitwildmatch",
    "structlog.dev",
    "structlog.processors",
    "structlog.stdlib",
    "structlog.testing",
    "structlog.tracebacks",
)


Header = tuple[list[str], dict[str, str], str]  # arguments, environment, working directory


def _receive(conn: socket.socket) -> tuple[Header, list[int]]:
    fds = array.array("i")
    message, ancillary, _, _ = conn.recvmsg(8, socket.CMSG_LEN(_MAX_FDS * fds.itemsize))
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    header = json.loads(_exactly(conn, int.from_bytes(message, "big")))
    return (list(header["args"]), dict(header["env"]), str(header["cwd"])), list(fds)


def _report(conn: socket.socket, pid: int) -> None:
    _, status = os.waitpid(pid, 0)
    try:
        conn.sendall(status.to_bytes(8, "big", signed=True))
    finally:
        conn.close()


def _child(conn: socket.socket, header: Header, fds: list[int]) -> None:
    code = 1
    try:
        conn.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        args, env, cwd = header
        os.chdir(cwd)
        sys.path[0] = cwd  # as `python -m` puts it
        os.environ.clear()
        os.environ.update(env)
        tempfile.tempdir = None  # from this run's TMPDIR
        sys.argv = [str(Path(sys.modules["tiergate"].__file__ or "").with_name("__main__.py")), *args]
        from tiergate.main import main

        code = _exit_code(main, args)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        _end(code)


def _exit_code(main: Callable[[list[str]], object], args: list[str]) -> int:
    try:
        result = main(args)
    except SystemExit as exit:
        result = exit.code
    if result is None:
        return 0
    if isinstance(result, int):
        return result
    print(result, file=sys.stderr)
    return 1


def _end(code: int) -> None:
    """What an interpreter does when its main module returns: the exit handlers, then the streams."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120
    os._exit(code)
