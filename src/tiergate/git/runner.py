"""The one git runner: every module asks git through `run`, `start` or `stream`.

git runs as a subprocess (no library) with the settings of `isolation`, paths unquoted
(`core.quotepath=off`); callers ask for NUL-separated output wherever paths are involved. Every failure a
user can act on becomes one `UserError` line naming the culprit.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

from tiergate.errors import UserError
from tiergate.git import isolation


def run(
    cwd: Path,
    *args: str,
    ok: Sequence[int] = (0,),
    stdin: bytes = b"",
    env: Mapping[str, str] | None = None,
    index: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` in `cwd`, with `isolation`'s settings and environment plus `env`, on the index file
    `index` if given. A return code not in `ok` raises UserError with git's own one-line reason."""
    environment = isolation.environment(index, env)
    try:
        proc = subprocess.run(
            isolation.command(cwd, args, environment),
            cwd=cwd,
            env=environment,
            input=stdin,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as e:
        raise _not_found(cwd) from e
    if proc.returncode not in ok:
        raise _error(cwd, args, proc.stderr)
    return proc


class Started:
    """A git run going on in the background (`start`): its output goes to files, read by `result`."""

    def __init__(
        self,
        cwd: Path,
        args: Sequence[str],
        proc: subprocess.Popen[bytes],
        files: tuple[IO[bytes], IO[bytes]],
        resources: contextlib.ExitStack,
    ) -> None:
        self._cwd, self._args, self._proc = cwd, args, proc
        self._out, self._err = files
        self._resources = resources

    def result(self) -> bytes:
        """git's output once it has ended; a failure raises UserError, as `run` does."""
        try:
            code = self._proc.wait()
            self._out.seek(0)
            if code != 0:
                self._err.seek(0)
                raise _error(self._cwd, self._args, self._err.read())
            return self._out.read()
        finally:
            self._close()

    def cancel(self) -> None:
        """End git now, its answer unread."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._close()

    def _close(self) -> None:
        self._resources.close()  # the output files with the rest


def start(
    cwd: Path,
    *args: str,
    index: Path | None = None,
    env: Mapping[str, str] | None = None,
    resources: contextlib.ExitStack | None = None,
) -> Started:
    """`run`, in the background: git starts now, with the same settings, and `Started.result` waits for
    it. Its output goes to a file rather than a pipe, so that git never waits for the caller to read.
    `resources` (the index file it reads, say) are released when it has been read or cancelled."""
    environment = isolation.environment(index, env)
    held = resources or contextlib.ExitStack()
    try:
        # Closed with `held`, when the answer has been read.
        out = held.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
        err = held.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
        try:
            proc = subprocess.Popen(
                isolation.command(cwd, args, environment),
                cwd=cwd,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
            )
        except FileNotFoundError as e:
            raise _not_found(cwd) from e
    except BaseException:
        held.close()
        raise
    return Started(cwd, args, proc, (out, err), held)


@contextlib.contextmanager
def stream(
    cwd: Path, *args: str, stdin: bytes = b"", env: Mapping[str, str] | None = None
) -> Iterator[Iterator[bytes]]:
    """`run` for output too long to hold at once (a history's patches): git's stdout in chunks, read
    while git writes them, with the same settings and `env`. git's failure raises UserError once its
    output is read to the end; a caller that stops early ends git."""
    environment = isolation.environment(None, env)
    command = isolation.command(cwd, args, environment)
    # stderr goes to a file: a pipe nobody reads while stdout is read would stall a chatty git.
    with tempfile.TemporaryFile() as errors, tempfile.TemporaryFile() as given:
        given.write(stdin)
        given.seek(0)
        try:
            proc = subprocess.Popen(
                command, cwd=cwd, env=environment, stdin=given, stdout=subprocess.PIPE, stderr=errors
            )
        except FileNotFoundError as e:
            raise _not_found(cwd) from e
        assert proc.stdout is not None
        out, ended = proc.stdout, []

        def chunks() -> Iterator[bytes]:
            # What git has written so far, up to 1 MiB, without waiting for the rest.
            while chunk := os.read(out.fileno(), 1 << 20):
                yield chunk
            ended.append(True)

        try:
            yield chunks()
        except Exception as e:
            # Output read to its end but unreadable: git's own failure, when it failed, is the news.
            code = _finish(proc, killed=not ended)
            if ended and code != 0:
                errors.seek(0)
                raise _error(cwd, args, errors.read()) from e
            raise
        except BaseException:  # the caller closed, or an interrupt: git is ended
            _finish(proc, killed=True)
            raise
        # A caller that stopped early does not want the rest: git is ended, its failure no news.
        code = _finish(proc, killed=not ended)
        if ended and code != 0:
            errors.seek(0)
            raise _error(cwd, args, errors.read())


def _not_found(cwd: Path) -> UserError:
    """Why git could not be started: the directory is gone, or git is not installed."""
    if not cwd.is_dir():
        return UserError(f"no such directory: {cwd}")
    return UserError("git not found: install git and put it on PATH")


def _finish(proc: subprocess.Popen[bytes], killed: bool) -> int:
    if killed:
        proc.kill()
    assert proc.stdout is not None
    proc.stdout.close()
    return proc.wait()


def _error(cwd: Path, args: Sequence[str], stderr: bytes) -> UserError:
    text = stderr.decode(errors="replace")
    if "not a git repository" in text or "must be run in a work tree" in text:
        return UserError(f"not a git repository: {cwd} (run tiergate inside a git work tree)")
    if "dubious ownership" in text:
        return UserError(
            f"git does not trust the repository at {cwd}: dubious ownership (see safe.directory)"
        )
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    detail = next((line for line in lines if line.startswith(("fatal:", "error:"))), None)
    return UserError(f"git {args[0]} failed in {cwd}: {detail or (lines[0] if lines else 'no message')}")


def text(out: bytes) -> str:
    """git's one-line answer (a path, an id) as text, without its newline."""
    return os.fsdecode(out.rstrip(b"\n"))
