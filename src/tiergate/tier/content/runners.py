"""The test runners and assertion libraries per language, as code names them: the modules (by their root),
the environment variables the runners set, the globals they define. Pure data, read by the rules on code
that reaches into its tests (`reaching`) and by what tells a testing tool at the base
(`tiergate.tier.reachingbase`).
"""

from __future__ import annotations

import re

# Python: the runners' own modules, by the root a dotted import starts with. A plugin's module is named
# `pytest_<name>` (pytest_mock, pytest_asyncio).
PYTHON_RUNNERS = frozenset({"pytest", "_pytest", "unittest", "doctest", "nose", "nose2", "xdist", "py.test"})
PYTHON_PLUGIN_PREFIX = "pytest_"
# What a runner sets in the environment of the tests it runs, by prefix.
PYTHON_RUNNER_ENV = ("PYTEST_", "_PYTEST", "UNITTEST_", "NOSE_")
# What a test's outcome is made of: called from code, they decide it (`pytest.skip()`, `raise SkipTest`).
PYTHON_OUTCOMES = frozenset(
    {
        *("skip", "xfail", "exit", "fail", "importorskip", "main", "testmod", "testfile"),
        *("SkipTest", "skipTest", "expectedFailure", "Skipped", "XFailed", "Exit", "Failed"),
        *("OutcomeException", "skipIf", "skipUnless"),
    }
)


def python_runner(module: str) -> str | None:
    """The runner a dotted module name belongs to (its root), or None."""
    root = module.split(".", 1)[0]
    if root in PYTHON_RUNNERS or module in PYTHON_RUNNERS:
        return root
    return root if root.startswith(PYTHON_PLUGIN_PREFIX) else None


# JavaScript: the runners' modules (a scoped package by its scope) and the assertion libraries, whose
# import is honest in library code (`assert` checks invariants) but whose methods are the tests' verdicts.
JS_RUNNERS = frozenset(
    {
        *("node:test", "vitest", "jest", "mocha", "ava", "tap", "uvu", "jasmine", "qunit"),
        *("@jest/globals", "@playwright/test", "@japa/runner", "tape", "node:test/reporters"),
    }
)
JS_RUNNER_SCOPES = ("@vitest/", "@jest/")
JS_ASSERTIONS = frozenset(
    {
        *("assert", "node:assert", "assert/strict", "node:assert/strict", "chai", "expect", "should"),
        *("power-assert", "uvu/assert", "@std/assert"),
    }
)
# The names test files use for the runner's and assertion library's globals.
JS_RUNNER_GLOBALS = frozenset(
    {
        *("it", "test", "describe", "suite", "context", "specify", "expect", "assert", "jest", "vi"),
        *("before", "after", "beforeEach", "afterEach", "beforeAll", "afterAll", "mocha", "chai"),
        *("jasmine", "QUnit"),
    }
)
JS_RUNNER_ENV = ("NODE_TEST_CONTEXT", "JEST_WORKER_ID", "VITEST", "MOCHA_", "AVA_", "TAP_", "JASMINE_")


def js_module(name: str) -> str | None:
    """'runner' or 'assertion' for a module specifier of one, else None."""
    if name in JS_RUNNERS or name.startswith(JS_RUNNER_SCOPES):
        return "runner"
    if name in JS_ASSERTIONS or name.startswith(("chai-", "node:assert/")):
        return "assertion"
    return None


# What tells the gate's own runs from the agent's: its name in the folders it runs in, and what it sets
# in the checks' environment. Code that asks for them answers the gate otherwise than anyone else.
GATE_TRACES = re.compile(
    r"(?i:tiergate)|pycache_prefix|dont_write_bytecode|PYTHONPYCACHEPREFIX|PYTHONDONTWRITEBYTECODE"
    r"|PYTEST_ADDOPTS|NODE_V8_COVERAGE|NODE_OPTIONS|TIERGATE_"
)


def gate_trace(text: str) -> str | None:
    """The trace of the gate's runs `text` asks for, if any (`GATE_TRACES`)."""
    found = GATE_TRACES.search(text)
    return None if found is None else found.group(0)


# Rust: what the test harness sets (`cargo test`'s threads, nextest's own) and reads.
RUST_RUNNER_ENV = ("RUST_TEST_", "NEXTEST", "__CARGO_FIX")
