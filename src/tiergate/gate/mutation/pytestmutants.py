# mypy: ignore-errors
# ruff: noqa: UP031, SIM105
"""tiergate: the claim's mutants, run by this pytest process's tests once its own run is over (written for
one run).

Copied onto PYTHONPATH under a name of its run's own and named in PYTEST_PLUGINS
(`tiergate.gate.mutation.step`), beside the gate's sitecustomize, whose line probes say which tests ran
which changed lines; never imported by tiergate itself. Only when TIERGATE_MUTANTS names a plan, and only
after a run where every test passed: its reports and outcomes are written by then, and nothing here changes
them or the exit status.

Once collection is over, before any test runs, the process forks a zygote that waits. When the run has
passed, the zygote is told which tests ran which changed lines, and forks a child per mutant: the child puts
the mutant's code in (a function's code object swapped, or a top-level assignment run again in its module),
runs the tests that ran its line until one fails (killed) or none does (survived), and says so. So every
mutant starts from the process as the tests first found it (no memo, no state a test kept from the run, no
fixture), and one that hangs, even in C, or ends the process, ends only its child: the zygote kills a child
past its time. Then each mutated function gets a copy of its code that behaves the same, run the same way
with the tests that killed its mutants: a test that fails on it fails on any change, and its kills say
nothing. The zygote writes the fates, with the plan's key (given through the environment and taken out of
it before any test or conftest runs), to the plan's `out`. Stdlib and pytest only, on any Python 3.8 or
later and pytest 6.2 or later, where `os.fork` is. See docs/judging.md, "Mutants of the changed lines".
"""

import gc
import json
import os
import pathlib
import select
import signal
import sys
import time

import pytest

_PLAN = "TIERGATE_MUTANTS"
_KEY = "TIERGATE_MUTANTS_KEY"
_TIE = "tiergate_mutants_key"  # how an xdist controller hands the key to its workers
_NEW_LOCALS = 0x2  # CO_NEWLOCALS: a function's code, not a class body's
_MARGIN = 5.0  # seconds kept free at the end of the check's own limit


def pytest_configure(config):
    path = os.environ.get(_PLAN)
    key = os.environ.pop(_KEY, None) or getattr(config, "workerinput", {}).get(_TIE)
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
        sys.addaudithook(_note_created)
    except Exception:
        pass


# The files this process made (opened to write where none was): the run's, then each mutant's child's,
# taken away before the next mutant runs, so that a file a test keeps between runs (a snapshot of the
# answers it saw first) is made anew under each mutant, as a fresh run would make it.
_CREATED = set()


def _note_created(event, args):
    if event != "open" or len(args) < 3:
        return
    path, mode, flags = args[0], args[1], args[2]
    writes = (isinstance(mode, str) and any(c in mode for c in "wax")) or (
        isinstance(flags, int) and flags & os.O_CREAT
    )
    if writes and isinstance(path, (str, bytes)) and not os.path.exists(path):
        _CREATED.add(os.path.abspath(os.fsdecode(path)))


def _remove_created(keep):
    for path in list(_CREATED):
        if not path.startswith(keep):
            try:
                os.unlink(path)
            except OSError:
                pass
    _CREATED.clear()


# The check's folder as the tests first found it (taken before the zygote is forked): put back before each
# mutant's child, so that no file the run or an earlier child wrote, made or removed judges a mutant.
_TREE = [None]


