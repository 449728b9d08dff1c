# mypy: ignore-errors
# ruff: noqa: PTH105, PTH123, UP031, SIM105
"""tiergate: the claim's mutants, run in this pytest process once its own run is over (written for one run).

Copied as `tiergate_mutants.py` onto PYTHONPATH and named in PYTEST_PLUGINS (`tiergate.gate.mutation.step`),
beside the gate's sitecustomize, whose line probes say which tests ran which changed lines; never imported
by tiergate itself. Only when TIERGATE_MUTANTS names a plan, and only after a run where every test passed:
its reports and outcomes are written by then, and nothing here changes them or the exit status.

Each mutant's code is put in the process (a function's code object swapped, or a top-level assignment run
again in its module), the tests that ran its line run again until one fails (killed) or none does
(survived), and the code is put back. Then each function mutated gets a copy of its code that behaves the
same, run with the tests that killed its mutants: a test that fails on it fails on any change, and its
kills say nothing. The fates are written as JSON to the plan's `out`. Stdlib and pytest only, on any
Python 3.8 or later and pytest 6.2 or later. See docs/judging.md, "Mutants of the changed lines".
"""

import gc
import json
import os
import random
import signal
import sys
import threading
import time

import pytest

_PLAN = "TIERGATE_MUTANTS"
_NEW_LOCALS = 0x2  # CO_NEWLOCALS: a function's code, not a class body's


class _Late(BaseException):
    """A test run past its time with a mutant in: killed (a BaseException, so that `except Exception` in
    the code under test does not swallow it)."""


def pytest_configure(config):
    path = os.environ.get(_PLAN)
    if not path:
        return
    try:
        with open(path) as f:
            plan = json.load(f)
        # Under pytest-xdist each worker runs the mutants with the tests it ran, in a report of its own.
        worker = getattr(config, "workerinput", {}).get("workerid")
        if worker:
            plan["out"] = "%s.%s" % (plan["out"], worker)
        config.pluginmanager.register(_Mutation(plan, config), "tiergate_mutants_run")
    except Exception:
        pass


class _Probes:
    """The gate's line probes (its sitecustomize): which lines of the change's files each test ran."""

    def __init__(self, files):
        site = sys.modules.get("sitecustomize")
        probed = getattr(site, "_tiergate_probed", None)
        self.probed = {} if probed is None else probed
        self.loaded = getattr(site, "_tiergate_loaded", [])
        self.on_load = getattr(site, "_tiergate_on_load", [])
        self.files = set(files)
        self.union = {}

    def take(self):
        """The lines run since the last call, by file; the probes' own record keeps them all."""
        taken = {}
        for path, (_, ran) in list(self.probed.items()):
            if path in self.files and ran:
                taken[path] = frozenset(ran)
                self.union.setdefault(path, set()).update(ran)
                ran.clear()
        return taken

    def put_back(self):
        for path, lines in self.union.items():
            self.probed[path][1].update(dict.fromkeys(lines, 1))
        self.union = {}

    def statement(self, path, line):
        """The probe line of the statement holding `line`: the nearest one at or above it."""
        lines = self.probed.get(path, ((), None))[0]
        above = [n for n in lines if n <= line]
        return max(above) if above else line


