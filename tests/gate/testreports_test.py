"""Test checks run with their runner's own report, asked for through the environment, with real pytest and
real `node --test`: every outcome recorded whatever the project's options, a conftest that rewrites
reports or leaves early still seen, a nested pytest not mixed in, and the user's run never changed."""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from testing.gitrepo import init_repo, write

from tiergate.gate.checks import CheckResult, make_check
from tiergate.gate.imported import KEY_VARIABLE, OUT_VARIABLE, Bounds, Watch
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.processes import Running
from tiergate.gate.testreports import run_reported

PYTEST = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider"
TESTS = """\
import subprocess, sys
import pytest


def test_pass():
    pass


def test_fail():
    assert 1 == 2


@pytest.mark.skip(reason="later")
def test_skip():
    pass


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False


def test_other():
    pass
"""
NESTED = """\
import subprocess, sys


def test_runs_pytest_inside(tmp_path):
    (tmp_path / "test_inner.py").write_text("def test_inner():\\n    assert False\\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)])
    assert done.returncode == 1
"""


def run(root: Path, command: str) -> tuple[str, str, dict[str, str], str]:
    (result,) = run_reported([make_check("tests", command, "test")], root, Running(timeout=60))
    tests = result.tests
    assert tests is not None
    return result.status, result.reason, dict(tests.by_test), tests.source


def test_pytest_reports_every_outcome_whatever_its_options(tmp_path: Path) -> None:
    write(tmp_path, {"test_a.py": TESTS})

    status, reason, outcomes, source = run(tmp_path, f"{PYTEST} -k 'not other'")

    assert status == "failed" and reason == "exit 1" and source == "pytest report"
    assert outcomes == {
        "test_a.py::test_other": "deselected",
        "test_a.py::test_pass": "passed",
        "test_a.py::test_fail": "failed",
        "test_a.py::test_skip": "skipped",
        "test_a.py::test_xfail": "xfailed",
    }


def test_a_conftest_that_rewrites_failures_as_passes_is_still_seen_failing(tmp_path: Path) -> None:
    rewrite = (
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        "    made = yield\n    report = made.get_result()\n    report.outcome = 'passed'\n"
    )
    write(tmp_path, {"test_a.py": "def test_fail():\n    assert False\n", "conftest.py": rewrite})

    status, reason, outcomes, _ = run(tmp_path, PYTEST)

    assert (
        status == "failed"
        and reason == "exit 0, but 1 test failed: test_a.py::test_fail (from its pytest report)"
    )
    assert outcomes == {"test_a.py::test_fail": "failed"}


def test_a_run_that_leaves_with_os_exit_is_not_a_pass(tmp_path: Path) -> None:
    leave = "import os\n\n\ndef pytest_sessionfinish(session):\n    os._exit(0)\n"
    write(tmp_path, {"test_a.py": "def test_pass():\n    pass\n", "conftest.py": leave})

    status, reason, _, _ = run(tmp_path, PYTEST)

    assert status == "failed" and "was begun and never finished" in reason


def test_a_pytest_the_tests_start_does_not_report_into_the_checks_run(tmp_path: Path) -> None:
    write(tmp_path, {"test_nested.py": NESTED})

    status, _, outcomes, _ = run(tmp_path, PYTEST)

    assert status == "passed" and outcomes == {"test_nested.py::test_runs_pytest_inside": "passed"}


def test_a_run_of_no_test_is_no_evidence(tmp_path: Path) -> None:
    write(tmp_path, {"test_a.py": TESTS})

    status, reason, _, _ = run(tmp_path, f"{PYTEST} -k nothing")

    assert status == "no_tests" and reason.startswith("ran no test (5 deselected")


NODE_TESTS = """\
const { describe, it } = require('node:test');
const assert = require('node:assert');
describe('calc', () => {
  it('adds', () => assert.strictEqual(1 + 2, 3));
  it('divides', () => assert.strictEqual(1, 2));
  it.skip('later', () => {});
});
"""


def test_node_test_reports_each_test_under_its_file_and_suites(tmp_path: Path) -> None:
    write(tmp_path, {"test/calc.test.js": NODE_TESTS})

    status, _, outcomes, source = run(tmp_path, "node --test")

    assert status == "failed" and source == "node --test report"
    assert outcomes == {
        "test/calc.test.js > calc > adds": "passed",
        "test/calc.test.js > calc > divides": "failed",
        "test/calc.test.js > calc > later": "skipped",
    }


