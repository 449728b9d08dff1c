# mypy: ignore-errors
"""A mutant's child of the zygote: the mutant put in, the tests that ran its line run until one fails;
one past its time is killed."""

import gc
import json
import os
import select
import signal
import time

from .folder import TREE, remove_created
from .swap import put

# The mutant's child running now: ended with the zygote (it may hold a copy of the check's output).
_CHILD = [0]


def ended(signum, frame):
    if _CHILD[0]:
        try:
            os.kill(_CHILD[0], signal.SIGKILL)
        except OSError:
            pass
    os._exit(0)


def read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def in_child(mutant, tests, deadline, keep, spare=False):
    """The mutant's fate, run in a child of the zygote; a child past its time is killed, and so is the
    mutant. `spare`: a sentinel's run, whose time is not cut short by the step's deadline."""
    limit = 2.0 + sum(max(0.2, 10 * seconds) for _, seconds in tests)
    limit = limit if spare else min(limit, max(0.0, deadline - time.monotonic()))
    unsure = TREE[0].put_back() if TREE[0] is not None else ""
    if unsure:
        return ["not_run", unsure, []]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            gc.disable()  # a child lives for one mutant: nothing to collect that its exit does not
            os.close(read)
            said = _child(mutant, tests)
            os.write(write, json.dumps(said).encode())
        finally:
            remove_created(keep)
            os._exit(0)
    os.close(write)
    _CHILD[0] = pid
    try:
        said = _wait(read, pid, limit)
    finally:
        _CHILD[0] = 0
        os.close(read)
        remove_created(keep)
    if said is not None:
        return [*said, [said[1]] if said[0] == "killed" else []]
    # Which of its tests it was running is not known: each of them must pass the copy that behaves the same.
    return ["killed", "%s (ended or ran out of time)" % tests[0][0].nodeid, [i.nodeid for i, _ in tests]]


def _wait(read, pid, limit):
    ready = select.select([read], [], [], limit)[0]
    data = read_all(read) if ready else b""
    if not data:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    os.waitpid(pid, 0)
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


def _child(mutant, tests):
    """In a child: the mutant put in, its tests run until one fails."""
    from _pytest.runner import runtestprotocol

    why = put(mutant)
    if why:
        return ["not_run", why]
    for index, (item, _) in enumerate(tests):
        nextitem = tests[index + 1][0] if index + 1 < len(tests) else None
        reports = runtestprotocol(item, log=False, nextitem=nextitem)
        if any(report.failed for report in reports):
            return ["killed", item.nodeid]
    return ["survived", ""]
