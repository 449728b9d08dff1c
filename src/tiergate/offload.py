"""Pure work done in a forked child while the hook goes on with its own: `start(work, *args)` now,
`.result()` when the answer is needed.

A claim's Stop has two costly parts that need nothing of each other once the change is measured: the
content rules' reading of the changed lines (pure computing, a few hundred milliseconds on a large
change) and the rest (the gate, which runs the project's checks, the coverage judgement, the
fingerprint). On a machine with two CPUs or more, the child computes the first while the hook does the
second.

The child is a fork, not a new interpreter: it has every module and every argument already, and
sends back only the pickled result, through a pipe, then leaves with `os._exit` (no atexit handler,
no buffered output of the parent's written twice). It is only ever asked for pure work, so that a
child cut short changes nothing.

The answer is always the work's own: when there is no `fork`, one CPU, or another thread in the
process (a fork copies only the calling thread, and a lock another one held stays held in the child),
the work runs in the hook's own process, at `.result()`; when the child fails in any way (it raised,
died, or sent something unreadable), the work runs again in the hook's process, so that its error, if
it has one, is raised where the caller catches it.
"""

from __future__ import annotations

import gc
import os
import pickle
import sys
import threading
from collections.abc import Callable
from typing import Generic, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")
_OK = b"ok"


class Pending(Generic[T]):
    """Work started in a child (`pid`, read end `fd`), or not started at all (`pid` None)."""

    def __init__(self, work: Callable[[], T], pid: int | None = None, fd: int | None = None) -> None:
        self._work, self._pid, self._fd = work, pid, fd
        self._done: tuple[T] | None = None

    @property
    def forked(self) -> bool:
        return self._pid is not None

    def result(self) -> T:
        """The work's result: the child's when it sent one, else computed here (its error raised here)."""
        if self._done is None:
            sent = self._collect()
            self._done = (self._work(),) if sent is None else sent
        return self._done[0]

    def _collect(self) -> tuple[T] | None:
        if self._pid is None or self._fd is None:
            return None
        with os.fdopen(self._fd, "rb") as pipe:
            self._fd = None
            data = pipe.read()
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        if not data.startswith(_OK) or os.waitstatus_to_exitcode(status) != 0:
            return None
        try:
            return (pickle.loads(data[len(_OK) :]),)  # our own fork's result
        except Exception:
            return None


def start(work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Pending[T]:
    """`work(*args, **kwargs)` begun in a forked child when that can help, else deferred to `.result()`."""

    def call() -> T:
        return work(*args, **kwargs)

    if not can_fork():
        return Pending(call)
    read, write = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        _child(call, write)
    os.close(write)
    return Pending(call, pid, read)


def can_fork() -> bool:
    """Whether a child would run beside the hook: `fork` exists, there is a second CPU to run it on, and
    this process has no other thread."""
    return hasattr(os, "fork") and (os.cpu_count() or 1) > 1 and threading.active_count() == 1


def _child(call: Callable[[], object], write: int) -> None:
    code = 1
    # A collection would walk (and so copy) the parent's every object; the child lives a moment.
    gc.disable()
    try:
        data = _OK + pickle.dumps(call(), protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(write, view) :]
        code = 0
    except BaseException:  # the parent computes it again and raises what it raises
        pass
    finally:
        os._exit(code)