@pytest.mark.parametrize("tree", ["tree-a", "tree-b"])
def test_a_node_test_outside_its_package_is_named_from_the_package_wherever_the_tree_is(
    tmp_path: Path, tree: str
) -> None:
    # A monorepo's package whose tests include a shared file: the same id in every copy of the tree.
    top = tmp_path / tree
    write(top, {"packages/calc/placeholder.txt": "", "shared/calc.test.js": NODE_TESTS})
    (top / ".git").write_text("gitdir: elsewhere\n")  # a worktree's top, as a claim's copy has

    _, _, outcomes, _ = run(top / "packages" / "calc", "node --test ../../shared/")

    assert outcomes["../../shared/calc.test.js > calc > adds"] == "passed"


def test_a_node_run_with_its_own_reporter_is_left_alone_and_read_from_its_output(tmp_path: Path) -> None:
    write(tmp_path, {"test/calc.test.js": NODE_TESTS})

    status, reason, outcomes, source = run(tmp_path, "node --test --test-reporter=tap")

    assert status == "failed" and reason == "exit 1" and source == "node output"
    assert outcomes["divides"] == "failed" and outcomes["later"] == "skipped"


def test_a_command_that_sets_its_own_pythonpath_still_runs_and_is_read_from_its_output(
    tmp_path: Path,
) -> None:
    # `PYTHONPATH=src pytest` hides the plugin's folder: pytest would stop at once on a plugin it cannot
    # import, failing the user's check for tiergate's sake. It runs again without the plugin.
    write(
        tmp_path,
        {
            "src/calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        },
    )

    (result,) = run_reported([make_check("tests", f"PYTHONPATH=src {PYTEST} tests", "test")], tmp_path)

    assert (result.status, result.reason) == ("passed", "exit 0")
    assert "Error importing plugin" not in result.output
    assert result.tests is not None and result.tests.source == "pytest output"
    assert result.tests.total("passed") == 1


SELECTED_PROJECT = {
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "tests/test_two.py": "def test_wanted():\n    pass\n\n\ndef test_unwanted():\n    pass\n",
    "tests/test_never.py": "raise RuntimeError('an unselected module is never imported')\n",
    "conftest.py": "import sys\n\nsys.path.insert(0, 'src')\n",
}
SELECTION = TestSelection(("tests/test_add.py",), ("tests/test_two.py::test_wanted",))


def test_a_selected_pytest_check_runs_only_its_selection_and_says_it_is_a_subset(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", SELECTED_PROJECT)
    selected, whole = (
        make_check("selected tests", f"{PYTEST} tests", "test"),
        make_check("all tests", PYTEST, "test"),
    )

    first, second = run_reported(
        [selected, whole], repo, Running(timeout=60), select={selected.key: SELECTION}
    )

    assert (first.status, first.reason) == ("passed", "exit 0") and first.tests is not None
    assert first.tests.subset and first.tests.by_test == {
        "tests/test_two.py::test_unwanted": "deselected",
        "tests/test_add.py::test_add": "passed",
        "tests/test_two.py::test_wanted": "passed",
    }
    assert "1 deselected" in first.output and "RuntimeError" not in first.output
    # The check without a selection is the whole suite, the module that cannot be imported included.
    assert second.status == "failed" and second.tests is not None and not second.tests.subset
    assert second.tests.by_test["tests/test_never.py"] == "error"


def test_a_selected_check_that_sets_its_own_pythonpath_runs_whole_and_is_no_subset(tmp_path: Path) -> None:
    # The plugin's folder is hidden, so the selection cannot be honoured: the check runs again without
    # it, whole, and its record is never taken for a selection's.
    repo = init_repo(
        tmp_path / "repo", {**SELECTED_PROJECT, "tests/test_never.py": "def test_x():\n    pass\n"}
    )
    check = make_check("tests", f"PYTHONPATH=src {PYTEST} tests", "test")

    (result,) = run_reported([check], repo, Running(timeout=60), select={check.key: SELECTION})

    assert (result.status, result.reason) == ("passed", "exit 0") and result.tests is not None
    assert not result.tests.subset and result.tests.total("passed") == 4


def test_a_report_that_says_it_kept_to_a_selection_nobody_asked_for_is_a_whole_run(tmp_path: Path) -> None:
    forge = (
        "import json, os\n\n\ndef pytest_sessionfinish(session):\n"
        "    folder = os.environ['TIERGATE_TESTS_OUT']\n"
        "    for name in os.listdir(folder):\n"
        "        path = os.path.join(folder, name)\n"
        "        data = json.load(open(path))\n"
        "        json.dump({**data, 'only': True}, open(path, 'w'))\n"
    )
    write(tmp_path, {"test_a.py": "def test_pass():\n    pass\n", "conftest.py": forge})

    (result,) = run_reported([make_check("tests", PYTEST, "test")], tmp_path, Running(timeout=60))

    assert result.tests is not None and not result.tests.subset


def test_a_selection_this_process_was_run_with_is_no_checks_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # tiergate's gate on a suite that runs the gate: the suite's own selection is in the environment.
    outer = tmp_path / "outer.json"
    outer.write_text(json.dumps({"files": [str(tmp_path / "elsewhere_test.py")], "tests": []}))
    monkeypatch.setenv("TIERGATE_TESTS_ONLY", str(outer))
    write(tmp_path / "p", {"test_a.py": "def test_pass():\n    pass\n"})

    (result,) = run_reported([make_check("tests", PYTEST, "test")], tmp_path / "p", Running(timeout=60))

    assert result.status == "passed" and result.tests is not None and not result.tests.subset
    assert result.tests.by_test == {"test_a.py::test_pass": "passed"}


@contextlib.contextmanager
def gate_socket(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The variables of a claim copy's watch socket (`tiergate.gate.imported`) that tell a check's pytest
    where to stream its outcomes, while it listens."""
    holder = tmp_path / "holder"
    (holder / "tree").mkdir(parents=True)
    with Watch(holder, Bounds(str(holder / "tree"), str(tmp_path / "workspace")), None) as watch:
        yield {k: v for k, v in watch.env("tests").items() if k in (OUT_VARIABLE, KEY_VARIABLE)}


def run_streamed(root: Path, command: str, socket: Mapping[str, str]) -> CheckResult:
    check = make_check("tests", command, "test")
    (result,) = run_reported([check], root, Running(timeout=60), env={check.key: dict(socket)})
    return result


# A test that runs a pytest with xdist workers of its own: neither that run nor its workers are the check's.
NESTED_WORKERS = """\
import subprocess, sys


def test_runs_pytest_with_workers_inside(tmp_path):
    (tmp_path / "test_inner.py").write_text("def test_inner():\\n    assert False\\n")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist", "-n", "2"]
    assert subprocess.run([*command, str(tmp_path)]).returncode == 1
"""
# pytest as the environment has it, its plugins loaded (xdist among them), xdist turned off by the command.
WITHOUT_XDIST = f"{shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider -p no:xdist"
TWO_MODULES = {"test_a.py": TESTS, "test_b.py": "def test_b():\n    pass\n"}
HONEST = {
    "a plain run": ({"test_a.py": TESTS}, f"{PYTEST} -k 'not other'", "failed"),
    "xdist's workers": ({"test_a.py": TESTS}, f"{PYTEST} -p xdist -n 2", "failed"),
    "one xdist worker, tests deselected": (
        {"test_a.py": TESTS},
        f"{PYTEST} -p xdist -n 1 -k 'not other'",
        "failed",
    ),
    "every test on each worker": (TWO_MODULES, f"{PYTEST} -p xdist -n 2 --dist each", "failed"),
    "a worker a module": (TWO_MODULES, f"{PYTEST} -p xdist -n 2 --dist loadscope", "failed"),
    "xdist turned off": ({"test_a.py": TESTS}, WITHOUT_XDIST, "failed"),
    "a pytest the tests start": ({"test_nested.py": NESTED}, PYTEST, "passed"),
    "a pytest with workers the tests start, in a worker": (
        {"test_nested.py": NESTED_WORKERS},
        f"{PYTEST} -p xdist -n 2",
        "passed",
    ),
}


@pytest.mark.parametrize("case", list(HONEST))
def test_an_honest_run_streamed_to_the_gate_is_read_as_without_it(tmp_path: Path, case: str) -> None:
    files, command, status = HONEST[case]
    write(tmp_path / "p", files)
    (without,) = run_reported([make_check("tests", command, "test")], tmp_path / "p", Running(timeout=60))

    with gate_socket(tmp_path) as socket:
        result = run_streamed(tmp_path / "p", command, socket)

    assert result.status == without.status == status and result.reason == without.reason
    assert result.tests is not None and without.tests is not None
    assert result.tests.disagrees == "" and result.tests.finished
    assert result.tests.by_test == without.tests.by_test and result.tests.source == "pytest report"


def test_a_selected_run_streamed_to_the_gate_is_still_a_subset(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", SELECTED_PROJECT)
    check = make_check("tests", f"{PYTEST} tests", "test")

    with gate_socket(tmp_path) as socket:
        (result,) = run_reported(
            [check], repo, Running(timeout=60), select={check.key: SELECTION}, env={check.key: socket}
        )

    assert result.status == "passed" and result.tests is not None
    assert result.tests.subset and result.tests.disagrees == ""
    assert result.tests.by_test["tests/test_two.py::test_wanted"] == "passed"


def test_a_selected_run_under_xdist_streamed_to_the_gate_is_read_as_without_it(tmp_path: Path) -> None:
    # xdist's controller collects nothing and its workers get no selection: a whole run (the module
    # that fails to import included), each worker's stream agreeing with it.
    repo = init_repo(tmp_path / "repo", SELECTED_PROJECT)
    check = make_check("tests", f"{PYTEST} -p xdist -n 2 tests", "test")
    (without,) = run_reported([check], repo, Running(timeout=60), select={check.key: SELECTION})

    with gate_socket(tmp_path) as socket:
        (result,) = run_reported(
            [check], repo, Running(timeout=60), select={check.key: SELECTION}, env={check.key: socket}
        )

    assert result.status == without.status == "failed" and result.reason == without.reason
    assert result.tests is not None and without.tests is not None
    assert not result.tests.subset and result.tests.disagrees == "" and result.tests.finished
    assert result.tests.by_test == without.tests.by_test
    assert result.tests.by_test["tests/test_never.py"] == "error"


# A conftest that keeps each xdist worker from streaming: what the controller gave it to tie its stream to
# the run, taken away before the plugin configures.
UNTIED = """\
import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    getattr(config, "workerinput", {}).pop("tiergate_outcomes", None)
"""


def test_a_run_whose_worker_never_streamed_is_no_evidence(tmp_path: Path) -> None:
    write(tmp_path / "p", {"conftest.py": UNTIED, "test_a.py": "def test_pass():\n    pass\n"})
    command = f"{PYTEST} -p xdist -n 2"
    (without,) = run_reported([make_check("tests", command, "test")], tmp_path / "p", Running(timeout=60))

    with gate_socket(tmp_path) as socket:
        result = run_streamed(tmp_path / "p", command, socket)

    assert without.status == "passed"
    assert result.status == "failed" and result.tests is not None
    assert result.reason == (
        "exit 0, but the report disagrees with the outcomes the tests streamed as they ran: "
        "no stream came from 2 workers of its run: gw0, gw1"
    )


# In the workers: every report made a pass after the runner made it (the plugin's guard keeps the raw
# failure), and what the worker's plugin gives its controller as it finishes dropped on its way, so that
# the controller has only the passes the workers relayed. Wrapping the session's end, inside xdist's own
# wrapper (registered later): after the plugin has written what it gives, before xdist sends it.
PASSED_IN_THE_WORKER = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    made = yield
    made.get_result().outcome = "passed"


@pytest.hookimpl(hookwrapper=True)
def pytest_sessionfinish(session):
    yield
    getattr(session.config, "workeroutput", {}).pop("tiergate_outcomes", None)
"""


def test_a_failure_a_worker_streamed_is_failed_whatever_the_controller_reported(tmp_path: Path) -> None:
    tests = "def test_pass():\n    pass\n\n\ndef test_fail():\n    assert 1 == 2\n"
    write(tmp_path / "p", {"conftest.py": PASSED_IN_THE_WORKER, "test_a.py": tests})
    command = f"{PYTEST} -p xdist -n 2"
    (without,) = run_reported([make_check("tests", command, "test")], tmp_path / "p", Running(timeout=60))

    with gate_socket(tmp_path) as socket:
        result = run_streamed(tmp_path / "p", command, socket)

    # The controller's word alone, as at the base: every test passed.
    assert without.status == "passed" and without.tests is not None
    assert without.tests.by_test == {"test_a.py::test_pass": "passed", "test_a.py::test_fail": "passed"}
    assert result.status == "failed" and result.tests is not None and result.tests.disagrees == ""
    assert result.reason == "exit 0, but 1 test failed: test_a.py::test_fail (from its pytest report)"
    assert result.tests.by_test == {"test_a.py::test_pass": "passed", "test_a.py::test_fail": "failed"}


# As the red team's code did when its module was imported: at exit, the report rewritten to say every
# test passed, and no exit handler of anyone else's left to run.
FORGED_AT_EXIT = """\
import atexit, json, os


def forge():
    folder = os.environ["TIERGATE_TESTS_OUT"]
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        record = json.load(open(path))
        record["outcomes"] = [[test, "passed"] for test, _ in record["outcomes"]]
        json.dump({**record, "finished": True}, open(path, "w"))
    os._exit(0)


atexit.register(forge)
"""
FAILING = "import forger\n\n\ndef test_pass():\n    pass\n\n\ndef test_fail():\n    assert 1 == 2\n"
# pytest's terminal left out (the scenario's forger silences it): else the failures it prints, and its
# totals line, would give the forgery away by themselves.
QUIET = PYTEST.replace(" -q ", " -p no:terminal ")


def test_a_report_forged_at_exit_is_a_pass_without_the_socket_and_no_evidence_with_it(tmp_path: Path) -> None:
    write(tmp_path / "p", {"forger.py": FORGED_AT_EXIT, "test_a.py": FAILING})
    (without,) = run_reported([make_check("tests", QUIET, "test")], tmp_path / "p", Running(timeout=60))

    with gate_socket(tmp_path) as socket:
        result = run_streamed(tmp_path / "p", QUIET, socket)

    assert without.status == "passed"  # what the gate could only read before: the forged report
    assert result.status == "failed" and result.tests is not None
    assert result.reason == (
        "exit 0, but the report disagrees with the outcomes the tests streamed as they ran: "
        "it has test_a.py::test_fail passed where the stream has failed"
    )
    assert result.tests.by_test == {"test_a.py::test_pass": "passed", "test_a.py::test_fail": "failed"}


# A test that knows the gate's socket and key from its environment, and streams passes for its run's
# report on a connection of its own.
SECOND_STREAM = """\
import json, os, socket


def test_fail():
    assert 1 == 2


def test_zz_forge():
    where, folder = os.environ["TIERGATE_IMPORTED"], os.environ["TIERGATE_TESTS_OUT"]
    conn = socket.socket(socket.AF_UNIX)
    conn.connect("\\0" + where[1:] if where.startswith("@") else where)
    (name,) = os.listdir(folder)
    lines = [{"key": os.environ["TIERGATE_IMPORTED_KEY"]}, {"report": os.path.join(folder, name)}]
    lines += [{"o": ["test_a.py::test_fail", "passed"]}, {"end": True}]
    conn.sendall("".join(json.dumps(line) + "\\n" for line in lines).encode())
"""


def test_a_second_stream_for_the_same_report_makes_it_no_evidence(tmp_path: Path) -> None:
    write(tmp_path / "p", {"test_a.py": SECOND_STREAM})

    with gate_socket(tmp_path) as socket:
        result = run_streamed(tmp_path / "p", PYTEST, socket)

    assert result.status == "failed" and result.tests is not None
    assert result.tests.disagrees.endswith("more than one stream is for the same report")
    assert result.tests.by_test["test_a.py::test_fail"] == "failed"


# The test call replaced in one test, and put back as the next test is called (its body left unrun): by
# the session's end the runner is whole.
PUT_BACK = """\
import _pytest.python

_was = _pytest.python.Function.runtest


def _once(self):
    _pytest.python.Function.runtest = _was


def test_replaces():
    _pytest.python.Function.runtest = _once


def test_never_run():
    assert False
"""


def test_a_runner_part_put_back_before_the_end_is_named_only_by_the_stream(tmp_path: Path) -> None:
    write(tmp_path / "p", {"test_a.py": PUT_BACK})
    (without,) = run_reported([make_check("tests", PYTEST, "test")], tmp_path / "p", Running(timeout=60))

    with gate_socket(tmp_path) as socket:
        result = run_streamed(tmp_path / "p", PYTEST, socket)

    assert without.tests is not None and without.tests.patched == ()
    assert result.tests is not None and result.tests.disagrees == ""
    assert result.tests.patched == ("_pytest.python.Function.runtest",)


def test_the_plugins_own_look_at_the_runner_replaced_is_named_itself(tmp_path: Path) -> None:
    silenced = (
        "import sys\n\nsys.modules['tiergate_outcomes']._Recorder.check_runner = lambda self: None\n\n\n"
        "def test_pass():\n    pass\n"
    )
    write(tmp_path / "p", {"test_a.py": silenced})

    with gate_socket(tmp_path) as socket:
        result = run_streamed(tmp_path / "p", PYTEST, socket)

    assert result.tests is not None
    assert result.tests.patched == ("tiergate_outcomes._Recorder.check_runner",)


# A test that crashes its xdist worker (as a segfault in a C extension would): xdist reports it failed,
# "worker 'gw0' crashed while running ...", and starts a worker in its place for the tests left.
CRASHING = """\
import os


def test_before():
    pass


def test_crash():
    os._exit(3)


def test_after():
    pass
"""


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_test_that_crashes_its_worker_is_failed_and_the_run_read_as_without_the_socket(
    tmp_path: Path, workers: str
) -> None:
    write(tmp_path / "p", {"test_a.py": CRASHING, "test_b.py": "def test_b():\n    pass\n"})
    command = f"{PYTEST} -p xdist -n {workers}"
    (without,) = run_reported([make_check("tests", command, "test")], tmp_path / "p", Running(timeout=60))

    with gate_socket(tmp_path) as socket:
        result = run_streamed(tmp_path / "p", command, socket)

    assert result.status == without.status == "failed" and result.reason == without.reason
    assert result.tests is not None and without.tests is not None
    # The crashed worker's stream has no end mark, and its run saw it crash: no disagreement, finished.
    assert result.tests.disagrees == "" and result.tests.finished
    assert result.tests.by_test == without.tests.by_test
    assert result.tests.by_test["test_a.py::test_crash"] == "failed"
    assert {t: o for t, o in result.tests.by_test.items() if t != "test_a.py::test_crash"} == {
        "test_a.py::test_before": "passed",
        "test_a.py::test_after": "passed",
        "test_b.py::test_b": "passed",
    }


# In the controller, answering xdist's hook for a crashed worker's test first: its report made a pass.
CRASH_PASSED = """\
import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_handlecrashitem(crashitem, report, sched):
    report.outcome = "passed"
    report.longrepr = None
    return True
"""


def test_the_test_a_worker_crashed_in_stays_failed_whatever_its_report_is_made(tmp_path: Path) -> None:
    write(tmp_path / "p", {"conftest.py": CRASH_PASSED, "test_a.py": CRASHING})
    command = f"{PYTEST} -p xdist -n 1"
    (without,) = run_reported([make_check("tests", command, "test")], tmp_path / "p", Running(timeout=60))

    with gate_socket(tmp_path) as socket:
        result = run_streamed(tmp_path / "p", command, socket)

    for run in (without, result):
        assert run.status == "failed" and run.tests is not None
        assert run.tests.by_test["test_a.py::test_crash"] == "failed", run.tests.by_test
    assert result.tests is not None and result.tests.disagrees == ""


# A worker whose stream is cut on the way (the plugin's connection closed by a test), that goes on and
# finishes: its run saw it go down as it finished, not crash.
CUT = """\
def test_cut(request):
    request.config.pluginmanager.get_plugin("tiergate_outcomes_recorder").stream.conn.close()


def test_after():
    pass
"""


def test_a_worker_whose_stream_ended_early_without_a_crash_is_still_no_evidence(tmp_path: Path) -> None:
    write(tmp_path / "p", {"test_a.py": CUT})
    command = f"{PYTEST} -p xdist -n 1"

    with gate_socket(tmp_path) as socket:
        result = run_streamed(tmp_path / "p", command, socket)

    assert result.status == "failed" and result.tests is not None
    assert result.reason == (
        "exit 0, but the report disagrees with the outcomes the tests streamed as they ran: "
        "it says the run finished, and the stream of 1 worker never did: gw0"
    )
