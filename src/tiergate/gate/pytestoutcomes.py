# mypy: ignore-errors
# ruff: noqa: PTH105, PTH112, PTH118, PTH119, PTH123, UP031, SIM105
"""tiergate: each test's outcome in this pytest run, written as JSON for the gate (written for one run),
and streamed to the gate's socket as it happens where the gate gives one (under xdist, from each worker
too, where the tests run); and, when the gate asks, only the tests it selected run (the rest deselected,
their modules not imported).

Copied as `tiergate_outcomes.py` onto PYTHONPATH and named in PYTEST_PLUGINS (`tiergate.gate.testreports`);
never imported by tiergate itself. Every hook is guarded and it only reads and writes its own files and
talks to the gate's socket, on any Python 3.8 or later and pytest 3.6 or later. See docs/judging.md,
"Each test's outcome".
"""

import json
import os
import sys

import pytest

_OUT = "TIERGATE_TESTS_OUT"
_ONLY = "TIERGATE_TESTS_ONLY"
_TAKEN = "TIERGATE_TESTS_TAKEN"
# What a recorded run's controller gives each of its xdist workers (in the worker's input, which only its
# own workers get: never a worker of a pytest the tests start), and what each worker gives it back as it
# finishes: the worker's outcomes and the runner's parts it found replaced.
_TIE = "tiergate_outcomes"
# The gate's socket (`tiergate.gate.imported`), and the check this run is for.
_WATCH = "TIERGATE_IMPORTED"
_WATCH_KEY = "TIERGATE_IMPORTED_KEY"
# How long the plugin waits on the gate's socket, to connect, for its answer, to send: never forever (a
# gate that does not answer must not hold the tests up); its stream then ends there, which the gate sees.
_WAIT = 10.0
# Never left out of collection: they hold fixtures, hooks and package set-up, never tests of their own.
_ALWAYS_COLLECTED = ("conftest.py", "__init__.py")
# What decides a test's outcome inside pytest: replaced while the tests run (the code under test can, at
# its import), the outcomes reported are not the tests'. Taken as this plugin is imported: after the
# environment's plugins, before any conftest, test module or code under test.
_RUNNER = (
    ("_pytest.python", "Function", "runtest"),
    ("_pytest.python", "pytest_pyfunc_call", None),
    ("_pytest.runner", "call_and_report", None),
    ("_pytest.runner", "call_runtest_hook", None),
    ("_pytest.runner", "runtestprotocol", None),
    ("_pytest.runner", "pytest_runtest_call", None),
    ("_pytest.runner", "pytest_runtest_makereport", None),
    ("_pytest.runner", "CallInfo", "from_call"),
    ("_pytest.reports", "TestReport", "from_item_and_call"),
    ("_pytest.main", "pytest_runtestloop", None),
    ("_pytest.python_api", "raises", None),
    ("_pytest.raises", "raises", None),
    ("_pytest.python_api", "approx", None),
    ("_pytest.outcomes", "skip", None),
    ("_pytest.outcomes", "fail", None),
    ("_pytest.outcomes", "xfail", None),
    ("_pytest.outcomes", "exit", None),
    ("pytest", "raises", None),
    ("pytest", "approx", None),
    ("builtins", "AssertionError", None),
    # How every hook is called, pytest's and this plugin's: a replacement could drop a failure on its way.
    ("pluggy._callers", "_multicall", None),
    ("pluggy._hooks", "HookCaller", "__call__"),
    ("pluggy._manager", "PluginManager", "_hookexec"),
    # This plugin's own recording, and its stream to the gate.
    ("tiergate_outcomes", "_Stream", "line"),
    ("tiergate_outcomes", "_Stream", "outcome"),
    ("tiergate_outcomes", "_Stream", "patched"),
    ("tiergate_outcomes", "_Stream", "end"),
    ("tiergate_outcomes", "_Stream", "worker"),
    ("tiergate_outcomes", "_Stream", "down"),
    ("tiergate_outcomes", "_Stream", "crashed"),
    ("tiergate_outcomes", "_Recorder", "write"),
    ("tiergate_outcomes", "_Recorder", "set"),
    ("tiergate_outcomes", "_Recorder", "check_runner"),
    ("tiergate_outcomes", "_Recorder", "pytest_runtest_logreport"),
    ("tiergate_outcomes", "_Recorder", "pytest_runtest_makereport"),
    ("tiergate_outcomes", "_Recorder", "pytest_sessionfinish"),
    ("tiergate_outcomes", "_Recorder", "pytest_configure_node"),
    ("tiergate_outcomes", "_Recorder", "pytest_testnodedown"),
    ("tiergate_outcomes", "_Recorder", "pytest_handlecrashitem"),
)


