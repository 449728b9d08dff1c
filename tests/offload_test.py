"""Work done in a forked child (`tiergate.offload`): the answer is always the work's own, whether the
child sent it, failed, died, or was never started."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from testing.cpus import two_cpus  # noqa: F401  (a fixture)
from testing.procwatch import HANG_GUARD

from tiergate import offload

PARENT = os.getpid()
T = TypeVar("T")


def where(tag: str) -> tuple[str, int]:
    return tag, os.getpid()


def note(record: Path) -> None:
    """Add this process to `record`: the processes that ran the work, in the order they ran it."""
    with record.open("a") as written:
        written.write(f"{os.getpid()}\n")


def ran_in(record: Path) -> list[int]:
    """The processes `note` added to `record`, in order (none when the work has not run)."""
    return [int(pid) for pid in record.read_text().split()] if record.exists() else []


def noted(record: Path, work: Callable[[], T]) -> Callable[[], T]:
    """`work`, with the process that runs it added to `record` first."""

    def run() -> T:
        note(record)
        return work()

    return run


def fails_in_child(record: Path) -> str:
    note(record)
    if os.getpid() != PARENT:
        raise RuntimeError("only in the child")
    return "computed by the parent"


def killed_in_child(record: Path) -> str:
    note(record)
    if os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    return "computed by the parent"


def unpicklable(record: Path) -> object:
    note(record)
    return (lambda: None) if os.getpid() != PARENT else "computed by the parent"


def always_fails() -> None:
    raise ValueError("bad change")


@pytest.mark.usefixtures("two_cpus")
def test_the_child_computes_the_result_and_is_reaped() -> None:
    pending = offload.start(where, "x")
    tag, worker = pending.result()
    assert tag == "x" and worker != PARENT
    assert pending.result() == (tag, worker)  # asked twice: the same answer, no second child
    with pytest.raises(ChildProcessError):
        os.waitpid(worker, os.WNOHANG)  # reaped


@pytest.mark.usefixtures("two_cpus")
@pytest.mark.parametrize("work", [fails_in_child, killed_in_child, unpicklable])
def test_a_child_that_fails_dies_or_sends_garbage_is_replaced_by_the_parents_own_work(
    work: Callable[[Path], object], tmp_path: Path
) -> None:
    record = tmp_path / "ran"
    pending = offload.start(work, record)
    assert pending.result() == "computed by the parent"
    ran = ran_in(record)  # a child ran the work first, then the parent in its place
    assert len(ran) == 2 and ran[0] != PARENT and ran[1] == PARENT


def test_an_error_of_the_work_itself_is_raised_in_the_parent() -> None:
    pending = offload.start(always_fails)
    with pytest.raises(ValueError, match="bad change"):
        pending.result()


def test_one_cpu_does_not_fork_and_the_work_runs_when_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    record = tmp_path / "ran"
    pending = offload.start(noted(record, lambda: where("z")))
    assert ran_in(record) == []
    assert pending.result() == ("z", PARENT)
    assert ran_in(record) == [PARENT]  # here alone: no child ran it


@pytest.mark.usefixtures("two_cpus")
def test_a_process_with_another_thread_does_not_fork(tmp_path: Path) -> None:
    record = tmp_path / "ran"
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        pending = offload.start(noted(record, lambda: where("y")))
        assert ran_in(record) == []
        assert pending.result() == ("y", PARENT)
        assert ran_in(record) == [PARENT]  # here alone: no child ran it
    finally:
        stop.set()
        thread.join()


def second_step(first: tuple[str, int]) -> tuple[str, int, int]:
    return (*first, os.getpid())


def second_fails_in_child(first: tuple[str, int]) -> str:
    if os.getpid() != PARENT:
        raise RuntimeError("only in the child")
    return f"the parent's, from {first[0]} of {'the child' if first[1] != PARENT else 'the parent'}"


@pytest.mark.usefixtures("two_cpus")
def test_two_steps_in_a_child_each_answer_as_soon_as_it_is_known() -> None:
    staged = offload.start_staged(lambda: where("a"), second_step)
    tag, worker = staged.first()
    assert tag == "a" and worker != PARENT
    assert staged.second() == ("a", worker, worker)  # the second step ran on the child's first answer
    with pytest.raises(ChildProcessError):
        os.waitpid(worker, os.WNOHANG)


@pytest.mark.usefixtures("two_cpus")
def test_a_second_step_that_fails_in_the_child_runs_here_on_the_childs_first_answer() -> None:
    staged = offload.start_staged(lambda: where("a"), second_fails_in_child)
    assert staged.first()[1] != PARENT
    assert staged.second() == "the parent's, from a of the child"


@pytest.mark.usefixtures("two_cpus")
def test_a_first_step_that_fails_in_the_child_runs_both_here(tmp_path: Path) -> None:
    staged = offload.start_staged(lambda: fails_in_child(tmp_path / "ran"), lambda first: f"then {first}")
    assert staged.first() == "computed by the parent"
    assert staged.second() == "then computed by the parent"


def appears(path: Path) -> bool:
    """Whether `path` exists within HANG_GUARD seconds (a guard against a hang, not a measure)."""
    deadline = time.monotonic() + HANG_GUARD
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.usefixtures("two_cpus")
def test_cancelled_work_is_left_to_finish_and_its_answers_are_not_read(tmp_path: Path) -> None:
    go, done = tmp_path / "go", tmp_path / "done"

    def held() -> str:
        appears(go)  # the test says when the work may finish
        # Whole or not at all: the test reads the file as soon as it appears.
        part = done.with_suffix(".part")
        part.write_text(str(os.getpid()))
        part.rename(done)
        return "late"

    staged = offload.start_staged(held, lambda first: first)
    try:
        staged.cancel()
        assert not done.exists()  # not waited for: the work cannot have finished, the test has not said go
    finally:
        go.touch()
    assert appears(done)
    worker = int(done.read_text())
    assert worker != PARENT  # it ran in a child, which finished on its own
    os.waitpid(worker, 0)  # and was left to be reaped


def test_a_child_left_to_finish_does_not_hold_the_hooks_output_open(tmp_path: Path) -> None:
    """Claude Code reads a hook's stdout until it closes: a cancelled child that still held it would
    keep Claude Code waiting for the child, after the hook had answered."""
    go, done = tmp_path / "go", tmp_path / "done"
    # The child's work ends only once the test says go, and that is after the hook's output has closed:
    # were the output still held, this run would wait for the child until the hang guard ended it.
    script = (
        "import os, sys, time; os.cpu_count = lambda: 2\n"
        "from pathlib import Path\n"
        "from tiergate import offload\n"
        "go, done = Path(sys.argv[1]), Path(sys.argv[2])\n"
        "def held():\n"
        "    deadline = time.monotonic() + 600\n"
        "    while not go.exists() and time.monotonic() < deadline:\n"
        "        time.sleep(0.01)\n"
        "    part = done.with_suffix('.part')\n"
        "    part.write_text(str(os.getpid()))\n"
        "    part.rename(done)\n"
        "staged = offload.start_staged(held, lambda first: first)\n"
        "staged.cancel()\n"
        "print('answered', os.getpid(), flush=True)\n"
    )
    try:
        ran = subprocess.run(
            [sys.executable, "-c", script, str(go), str(done)],
            capture_output=True,
            timeout=HANG_GUARD,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
        answered = re.fullmatch(rb"answered (\d+)\n", ran.stdout)
        assert answered is not None, ran.stdout
        assert not done.exists()  # stdout and stderr closed when the hook ended, not the child
    finally:
        go.touch()  # the child may finish
    assert appears(done)
    assert int(done.read_text()) != int(answered.group(1))  # the work ran in a child, not the hook


def test_a_system_that_refuses_a_process_gets_the_work_done_in_the_hook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """EAGAIN (too many processes) or ENOMEM at fork: a claim's Stop must still measure, in the hook."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    made: list[int] = []
    real_pipe = os.pipe

    def pipe() -> tuple[int, int]:
        ends = real_pipe()
        made.extend(ends)
        return ends

    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "pipe", pipe)
    monkeypatch.setattr(os, "fork", refused)
    staged = offload.start_staged(lambda: where("a"), second_step)
    assert staged.second() == ("a", PARENT, PARENT)  # both steps ran here, no child
    assert len(made) == 2
    for fd in made:  # the pipe was closed
        with pytest.raises(OSError, match="Bad file descriptor"):
            os.fstat(fd)


@pytest.mark.usefixtures("two_cpus")
def test_a_child_whose_set_up_fails_ends_there_and_the_hook_does_the_work(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    set_up = tmp_path / "set up"

    def broken() -> None:
        note(set_up)
        raise OSError("no /dev/null")

    monkeypatch.setattr(offload, "_detach_stdio", broken)
    pending = offload.start(where, "b")
    assert pending.result() == ("b", PARENT)  # the child sent nothing: it ended at its failure
    ran = ran_in(set_up)  # and there was a child: it began its set-up
    assert len(ran) == 1 and ran[0] != PARENT
