# mypy: ignore-errors
"""The zygote: the process as collection left it, forked before any test ran; it forks the mutants'
children once it is told which tests ran which changed lines."""

# Once collection is over, before any test runs, the process forks a zygote that waits. When the run has
# passed, the zygote is told which tests ran which changed lines, and forks a child per mutant: the child
# puts the mutant's code in (`swap`), runs the tests that ran its line until one fails (killed) or none does
# (survived), and says so. So every mutant starts from the process as the tests first found it (no memo, no
# state a test kept from the run, no fixture), and one that hangs, even in C, or ends the process, ends only
# its child: the zygote kills a child past its time. Then each mutated function gets a copy of its code that
# behaves the same, run the same way with the tests that killed its mutants: a test that fails on it fails
# on any change, and its kills say nothing. The zygote writes the fates, with the plan's key (given through
# the environment and taken out of it before any test or conftest runs), to the plan's `out`; the run's own
# reports and outcomes are written by then, and nothing here changes them or the exit status.

import json
import os
import signal
import time

from .children import ended, read_all
from .folder import CREATED, TREE, own, remove_created, snapshot
from .runs import Runner
from .swap import know


class Zygote:
    """The process as collection left it, forked before any test ran: it forks the mutants' children."""

    def __init__(self, pid, pipe):
        self.pid, self.pipe = pid, pipe

    @classmethod
    def start(cls, session, mutation):
        # Files made as the tests were collected are theirs as they first found them: only what the run
        # (and each mutant's child) makes from here on is taken away.
        CREATED.clear()
        TREE[0] = snapshot(os.getcwd(), own(mutation.plan))
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(write)
                _zygote(session, mutation, read)
            finally:
                os._exit(0)
        os.close(read)
        return cls(pid, write)

    def stop(self):
        self._send({"stop": True})
        self._reap(0.0)

    def go(self, told):
        self._send(told)
        self._reap(max(0.0, told["seconds"]) + 2.0)

    def _send(self, message):
        try:
            data = json.dumps(message).encode()
            while data:
                data = data[os.write(self.pipe, data) :]
        except OSError:
            pass
        finally:
            os.close(self.pipe)

    def _reap(self, seconds):
        """Wait for the zygote at most `seconds`, then end it, and the child it runs (which may hold a
        copy of the check's output: the check would not end before it): what it wrote by then stands."""
        if self._waited(seconds):
            return
        for ending in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(self.pid, ending)
            except OSError:
                return
            if self._waited(1.0):
                return

    def _waited(self, seconds):
        deadline = time.monotonic() + seconds
        while True:
            try:
                if os.waitpid(self.pid, os.WNOHANG)[0]:
                    return True
            except OSError:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)


def _zygote(session, mutation, pipe):
    """The zygote's life: quiet, cut off from the run's reports, it waits to be told, then runs mutants."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    manager = session.config.pluginmanager
    for name in ("tiergate_outcomes_recorder", "tiergate_mutants_run"):
        plugin = manager.get_plugin(name)
        if plugin is not None:
            manager.unregister(plugin)
    told = json.loads(read_all(pipe) or b"{}")
    if told.get("stop") or "tests" not in told:
        return
    signal.signal(signal.SIGTERM, ended)
    CREATED.clear()
    CREATED.update(told["created"])
    remove_created(own(mutation.plan))
    runner = Runner(mutation, session, told)
    try:
        know(set(mutation.plan["files"]))
        runner.run()
    except BaseException as exc:
        runner.incomplete = runner.incomplete or "the mutation step failed (%s)" % type(exc).__name__
    finally:
        runner.write()