# Each part with the name the report gives it, joined once: the parts are looked at after every test.
_RUNNER_NAMED = tuple((m, n, a, ".".join(p for p in (m, n, a) if p)) for m, n, a in _RUNNER)


def _runner_now(runner=_RUNNER_NAMED, modules=sys.modules):
    """Each part as it is: the object, and its code (a function changed in place keeps its identity).
    What it looks at is bound as this plugin is imported: rebinding a name of this module later does not
    change where it looks."""
    parts = {}
    for module, name, attribute, named in runner:
        try:
            part = getattr(modules.get(module), name, None)
            if attribute is not None and part is not None:
                part = part.__dict__.get(attribute)
            parts[named] = None if part is None else (part, getattr(part, "__code__", None))
        except Exception:
            pass
    return parts


# The plugins pytest had as the session started, by what they are: one registered later by the code under
# test (answering a hook first, say) is not the project's set-up.
_PLUGINS_AT_START = []


def _plugin_names(manager):
    found = set()
    for plugin in manager.get_plugins():
        if isinstance(plugin, type(os)):
            if os.path.basename(getattr(plugin, "__file__", "") or "") != "conftest.py":
                found.add("plugin module " + plugin.__name__)
        else:
            kind = type(plugin)
            if not kind.__module__.startswith(("_pytest", "pluggy", "tiergate_outcomes")):
                found.add("plugin " + kind.__module__ + "." + kind.__qualname__)
    return found


class _Stream:
    """Each outcome sent to the gate's socket as the recorder sets it, the runner's parts found replaced as
    each test ends, and an end mark as the session finishes: once sent, out of this process's reach (the
    report file it writes at the end is not). Everything it calls was bound as it connected (`_stream`):
    code under test that later replaces `socket`'s or `json`'s functions does not reach it."""

    def __init__(self, conn, send, quote):
        self.conn = conn  # held: the connection lives as long as the process
        self.send = send
        self.quote = quote
        self.named = set()  # the runner's parts already named

    def line(self, text):
        send = self.send
        if send is None:
            return
        try:
            send(text.encode())
        except Exception:
            self.send = None  # the gate gone, or too slow: the stream ends here, and the gate sees it did

    def outcome(self, nodeid, outcome):
        quote = self.quote
        self.line('{"o": [%s, %s]}\n' % (quote(nodeid), quote(outcome)))

    def patched(self, names):
        fresh = [n for n in names if n not in self.named]
        if fresh:
            self.named.update(fresh)
            self.line('{"p": [%s]}\n' % ", ".join(self.quote(n) for n in fresh))

    def end(self):
        self.line('{"end": true}\n')

    def worker(self, name):
        """An xdist worker this run started: the gate then waits for its own stream."""
        self.line('{"w": %s}\n' % self.quote(name))

    def down(self, name, crashed):
        """An xdist worker of this run gone down: as it finished, or crashed (its stream then has no end
        mark, which the gate accepts only for a worker named here as crashed)."""
        self.line('{"d": [%s, %s]}\n' % (self.quote(name), self.quote("crashed" if crashed else "done")))

    def crashed(self, name, nodeid):
        """The test an xdist worker of this run was running as it crashed: failed, whatever else says."""
        self.line('{"c": [%s, %s]}\n' % (self.quote(name), self.quote(nodeid)))


def _stream(report, worker=None):
    """The stream of this run's outcomes for its report at `report`, connected to the gate's socket; None
    when the gate gave none (the report alone then, as the gate reads it without one) or it cannot be
    reached. The gate answers once it has heard of the report, before the file is there. `worker`: the
    xdist worker this process is, of the run whose report that is (it writes no report of its own)."""
    where = os.environ.get(_WATCH)
    if not where:
        return None
    import socket
    from json.encoder import encode_basestring_ascii as quote

    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(_WAIT)
        conn.connect("\0" + where[1:] if where.startswith("@") else where)
        send = conn.sendall
        key = os.environ.get(_WATCH_KEY, "")
        which = "" if worker is None else ', "worker": %s' % quote(worker)
        send(('{"key": %s}\n{"report": %s%s}\n' % (quote(key), quote(report), which)).encode())
        if conn.recv(16) != b"heard\n":
            raise OSError("the gate did not answer")
    except Exception:
        conn.close()
        return None
    return _Stream(conn, send, quote)


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


