# mypy: ignore-errors
# ruff: noqa: PTH105, PTH118, PTH123, UP031, SIM105
"""tiergate: each test's outcome in this pytest run, written as JSON for the gate (written for one run).

Copied as `tiergate_outcomes.py` onto PYTHONPATH and named in PYTEST_PLUGINS (`tiergate.gate.testreports`);
never imported by tiergate itself. Every hook is guarded and it only reads and writes its own file, on
any Python 3.8 or later and pytest 3.6 or later. See docs/judging.md, "Each test's outcome".
"""

import json
import os

import pytest

_OUT = "TIERGATE_TESTS_OUT"
_TAKEN = "TIERGATE_TESTS_TAKEN"


class _Recorder:
    def __init__(self, path):
        self.path = path
        self.outcomes = {}  # node id -> outcome, in the order met
        self.raw = {}  # (node id, phase) -> the outcome the runner made, before any rewriting

    def set(self, nodeid, outcome):
        if outcome is not None and self.outcomes.get(nodeid) not in ("failed", "error"):
            self.outcomes[nodeid] = outcome

    def write(self, finished):
        record = {"tool": "pytest", "finished": finished, "outcomes": list(self.outcomes.items())}
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
        except Exception:
            pass

    def pytest_collectreport(self, report):
        try:
            if report.failed:
                self.set(report.nodeid or "<collection>", "error")
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
            self.write(True)
        except Exception:
            pass


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


def pytest_configure(config):
    try:
        folder = os.environ.get(_OUT)
        if not folder or os.environ.get(_TAKEN) or hasattr(config, "workerinput"):
            return
        # The processes this run starts (xdist's workers, a test running pytest) inherit this.
        os.environ[_TAKEN] = "1"
        name = "pytest-%d-%s.json" % (os.getpid(), os.urandom(4).hex())
        recorder = _Recorder(os.path.join(folder, name))
        recorder.write(False)
        config.pluginmanager.register(recorder, "tiergate_outcomes_recorder")
    except Exception:
        pass