class _Mutation:
    def __init__(self, plan, config):
        self.plan, self.config = plan, config
        self.probes = _Probes(plan["files"])
        self.covering = []  # (item, lines run by file, seconds)
        self.failed = False
        self.started = None
        # The changed modules' own state as each one's import ended (the probes' loader tells).
        self.state = _State(self.probes.loaded, self.probes.on_load)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        # Lines a test's set-up runs count as its own: its outcome rests on them too.
        self.probes.take()
        self.started = (item, time.monotonic())

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logfinish(self, nodeid, location):
        if self.started is None:
            return
        item, started = self.started
        self.started = None
        if item.nodeid == nodeid:
            self.covering.append((item, self.probes.take(), time.monotonic() - started))

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.failed = True

    def pytest_sessionfinish(self, session):
        self.session = session
        self.probes.take()
        self.probes.put_back()  # before the probes' own report, written at exit

    def pytest_unconfigure(self, config):
        session = getattr(self, "session", None)
        if session is None or config.pluginmanager.has_plugin("dsession"):
            return  # xdist's controller ran no test: its workers run the mutants
        status = session.exitstatus
        out = self.plan["out"]
        if self.failed or status != 0:
            _write(out, {"off": "the tests did not all pass"})
            return
        # Nothing of the mutants' runs reaches the run's own outcomes, written by now.
        manager = config.pluginmanager
        for name in ("tiergate_outcomes_recorder",):
            plugin = manager.get_plugin(name)
            if plugin is not None:
                manager.unregister(plugin)
        runner = _Runner(self.plan, self.probes, self.covering, session, self.state)
        guard = threading.Timer(float(self.plan["seconds"]) + 10.0, _give_up, (runner, out, int(status)))
        guard.daemon = True
        guard.start()
        try:
            runner.run()
        except BaseException as exc:
            runner.incomplete = runner.incomplete or "the mutation step failed (%s)" % type(exc).__name__
        finally:
            guard.cancel()
            runner.restore()
            self.probes.put_back()
            _write(out, runner.result())


def _give_up(runner, out, status):
    """The mutants' time is long past: what is known is written, and the process ends as its tests did."""
    runner.incomplete = "a mutant's tests did not end in time"
    try:
        _write(out, runner.result())
    finally:
        os._exit(status)


def _write(path, data):
    with open(path + ".part", "w") as f:
        json.dump(data, f)
    os.replace(path + ".part", path)