class _Selection:
    """The gate's selection (`TIERGATE_TESTS_ONLY`: a JSON file of absolute test file paths and node ids):
    other test files are left out of collection, and the other tests collected are deselected."""

    def __init__(self, files, tests, root, recorder, reverse=False):
        self.tests = set(tests)
        self.reverse = reverse
        self.whole = _paths(files)  # every test of these runs
        # A selected test's file is collected too; its node id names it relative to the rootdir.
        self.collected = self.whole | _paths(os.path.join(root, test.split("::")[0]) for test in tests)
        self.recorder = recorder

    def ignored(self, path):
        """Whether collection leaves out `path`: a file that is not selected (None: let pytest decide)."""
        name = os.path.basename(path)
        if name in _ALWAYS_COLLECTED or os.path.isdir(path) or _among(path, self.collected):
            return None
        return True

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        try:
            kept, left = [], []
            for item in items:
                selected = item.nodeid in self.tests or _among(_item_path(item), self.whole)
                (kept if selected else left).append(item)
            if self.reverse:
                kept.reverse()
            if left or self.reverse:
                items[:] = kept
            if left:
                config.hook.pytest_deselected(items=left)
            if self.recorder is not None:
                # Said only once a collection went through it: under xdist the controller collects
                # nothing (its workers do, without the selection) and the run is a whole one.
                self.recorder.only = True
        except Exception:
            pass


# pluggy refuses a plugin whose hook takes an argument the running pytest's hookspec does not have, and
# pytest stops: pytest 7 and later give `collection_path` (the latest give nothing else), earlier ones only
# `path`. The one the running pytest gives is chosen (`_argnames`).
class _SelectionByCollectionPath(_Selection):
    def pytest_ignore_collect(self, collection_path, config):
        try:
            return self.ignored(str(collection_path))
        except Exception:
            return None


class _SelectionByPath(_Selection):
    def pytest_ignore_collect(self, path, config):
        try:
            return self.ignored(str(path))
        except Exception:
            return None


def _paths(paths):
    """`paths` as given and as resolved: pytest may name a file through a link, or the gate may."""
    found = set()
    for path in paths:
        found.add(path)
        found.add(os.path.realpath(path))
    return found


def _among(path, paths):
    return path in paths or os.path.realpath(path) in paths


def _item_path(item):
    path = getattr(item, "path", None)  # pytest 7 and later
    return str(path if path is not None else item.fspath)


def _selection(config, recorder):
    """The selection the gate asked for, as a plugin to register; None when it asked for none or its
    file cannot be read (the whole run then, as asked by the command)."""
    name = os.environ.get(_ONLY)
    if not name:
        return None
    with open(name) as f:
        data = json.load(f)
    files = [str(path) for path in data["files"]]
    tests = [str(test) for test in data["tests"]]
    root = str(getattr(config, "rootpath", None) or config.rootdir)
    argnames = _argnames(config.hook.pytest_ignore_collect)
    kind = _SelectionByCollectionPath if "collection_path" in argnames else _SelectionByPath
    return kind(files, tests, root, recorder, bool(data.get("reverse")))


def _argnames(caller):
    """The argument names the hook's specification gives (`path` alone when it cannot be told): on its
    `spec` in recent pluggy, on the hook caller itself in older ones (pytest 3.6's pluggy 0.7)."""
    spec = getattr(caller, "spec", None)
    names = getattr(spec, "argnames", None) if spec is not None else getattr(caller, "argnames", None)
    return tuple(names or ("path",))


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


def _same(now, was):
    return now is not None and now[0] is was[0] and now[1] is was[1]


# The runner's parts as this plugin was imported (filled as the module ends, once its recorder is defined).
_RUNNER_AT_START = {}
# The plugins last looked at, and the names of those among them registered since the session began: the
# names are made again only when the plugins change (a conftest module as it is collected), not after each
# test.
_PLUGINS_SEEN = [None, []]


def _patched(now=_runner_now, same=_same, at_start=_RUNNER_AT_START, plugins=_PLUGINS_AT_START):
    """The parts of the runner not what they were when this plugin was imported. Asked after every test:
    a lookup of each part, the plugins' names only when the plugins changed."""
    try:
        parts = now()
        found = [n for n, was in at_start.items() if was is not None and not same(parts.get(n), was)]
        if plugins and plugins[0][1] is not None:
            manager, before = plugins[0]
            registered = manager.get_plugins()
            if registered != _PLUGINS_SEEN[0]:
                _PLUGINS_SEEN[:] = [registered, sorted(_plugin_names(manager) - before)]
            found += _PLUGINS_SEEN[1]
        return sorted(found)
    except Exception:
        return []


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
