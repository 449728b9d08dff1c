# mypy: ignore-errors
"""The recorder: each test's outcome as the run sets it, the raw outcome the runner made, the report file
written at the end, and, under xdist, what each worker gives its controller."""

import json
import os

import pytest

from .patched import _patched

# What a recorded run's controller gives each of its xdist workers (in the worker's input, which only its
# own workers get: never a worker of a pytest the tests start), and what each worker gives it back as it
# finishes: the worker's outcomes and the runner's parts it found replaced.
_TIE = "tiergate_outcomes"


class _Recorder:
    def __init__(self, path, stream=None, output=None):
        self.path = path
        self.stream = stream
        # An xdist worker's: what it gives its controller as it finishes (its `workeroutput`), in place
        # of a report file of its own.
        self.output = output
        self.outcomes = {}  # node id -> outcome, in the order met
        self.raw = {}  # (node id, phase) -> the outcome the runner made, before any rewriting
        self.only = False  # the run was limited to the gate's selection
        self.workers = []  # the xdist workers this run started, by name
        self.workers_patched = set()  # the runner's parts its workers found replaced

    def set(self, nodeid, outcome):
        was = self.outcomes.get(nodeid)
        if outcome is not None and was not in ("failed", "error"):
            self.outcomes[nodeid] = outcome
            # Streamed as it changes: the gate replays the lines by this same rule.
            if outcome != was and self.stream is not None:
                self.stream.outcome(nodeid, outcome)

    def check_runner(self):
        """The runner's parts replaced by now, streamed: one put back before the session ends was still
        replaced while a test ran."""
        if self.stream is not None:
            self.stream.patched(_patched())

    def write(self, finished):
        record = {"tool": "pytest", "finished": finished, "outcomes": list(self.outcomes.items())}
        if self.only:
            record["only"] = True
        if self.workers:
            record["workers"] = self.workers
        patched = sorted(set(_patched()) | self.workers_patched)
        if patched:
            record["patched"] = patched
        temporary = self.path + ".part"
        with open(temporary, "w") as f:
            f.write(json.dumps(record))
        os.replace(temporary, self.path)

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_makereport(self, item, call):
        made = yield
        try:
            self.raw[(item.nodeid, call.when)] = _raw(made.get_result(), call)
        except Exception:
            pass

    def pytest_runtest_logreport(self, report):
        try:
            outcome = _phase(report)
            raw = self.raw.pop((report.nodeid, report.when), None)
            # A phase the runner made failing and a later hook turned into a pass: rewritten. (Other
            # changes are the runner's own plugins at work: xfail turns a failure into an xfailed.)
            if raw in ("failed", "error") and outcome in (None, "passed", "xpassed"):
                outcome = raw
            self.set(report.nodeid, outcome)
            if report.when == "teardown":
                self.check_runner()  # as each test ends
        except Exception:
            pass

    def pytest_collectreport(self, report):
        try:
            if report.failed:
                self.set(report.nodeid or "<collection>", "error")
            self.check_runner()  # as each module is imported: what its import replaced, before any test
        except Exception:
            pass

    def pytest_deselected(self, items):
        try:
            for item in items:
                self.set(item.nodeid, "deselected")
        except Exception:
            pass

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        try:
            if self.stream is not None:
                self.check_runner()
                self.stream.end()
        except Exception:
            pass
        try:
            if self.output is None:
                self.write(True)
            else:
                # Read by the controller as this worker goes down, before its own session finishes: at
                # the base too, where no stream tells the gate what the workers saw.
                self.output[_TIE] = {"outcomes": list(self.outcomes.items()), "patched": _patched()}
        except Exception:
            pass

    # xdist's hooks, called only in a controller that starts workers (optional: without xdist pytest
    # knows no such hook).
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node):
        # As each worker is set up, before it starts: what it is given reaches it alone.
        try:
            name = str(node.gateway.id)
            _xdist(node, "input")[_TIE] = [self.path, name]
            self.workers.append(name)
            if self.stream is not None:
                self.stream.worker(name)
        except Exception:
            pass

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        # How the worker went down, told the gate first: `error` set is a crash (the worker's process
        # ended with its session unfinished: a segfault, `os._exit` in a test), whose stream never ends.
        try:
            if self.stream is not None:
                self.stream.down(str(node.gateway.id), error is not None)
        except Exception:
            pass
        # What the worker saw, with the raw outcome guarded there (a phase the runner made failing and
        # a later hook of the worker's made a pass): a failure it had is never taken back here.
        try:
            said = (_xdist(node, "output") or {}).get(_TIE)
            if not said:
                return  # a worker that died says nothing: the outcomes it relayed stand alone
            for nodeid, outcome in said["outcomes"]:
                self.set(str(nodeid), str(outcome))
            self.workers_patched.update(str(p) for p in said["patched"])
            if self.stream is not None:
                self.stream.patched(sorted(self.workers_patched))
        except Exception:
            pass

    # xdist 2.2.1 and later, as a crashed worker's test is reported: a wrapper, so that it runs whatever
    # answers the hook first (a plugin may make the report a rerun, or a pass). The test is failed here as
    # xdist made it, before anything can change its report, and told the gate as the crash's.
    @pytest.hookimpl(hookwrapper=True, optionalhook=True)
    def pytest_handlecrashitem(self, crashitem, report):
        try:
            self.set(str(crashitem), "failed")
            if self.stream is not None:
                self.stream.crashed(str(report.node.gateway.id), str(crashitem))
        except Exception:
            pass
        yield


def _xdist(holder, kind):
    """What xdist gives a worker (`kind` "input") or it gives back ("output"), on its controller's node or
    on a worker's config: xdist before 2.0 said `slave` (None: not xdist's)."""
    found = getattr(holder, "worker" + kind, None)
    return found if found is not None else getattr(holder, "slave" + kind, None)


def _raw(report, call):
    outcome = _phase(report)
    excinfo = getattr(call, "excinfo", None)
    if excinfo is None or outcome != "passed" or hasattr(report, "wasxfail"):
        return outcome
    skip = getattr(pytest.skip, "Exception", ())
    if excinfo.errisinstance(skip):
        return outcome
    return "error" if call.when != "call" else "failed"


def _phase(report):
    """The outcome a phase's report gives its test (None: it says nothing more than the others)."""
    xfail = hasattr(report, "wasxfail")
    said = report.outcome
    if report.when == "call":
        if said == "passed":
            return "xpassed" if xfail else "passed"
        if said == "failed":
            return "failed"
        return ("xfailed" if xfail else "skipped") if said == "skipped" else None
    if said == "failed":
        return "error"
    if said == "skipped" and report.when == "setup":
        return "xfailed" if xfail else "skipped"
    return None