class _Runner:
    def __init__(self, plan, probes, covering, session, state):
        self.plan, self.probes, self.covering, self.session = plan, probes, covering, session
        self.state = state
        self.deadline = time.monotonic() + float(plan["seconds"])
        self.started = time.monotonic()
        self.fates = {}
        self.killers = {}  # unit key -> nodeids that killed its mutants
        self.void = ""
        self.incomplete = ""
        self.swapped = []  # (function, its code) to put back
        self.module_saved = None  # (module dict, its copy)
        self.functions, self.caches = _functions(set(plan["files"]))
        self.everywhere = False

    def result(self):
        return {
            "fates": dict(self.fates),
            "void": self.void,
            "incomplete": self.incomplete,
            "seconds": time.monotonic() - self.started,
        }

    def run(self):
        mutants = list(self.plan["mutants"])
        random.Random(self.plan.get("seed", 0)).shuffle(mutants)
        for mutant in mutants:
            if time.monotonic() > self.deadline:
                self.incomplete = "the mutation step ran out of its %d s" % self.plan["seconds"]
                break
            self.fates[mutant["id"]] = self.one(mutant)
        for sentinel in self.plan["sentinels"]:
            failed = self.sentinel(sentinel)
            if failed:
                self.void = "%s failed on a copy of %s that behaves the same" % (
                    failed,
                    sentinel["unit"] or "the module",
                )
                break

    def one(self, mutant):
        tests = self.tests_for(mutant)
        if not tests:
            return ["uncovered", ""]
        why = self.put(mutant)
        if why:
            return ["not_run", why]
        try:
            failed = self.first_failing(tests, mutant)
        finally:
            self.restore()
        if failed is None:
            return ["survived", ""]
        self.killers.setdefault(_unit_key(mutant), []).append(failed)
        return ["killed", failed]

    def sentinel(self, sentinel):
        killers = list(dict.fromkeys(self.killers.get(_unit_key(sentinel), ())))
        items = [item for item, _, _ in self.covering if item.nodeid in killers]
        if not items:
            return None
        why = self.put(sentinel)
        if why:
            return None
        try:
            return self.first_failing([(item, 0.0) for item in items], sentinel)
        finally:
            self.restore()

    def tests_for(self, mutant):
        path = mutant["file"]
        line = self.probes.statement(path, mutant["line"])
        if mutant["unit"]:
            found = [(item, seconds) for item, runs, seconds in self.covering if line in runs.get(path, ())]
        else:  # a top-level assignment runs at import: its tests are those that ran any of its module
            found = [(item, seconds) for item, runs, seconds in self.covering if runs.get(path)]
        killers = self.killers.get(_unit_key(mutant), [])
        # The tests that killed this function's other mutants first, then the quickest.
        found.sort(key=lambda pair: (pair[0].nodeid not in killers, pair[1]))
        return found

    def first_failing(self, tests, mutant):
        for item, seconds in tests:
            if time.monotonic() > self.deadline:
                self.incomplete = "the mutation step ran out of its %d s" % self.plan["seconds"]
                raise _Late()
            if _fails(item, max(2.0, 10 * seconds)):
                return item.nodeid
        return None

    def put(self, mutant):
        """The mutant's code in the process, its modules' own tables (a memo kept in a module's dict) as
        they were before the first test; why it cannot be, or ""."""
        self.state.put_back()
        code = compile(mutant["source"], mutant["file"], "exec", dont_inherit=True)
        if not mutant["unit"]:
            return self.put_statement(mutant, code)
        new = _unit_code(code, mutant["unit"], mutant["first"])
        key = (mutant["file"], mutant["unit"], mutant["first"])
        if key not in self.functions and not self.everywhere:
            self.everywhere = True  # held elsewhere only: looked for once among all objects
            self.functions, self.caches = _functions(set(self.plan["files"]), everywhere=True)
        live = self.functions.get(key, [])
        if new is None or not live:
            return "its function %s is not in the tests' process" % mutant["unit"]
        for function in live:
            self.swapped.append((function, function.__code__))
            function.__code__ = new
        self.clear_caches()
        return ""

    def put_statement(self, mutant, code):
        import ast

        module = _module_of(mutant["file"])
        if module is None:
            return "its module is not in the tests' process"
        tree = ast.parse(mutant["source"])
        statement = [s for s in tree.body if s.lineno <= mutant["line"] <= s.end_lineno]
        if not statement:
            return "its statement is not at the module's top"
        one = compile(ast.Module(body=statement, type_ignores=[]), mutant["file"], "exec", dont_inherit=True)
        self.module_saved = (module.__dict__, dict(module.__dict__))
        exec(one, module.__dict__)
        self.clear_caches()
        return ""

    def restore(self):
        while self.swapped:
            function, code = self.swapped.pop()
            function.__code__ = code
        if self.module_saved is not None:
            namespace, saved = self.module_saved
            for name in [n for n in namespace if n not in saved]:
                del namespace[name]
            namespace.update(saved)
            self.module_saved = None
        self.clear_caches()

    def clear_caches(self):
        """functools caches of the code under test hold what its code returned before."""
        for cache in self.caches:
            try:
                cache.cache_clear()
            except Exception:
                pass


# What a module's or class's namespace holds that its code changes as it runs, and is put back in place.
_CONTAINERS = (dict, list, set, bytearray)
_PLAIN = (int, float, str, bytes, bool, tuple, frozenset, type(None))


class _State:
    """The changed modules' tables and plain values, and their classes', as they were: put back before each
    mutant, so that a memo filled by the tests' run does not answer for the mutated code."""

    def __init__(self, loaded, on_load):
        self.saved = []
        for module in list(loaded):
            self.add(module)
        on_load.append(self.add)

    def add(self, module):
        """`module`'s state, taken as its import ends."""
        self.take(vars(module))
        for value in list(vars(module).values()):
            if isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
                self.take(value.__dict__, owner=value)

    def take(self, namespace, owner=None):
        for name, value in list(namespace.items()):
            if name.startswith("__"):
                continue
            if isinstance(value, _CONTAINERS):
                self.saved.append((namespace, owner, name, value, value.copy()))
            elif isinstance(value, _PLAIN):
                self.saved.append((namespace, owner, name, value, None))

    def put_back(self):
        for namespace, owner, name, value, copied in self.saved:
            try:
                if isinstance(value, (dict, set)):
                    value.clear()
                    value.update(copied)
                elif isinstance(value, (list, bytearray)):
                    value[:] = copied
                if owner is None:
                    namespace[name] = value
                else:
                    setattr(owner, name, value)
            except Exception:
                pass


