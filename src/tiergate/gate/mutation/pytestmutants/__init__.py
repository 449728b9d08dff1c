# mypy: ignore-errors
"""tiergate: the claim's mutants, run by this pytest process's tests once its own run is over (written for
one run). This package is copied onto PYTHONPATH under a name of its run's own and named in PYTEST_PLUGINS
(`tiergate.gate.mutation.step`); never imported by tiergate itself. Only when TIERGATE_MUTANTS names a
plan, and only after a run where every test passed. Stdlib and pytest only, Python 3.8+, pytest 6.2+,
where `os.fork` is. See docs/judging.md, "Mutants of the changed lines".
"""

import json
import os
import sys
import time

import pytest

from .folder import CREATED, TIERGATE_VARIABLES, note_created
from .runs import write
from .zygote import Zygote

_PLAN = "TIERGATE_MUTANTS"
_KEY = "TIERGATE_MUTANTS_KEY"
_TIE = "tiergate_mutants_key"  # how an xdist controller hands the key to its workers
_MARGIN = 5.0  # seconds kept free at the end of the check's own limit
# The key, out of the environment as this plugin is imported (PYTEST_PLUGINS: before pytest imports any
# conftest), not in pytest_configure, which runs after the root conftest (red team 36: it read the key).
# Taken by the first session configured only: a pytest the tests run in this process is not the check's.
_TAKEN_KEY = [os.environ.pop(_KEY, None)]


def pytest_configure(config):
    path = os.environ.get(_PLAN)
    taken = _TAKEN_KEY.pop() if _TAKEN_KEY else None
    key = taken or getattr(config, "workerinput", {}).get(_TIE)
    # A run of some tests only (the gate's first pass over what the change affects) runs no mutant.
    if not path or not key or os.environ.get("TIERGATE_TESTS_ONLY"):
        return
    try:
        with open(path) as f:
            plan = json.load(f)
        # Under pytest-xdist each worker runs the mutants with the tests it ran, in a report of its own.
        worker = getattr(config, "workerinput", {}).get("workerid")
        if worker:
            plan["out"] = "%s.%s" % (plan["out"], worker)
        config.pluginmanager.register(_Mutation(plan, key), "tiergate_mutants_run")
        sys.addaudithook(note_created)
    except Exception:
        pass


class _Probes:
    """The gate's line probes (its sitecustomize): which lines of the change's files each test ran."""

    def __init__(self, files):
        site = sys.modules.get("sitecustomize")
        probed = getattr(site, "_tiergate_probed", None)
        self.probed = {} if probed is None else probed
        self.on_load = getattr(site, "_tiergate_on_load", [])
        self.files = set(files)
        self.union = {}

    def take(self):
        """The lines run since the last call, by file; the probes' own record keeps them all."""
        taken = {}
        for path, (_, ran) in list(self.probed.items()):
            if path in self.files and ran:
                taken[path] = sorted(ran)
                self.union.setdefault(path, set()).update(ran)
                ran.clear()
        return taken

    def put_back(self):
        for path, lines in self.union.items():
            self.probed[path][1].update(dict.fromkeys(lines, 1))
        self.union = {}

    def statements(self):
        """Each file's statement lines, as its probes know them."""
        return {path: sorted(lines) for path, (lines, _) in self.probed.items() if path in self.files}


class _Mutation:
    def __init__(self, plan, key):
        self.plan, self.key = plan, key
        self.probes = _Probes(plan["files"])
        self.covering = []  # [nodeid, lines run by file, seconds]
        self.collected = {}  # lines run by file as the tests were collected
        self.failed = False
        self.started = None
        self.zygote = None
        self.born = time.monotonic()

    @pytest.hookimpl(optionalhook=True)  # xdist's, unknown without it
    def pytest_configure_node(self, node):
        node.workerinput[_TIE] = self.key  # an xdist worker gets the key its controller took

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtestloop(self, session):
        controller = session.config.pluginmanager.has_plugin("dsession")
        # What ran as the tests were collected (imports, parametrize tables, conftest): not any test's.
        self.collected = self.probes.take()
        if not controller and session.items and hasattr(os, "fork"):
            self.zygote = Zygote.start(session, self)
        yield

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        # Lines a test's set-up runs count as its own: its outcome rests on them too.
        self.probes.take()
        self.started = (item.nodeid, time.monotonic())

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logfinish(self, nodeid, location):
        if self.started is not None and self.started[0] == nodeid:
            self.covering.append([nodeid, self.probes.take(), time.monotonic() - self.started[1]])
        self.started = None

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.failed = True

    def pytest_sessionfinish(self, session):
        self.session = session
        self.probes.take()
        self.probes.put_back()  # before the probes' own report, written at exit

    def pytest_unconfigure(self, config):
        if self.zygote is None:
            return
        session = getattr(self, "session", None)
        if self.failed or session is None or session.exitstatus != 0:
            self.zygote.stop()
            write(self.plan["out"], {"key": self.key, "off": "the tests did not all pass"})
            return
        spent = time.monotonic() - self.born
        # Within the plan's seconds, and what the run left of the check's limit (as the gate started it,
        # the mutants' own time in it).
        limit = float(TIERGATE_VARIABLES.get("TIERGATE_CHECK_LIMIT") or 0) or float("inf")
        seconds = min(float(self.plan["seconds"]), limit - spent - _MARGIN)
        told = {"tests": self.covering, "statements": self.probes.statements(), "seconds": seconds}
        told["collected"] = self.collected
        self.zygote.go({**told, "created": sorted(CREATED)})