def _snapshot(root, keep):
    """The folder `root` kept (`snapshot.Snapshot`, from its copy beside this file: the gate writes it as
    `<this module>_snapshot.py`; in tiergate's own package it is `snapshot.py`)."""
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    stem = os.path.splitext(os.path.basename(__file__))[0]
    for name in (stem + "_snapshot.py", "snapshot.py"):
        path = os.path.join(here, name)
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location(stem + "_snapshot", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module.Snapshot(pathlib.Path(root), kept=keep)
    return None


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
            self.zygote = _Zygote.start(session, self)
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
            _write(self.plan["out"], {"key": self.key, "off": "the tests did not all pass"})
            return
        spent = time.monotonic() - self.born
        # Within the plan's seconds, and what the run left of the check's limit (as the gate started it,
        # the mutants' own time in it).
        limit = float(_TIERGATE_VARIABLES.get("TIERGATE_CHECK_LIMIT") or 0) or float("inf")
        seconds = min(float(self.plan["seconds"]), limit - spent - _MARGIN)
        told = {"tests": self.covering, "statements": self.probes.statements(), "seconds": seconds}
        told["collected"] = self.collected
        self.zygote.go({**told, "created": sorted(_CREATED)})


class _Zygote:
    """The process as collection left it, forked before any test ran: it forks the mutants' children."""

    def __init__(self, pid, pipe):
        self.pid, self.pipe = pid, pipe

    @classmethod
    def start(cls, session, mutation):
        # Files made as the tests were collected are theirs as they first found them: only what the run
        # (and each mutant's child) makes from here on is taken away.
        _CREATED.clear()
        _TREE[0] = _snapshot(os.getcwd(), _own(mutation.plan))
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
    told = json.loads(_read_all(pipe) or b"{}")
    if told.get("stop") or "tests" not in told:
        return
    signal.signal(signal.SIGTERM, _ended)
    _CREATED.clear()
    _CREATED.update(told["created"])
    _remove_created(_own(mutation.plan))
    runner = _Runner(mutation, session, told)
    try:
        _know(set(mutation.plan["files"]))
        runner.run()
    except BaseException as exc:
        runner.incomplete = runner.incomplete or "the mutation step failed (%s)" % type(exc).__name__
    finally:
        runner.write()


# The mutant's child running now: ended with the zygote (it may hold a copy of the check's output).
_CHILD = [0]


def _ended(signum, frame):
    if _CHILD[0]:
        try:
            os.kill(_CHILD[0], signal.SIGKILL)
        except OSError:
            pass
    os._exit(0)


def _read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _write(path, data):
    with open(path + ".part", "w") as f:
        json.dump(data, f)
    os.replace(path + ".part", path)


_AT_COLLECTION = "its line ran as the tests were collected: what they kept of it would judge its mutants"


class _Runner:
    def __init__(self, mutation, session, told):
        self.plan, self.key, self.probes = mutation.plan, mutation.key, mutation.probes
        self.items = {item.nodeid: item for item in session.items}
        self.covering = told["tests"]
        self.statements = told["statements"]
        self.collected = told.get("collected", {})
        self.started = time.monotonic()
        self.deadline = self.started + float(told["seconds"])
        # The mutants take at most four fifths of it: the copies that behave the same run in the rest.
        self.mutants_deadline = self.started + 0.8 * float(told["seconds"])
        # Once a mutant survived, the rest get a quarter of the run's own test time more: enough to name
        # the survivors that come cheap, never a run of every test for each (the step's cost stays a
        # share of the tests' own, whatever survives).
        self.enough = float("inf")
        share = float(self.plan.get("after_survivor", 0.25))
        self.after_survivor = share * sum(seconds for _, _, seconds in told["tests"])
        self.fates = {}
        self.killers = {}  # unit key -> nodeids that killed its mutants
        self.void = ""
        self.incomplete = ""

    def write(self):
        _write(
            self.plan["out"],
            {
                "key": self.key,
                "fates": dict(self.fates),
                "void": self.void,
                "incomplete": self.incomplete,
                "seconds": time.monotonic() - self.started,
            },
        )

    def run(self):
        if self.deadline <= self.started:
            self.incomplete = "the check's time limit left no time for them"
            return
        # In the plan's order (each line's most telling first): each runs in a fresh child, so the order
        # tells a test nothing, and a survivor found early names the line's weakest spot.
        mutants = list(self.plan["mutants"])
        # The objects as they are stay out of the collector's sight: its passes in a child would touch
        # every one of them, and copy every page the zygote shares with it.
        gc.freeze()
        for mutant in mutants:
            if time.monotonic() > self.mutants_deadline:
                self.incomplete = "the mutation step ran out of its time"
                break
            if time.monotonic() > self.enough and self.tests_for(mutant):
                # A mutant survived: the change is not LIGHT, whatever the rest would show (one that
                # no test ran costs nothing to name).
                self.fates[mutant["id"]] = ["not_run", "not needed: a mutant survived already"]
                continue
            self.fates[mutant["id"]] = self.one(mutant)
            if self.fates[mutant["id"]][0] == "survived" and self.enough == float("inf"):
                self.enough = time.monotonic() + self.after_survivor
            self.write()  # what is known so far stands, should the zygote be ended
        # Until the copies that behave the same have run, the kills are not yet evidence.
        self.incomplete, pending = "the copies that behave the same did not all run", self.incomplete
        self.write()
        self.incomplete = pending
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
        if self.ran_at_collection(mutant):
            self.incomplete = self.incomplete or _AT_COLLECTION
            return ["not_run", _AT_COLLECTION]
        fate, by, killers = _in_child(mutant, tests, self.mutants_deadline, _own(self.plan))
        if fate == "not_run" and not self.incomplete:
            self.incomplete = by
        self.killers.setdefault(_unit_key(mutant), []).extend(killers)
        return [fate, by]

    def sentinel(self, sentinel):
        killers = set(self.killers.get(_unit_key(sentinel), ()))
        tests = [(self.items[n], s) for n, _, s in self.covering if n in killers and n in self.items]
        if not tests:
            return None
        fate, by, _ = _in_child(sentinel, tests, self.deadline, _own(self.plan), spare=True)
        return by if fate in ("killed", "not_run") else None

    def ran_at_collection(self, mutant):
        """Whether a function's mutated line ran as the tests were collected: what the tests made of it
        then (a table of its answers, a value a fixture keeps) holds the code as it was, and would judge
        every mutant."""
        if not mutant["unit"]:  # a module's top runs at import anyway, and is run again with the mutant
            return False
        path = mutant["file"]
        line = _statement(self.statements.get(path, ()), mutant["line"])
        return line in self.collected.get(path, ())

    def tests_for(self, mutant):
        path = mutant["file"]
        if mutant["unit"]:
            line = _statement(self.statements.get(path, ()), mutant["line"])
            found = [(n, s) for n, runs, s in self.covering if line in runs.get(path, ())]
        else:  # a top-level assignment runs at import: its tests are those that ran any of its module
            found = [(n, s) for n, runs, s in self.covering if runs.get(path)]
        killers = self.killers.get(_unit_key(mutant), [])
        # The tests that killed this function's other mutants first, then the quickest.
        found.sort(key=lambda pair: (pair[0] not in killers, pair[1]))
        return [(self.items[n], s) for n, s in found if n in self.items]


def _statement(lines, line):
    """The probe line of the statement holding `line`: the nearest one at or above it."""
    above = [n for n in lines if n <= line]
    return max(above) if above else line


def _own(plan):
    """Where tiergate's own files for this run are (its plan's folder, and every folder a variable of
    tiergate's names: the outcomes' report, the coverage's): never taken away."""
    named = [v for k, v in _TIERGATE_VARIABLES.items() if v.startswith("/")]
    folders = [os.path.dirname(os.path.abspath(plan["out"]))]
    folders += [v if os.path.isdir(v) else os.path.dirname(v) for v in named]
    return tuple(f.rstrip("/") + "/" for f in folders if f not in ("", "/"))


# tiergate's variables as the process began (before the plan's key is taken out).
_TIERGATE_VARIABLES = {k: v for k, v in os.environ.items() if k.startswith("TIERGATE_")}


def _in_child(mutant, tests, deadline, keep, spare=False):
    """The mutant's fate, run in a child of the zygote; a child past its time is killed, and so is the
    mutant. `spare`: a sentinel's run, whose time is not cut short by the step's deadline."""
    limit = 2.0 + sum(max(0.2, 10 * seconds) for _, seconds in tests)
    limit = limit if spare else min(limit, max(0.0, deadline - time.monotonic()))
    unsure = _TREE[0].put_back() if _TREE[0] is not None else ""
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
            _remove_created(keep)
            os._exit(0)
    os.close(write)
    _CHILD[0] = pid
    try:
        said = _wait(read, pid, limit)
    finally:
        _CHILD[0] = 0
        os.close(read)
        _remove_created(keep)
    if said is not None:
        return [*said, [said[1]] if said[0] == "killed" else []]
    # Which of its tests it was running is not known: each of them must pass the copy that behaves the same.
    return ["killed", "%s (ended or ran out of time)" % tests[0][0].nodeid, [i.nodeid for i, _ in tests]]


def _wait(read, pid, limit):
    ready = select.select([read], [], [], limit)[0]
    data = _read_all(read) if ready else b""
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

    why = _put(mutant)
    if why:
        return ["not_run", why]
    for index, (item, _) in enumerate(tests):
        nextitem = tests[index + 1][0] if index + 1 < len(tests) else None
        reports = runtestprotocol(item, log=False, nextitem=nextitem)
        if any(report.failed for report in reports):
            return ["killed", item.nodeid]
    return ["survived", ""]


# What the zygote found of the changed files' modules, functions and caches, found once for its children.
_KNOWN = {}


def _know(files):
    _KNOWN.update(modules=_modules(files), functions=_functions(files), caches=_caches(files))


def _put(mutant):
    """The mutant's code in this process (as its module is imported, if it is not yet); why it cannot
    be, or ""."""
    files = {mutant["file"]}
    try:
        code = compile(mutant["source"], mutant["file"], "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:  # a mutant that does not compile is no evidence either way
        return "it does not compile (%s)" % type(exc).__name__
    if mutant["file"] in _KNOWN.get("modules", {}):
        why = _put_now(mutant, code, files, _KNOWN)
    else:
        why = ""
        site = sys.modules.get("sitecustomize")
        later = lambda module: _put_now(mutant, code, files, {})  # noqa: E731
        getattr(site, "_tiergate_on_load", []).append(later)
    for cache in _KNOWN.get("caches", ()):
        try:
            cache.cache_clear()
        except Exception:
            pass
    return why


def _put_now(mutant, code, files, known):
    if not mutant["unit"]:
        return _put_module(mutant, code, files)
    new = _unit_code(code, mutant["unit"], mutant["first"])
    key = (mutant["file"], mutant["unit"], mutant["first"])
    live = (known.get("functions") or _functions(files)).get(key)
    if not live:  # held only by another object (a cached_property's `func`): found among them all
        gc.unfreeze()  # (the zygote froze them; frozen objects are not listed)
        live = _functions(files, everywhere=True).get(key, [])
    if new is None or not live:
        return "its function %s is not in the tests' process" % mutant["unit"]
    for function in live:
        function.__code__ = new
    return ""


def _put_module(mutant, code, files):
    """Code that runs as its module is imported (a top-level assignment, a class attribute, a default
    value): the mutated module run again in its own namespace (this child is thrown away after), and what
    it made put into the objects the tests already hold: a function's code and defaults, a class's
    attributes. The names keep naming those objects."""
    module = _modules(files).get(mutant["file"])
    if module is None:
        return "its module is not in the tests' process"
    before = dict(module.__dict__)
    exec(code, module.__dict__)
    for name, now in list(module.__dict__.items()):
        was = before.get(name)
        if was is not None and was is not now and _transplanted(was, now):
            module.__dict__[name] = was
    return ""


def _transplanted(was, now):
    """Whether `now`'s code and values went into `was`, the object the tests hold."""
    if type(was).__name__ == "function" and type(now).__name__ == "function":
        try:
            was.__code__ = now.__code__
        except ValueError:  # another closure: not the same function
            return False
        was.__defaults__, was.__kwdefaults__ = now.__defaults__, now.__kwdefaults__
        return True
    if isinstance(was, type) and isinstance(now, type):
        for name, value in vars(now).items():
            if name in ("__dict__", "__weakref__"):
                continue
            old = vars(was).get(name)
            if type(value).__name__ == "member_descriptor":  # a `__slots__` slot: the old one holds
                continue  # the instances' values, a new one would not read them
            if old is None or not _transplanted(old, value):
                try:
                    setattr(was, name, value)
                except (AttributeError, TypeError):
                    pass
        return True
    return False


def _functions(files, everywhere=False):
    """The function objects whose code comes from `files`, by (file, qualified name, first line). Found
    from the files' modules (their functions, their classes' methods, what their decorators wrap);
    `everywhere`: among every object the collector tracks (a function only another object holds)."""
    found = {}
    for thing in gc.get_objects() if everywhere else _reachable(files):
        if type(thing).__name__ != "function":
            continue
        code = thing.__code__
        path = os.path.realpath(code.co_filename)
        if path in files:
            found.setdefault((path, thing.__qualname__, code.co_firstlineno), []).append(thing)
    return found


def _caches(files):
    """The functools caches in front of the files' functions: they hold what the code returned before."""
    return [
        thing
        for thing in _reachable(files)
        if type(thing).__name__ == "_lru_cache_wrapper" and _in(_attribute(thing, "__wrapped__"), files)
    ]


def _in(function, files):
    code = _attribute(function, "__code__")
    return code is not None and os.path.realpath(code.co_filename) in files


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
    """What `value` holds that may be a function of the change's; nothing when asking it raises (a proxy
    of a context that is not there, a descriptor with opinions)."""
    try:
        if isinstance(value, type):
            return dict(vars(value))
        held = [
            _attribute(value, n) for n in ("__wrapped__", "__func__", "fget", "fset", "fdel", "__closure__")
        ]
        cells = held.pop() or ()
        for cell in cells if isinstance(cells, tuple) else ():
            try:
                held.append(cell.cell_contents)
            except ValueError:
                pass
        return [h for h in held if h is not None and callable(h)]
    except Exception:
        return []


def _attribute(value, name):
    try:
        return getattr(value, name, None)
    except Exception:
        return None


def _modules(files):
    """The loaded modules of `files`, by file."""
    found = {}
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str) and name.endswith(".py") and os.path.realpath(name) in files:
            found[os.path.realpath(name)] = module
    return found


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


def _unit_key(mutant):
    return "%s:%s:%s" % (mutant["file"], mutant["unit"], mutant["first"])
