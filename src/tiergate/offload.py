"""Work done in a forked child while the hook goes on with its own: `start(work, *args)` now,
`.result()` when the answer is needed; `start_staged(first, then)` for work in two steps whose first
answer is needed before the second. Only for work that changes nothing, and the answer is always the
work's own: computed in the hook when the child cannot be used or fails. Why and how: docs/ARCHITECTURE.md,
section "A claim's Stop: what runs beside what".
"""

from __future__ import annotations

import gc
import os
import pickle
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, ParamSpec, TypeVar

T = TypeVar("T")
A = TypeVar("A")
B = TypeVar("B")
P = ParamSpec("P")
_LENGTH_BYTES = 8


class _Child:
    """The parent's end of a child's pipe: its answers, one frame (length, pickle) per step."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid: int | None = pid
        self._pipe = os.fdopen(fd, "rb")

    def next(self) -> tuple[Any] | None:
        """The child's next answer, or None when it sent no more (it failed, or has no more steps)."""
        if self.pid is None:
            return None
        head = self._pipe.read(_LENGTH_BYTES)
        data = self._pipe.read(int.from_bytes(head, "big")) if len(head) == _LENGTH_BYTES else b""
        if not data:
            self.end()
            return None
        try:
            return (pickle.loads(data),)  # our own fork's answer
        except Exception:
            self.end()
            return None

    def end(self) -> None:
        """Read no more; reap the child (it has sent all it will, or failed)."""
        if self.pid is not None:
            self._pipe.close()
            os.waitpid(self.pid, 0)
            self.pid = None

    def leave(self) -> None:
        """Read no more and do not wait: the child finishes on its own (its writes fail) and exits."""
        if self.pid is not None:
            self._pipe.close()
            self.pid = None


def _received(child: _Child | None, last: bool) -> tuple[Any] | None:
    """The child's next answer, if it sent one (a tuple, so that an answer of None is one); the child
    reaped after its `last` one."""
    if child is None:
        return None
    sent = child.next()
    if last:
        child.end()
    return sent


class Pending(Generic[T]):
    """One step begun in a child, or deferred to `result` (no child)."""

    def __init__(self, work: Callable[[], T], child: _Child | None) -> None:
        self._work, self._child = work, child
        self._done: tuple[T] | None = None

    def result(self) -> T:
        """The work's answer: the child's when it sent one, else computed here (its error raised here)."""
        if self._done is None:
            self._done = _received(self._child, last=True) or (self._work(),)
        return self._done[0]


class Staged(Generic[A, B]):
    """Two steps begun in a child: `first()`, then `second()` (`then` of the first's answer)."""

    def __init__(self, first: Callable[[], A], then: Callable[[A], B], child: _Child | None) -> None:
        self._first, self._then, self._child = first, then, child
        self._a: tuple[A] | None = None
        self._b: tuple[B] | None = None

    def first(self) -> A:
        if self._a is None:
            self._a = _received(self._child, last=False) or (self._first(),)
        return self._a[0]

    def second(self) -> B:
        """The second answer, for the first answer `first()` gave (the child's, or the one computed here)."""
        if self._b is None:
            a = self.first()
            self._b = _received(self._child, last=True) or (self._then(a),)
        return self._b[0]

    def cancel(self) -> None:
        """The answers are not wanted after all: the child is left to finish unread."""
        if self._child is not None:
            self._child.leave()


def start(work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Pending[T]:
    """`work(*args, **kwargs)` begun in a forked child when that can help, else deferred to `.result()`."""

    def call() -> T:
        return work(*args, **kwargs)

    return Pending(call, _fork([lambda _: call()]))


def start_staged(first: Callable[[], A], then: Callable[[A], B]) -> Staged[A, B]:
    """`first()` and then `then(first())` begun in a forked child when that can help; each answer is
    sent as soon as it is known, so that `Staged.first` need not wait for the second step."""
    return Staged(first, then, _fork([lambda _: first(), then]))


def can_fork() -> bool:
    """Whether a child would run beside the hook: `fork` exists, there is a second CPU to run it on, and
    this process has no other thread."""
    return hasattr(os, "fork") and (os.cpu_count() or 1) > 1 and threading.active_count() == 1


def _fork(steps: Sequence[Callable[[Any], object]]) -> _Child | None:
    """A child running `steps`, or None when there is none to be had (the work then runs in the hook):
    no second CPU, another thread, or the system refused a pipe or a process (EAGAIN, ENOMEM)."""
    if not can_fork():
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        read, write = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: whatever happens, it ends here and never returns into the hook's code
        try:
            os.close(read)
            _detach_stdio()
            _run(steps, write)
        finally:
            os._exit(1)
    os.close(write)
    return _Child(pid, read)


def _detach_stdio() -> None:
    """The hook's stdin, stdout and stderr are Claude Code's pipes, which it reads until they close: a
    child left to finish (`cancel`) must not hold them open after the hook has answered, nor write to them."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _run(steps: Sequence[Callable[[Any], object]], write: int) -> None:
    code = 1
    # A collection would walk (and so copy) the parent's every object; the child lives a moment.
    gc.disable()
    try:
        answer: object = None
        for step in steps:
            answer = step(answer)
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
            _write_all(write, len(data).to_bytes(_LENGTH_BYTES, "big"))
            _write_all(write, data)
        code = 0
    except BaseException:  # the parent computes what is missing and raises what it raises
        pass
    finally:
        os._exit(code)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
