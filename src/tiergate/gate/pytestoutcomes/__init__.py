# mypy: ignore-errors
"""tiergate: each test's outcome in this pytest run, written as JSON for the gate and streamed to its socket
as it happens (under xdist, from each worker too); and, when the gate asks, only the tests it selected run.
This package is copied as `tiergate_outcomes` onto PYTHONPATH and named in PYTEST_PLUGINS
(`tiergate.gate.testreports`); never imported by tiergate itself. Every hook is guarded; it only reads and
writes its own files and talks to the gate's socket, on Python 3.8+ and pytest 3.6+. See docs/judging.md.
"""

import os

import pytest

from .patched import _PLUGINS_AT_START, _RUNNER_AT_START, _plugin_names, _runner_now
from .recorder import _TIE, _Recorder, _xdist
from .selection import _ONLY, _selection
from .stream import _Stream, _stream

_OUT = "TIERGATE_TESTS_OUT"
_TAKEN = "TIERGATE_TESTS_TAKEN"
# The classes the look at the runner names as this package's own (`patched._RUNNER`).
__all__ = ["_Recorder", "_Stream"]


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    # Once every plugin has configured (xdist's session, say), before any test module is imported.
    try:
        if _PLUGINS_AT_START:
            manager = _PLUGINS_AT_START[0][0]
            _PLUGINS_AT_START[0] = (manager, _plugin_names(manager))
    except Exception:
        pass


def pytest_configure(config):
    try:
        inputs = _xdist(config, "input")
        if inputs is not None:
            _worker(config, inputs)
            return
        folder = os.environ.get(_OUT)
        if not (folder or os.environ.get(_ONLY)) or os.environ.get(_TAKEN):
            return
        # The processes this run starts (xdist's workers, a test running pytest) inherit this.
        os.environ[_TAKEN] = "1"
        _PLUGINS_AT_START.append((config.pluginmanager, None))
        recorder = None
        if folder:
            name = "pytest-%d-%s.json" % (os.getpid(), os.urandom(4).hex())
            path = os.path.join(folder, name)
            # Connected before any test module is collected (the conftest files pytest reads first are
            # imported already), and before the report file is there.
            recorder = _Recorder(path, _stream(path))
            recorder.write(False)
            config.pluginmanager.register(recorder, "tiergate_outcomes_recorder")
        _select(config, recorder)
    except Exception:
        pass


def _worker(config, inputs):
    """In an xdist worker of a recorded run, where the tests and the code under test run: the same look at
    the runner as in a plain run (its parts taken as this plugin was imported here, before any conftest,
    test module or code under test), the raw outcomes guarded, and all of it streamed on a connection of
    its own, tied to its controller's report. A worker of a run that is not recorded (a pytest the tests
    start, with workers of its own) was given no tie: it records nothing. No selection here: under xdist
    the run is a whole one."""
    tie = inputs.get(_TIE)
    if not tie:
        return
    report, name = tie
    output = _xdist(config, "output")
    # A pytest the tests start from here is not the check's run.
    os.environ[_TAKEN] = "1"
    _PLUGINS_AT_START.append((config.pluginmanager, None))
    recorder = _Recorder(None, _stream(str(report), str(name)), output if output is not None else {})
    config.pluginmanager.register(recorder, "tiergate_outcomes_recorder")


def _select(config, recorder):
    try:
        selection = _selection(config, recorder)
        if selection is not None:
            config.pluginmanager.register(selection, "tiergate_outcomes_selection")
    except Exception:
        pass


# Taken last, once this plugin's own recorder is defined.
_RUNNER_AT_START.update(_runner_now())