def _fails(item, limit):
    """Whether `item` fails, run alone (its fixtures set up and torn down), within `limit` seconds."""
    from _pytest.runner import runtestprotocol

    def late(signum, frame):
        raise _Late()

    previous = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        reports = runtestprotocol(item, log=False, nextitem=None)
    except _Late:
        return True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return any(report.failed for report in reports)


def _functions(files, everywhere=False):
    """The function objects whose code comes from `files`, by (file, qualified name, first line); and the
    functools caches in front of them. Found from the files' modules (their functions, their classes'
    methods, what their decorators wrap); `everywhere`: among every object the collector tracks (a
    function only another object holds), a tenth of a second or more in a large process."""
    found, caches = {}, []
    things = gc.get_objects() if everywhere else _reachable(files)
    for thing in things:
        kind = type(thing).__name__
        if kind == "_lru_cache_wrapper":
            caches.append(thing)
            continue
        code = getattr(thing, "__code__", None)
        if code is None or kind != "function":
            continue
        path = os.path.realpath(code.co_filename)
        if path in files:
            found.setdefault((path, thing.__qualname__, code.co_firstlineno), []).append(thing)
    return found, [c for c in caches if _in(getattr(c, "__wrapped__", None), files)]


def _reachable(files):
    """What the modules of `files` hold: their values, their classes' attributes, and what decorators
    wrap (`__wrapped__`, `__func__`, a property's functions, a closure's cells), a few levels down."""
    seen, found = set(), []
    pending = [(vars(m), 0) for m in _modules(files).values()]
    while pending:
        namespace, depth = pending.pop()
        for value in list(namespace.values()) if isinstance(namespace, dict) else namespace:
            if id(value) in seen or depth > 6:
                continue
            seen.add(id(value))
            found.append(value)
            inner = _inside(value)
            if inner:
                pending.append((inner, depth + 1))
    return found


def _inside(value):
    if isinstance(value, type):
        return dict(vars(value))
    held = [getattr(value, name, None) for name in ("__wrapped__", "__func__", "fget", "fset", "fdel")]
    cells = getattr(value, "__closure__", None) or ()
    for cell in cells:
        try:
            held.append(cell.cell_contents)
        except ValueError:
            pass
    return [h for h in held if h is not None and callable(h)]


def _modules(files):
    """The loaded modules of `files`, by file."""
    found = {}
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str) and name.endswith(".py") and os.path.realpath(name) in files:
            found[os.path.realpath(name)] = module
    return found


def _in(function, files):
    code = getattr(function, "__code__", None)
    return code is not None and os.path.realpath(code.co_filename) in files


def _unit_code(code, qualname, first, prefix=""):
    """The code object of function `qualname` (its outermost) defined at line `first` in module `code`."""
    for const in code.co_consts:
        if not hasattr(const, "co_consts"):
            continue
        name = prefix + const.co_name
        if const.co_flags & _NEW_LOCALS:
            if name == qualname and const.co_firstlineno == first:
                return const
        elif qualname.startswith(name + "."):
            found = _unit_code(const, qualname, first, name + ".")
            if found is not None:
                return found
    return None


def _module_of(path):
    return _modules({path}).get(path)


def _unit_key(mutant):
    return "%s:%s:%s" % (mutant["file"], mutant["unit"], mutant["first"])
