# mypy: ignore-errors
"""What decides a test's outcome inside pytest, as this plugin was imported and as it is now: the parts of
the runner, and the plugins, replaced while the tests ran."""

import os
import sys

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
