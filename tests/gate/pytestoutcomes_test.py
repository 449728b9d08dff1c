"""The pytest plugin that records each test's outcome (`tiergate.gate.pytestoutcomes`), loaded as the gate
loads it (copied onto PYTHONPATH, named in PYTEST_PLUGINS) into a real nested pytest run: the file it
writes, read directly, and what it streams to a real watch socket of the gate's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from testing.gitrepo import write

import tiergate.gate.pytestoutcomes as plugin
from tiergate.gate.imported import KEY_VARIABLE, OUT_VARIABLE, Bounds, Watch
from tiergate.gate.pertest.streamed import Streamed, replayed
from tiergate.gate.watchsocket import streams

PHASES = """\
import pytest


@pytest.fixture
def broken():
    raise RuntimeError("setup")


@pytest.fixture
def bad_teardown():
    yield
    raise RuntimeError("teardown")


def test_pass():
    pass


def test_setup_error(broken):
    pass


def test_fails_then_teardown_errors(bad_teardown):
    assert 1 == 2


def test_teardown_error(bad_teardown):
    pass


@pytest.mark.xfail(reason="known", strict=True)
def test_xpassed_strict():
    pass


@pytest.mark.xfail(reason="known")
def test_xpassed():
    pass
"""


def run_pytest(project: Path, *args: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """pytest run in `project` with the plugin, as the gate has it run: the records it wrote."""
    site, out = project.parent / "site", project.parent / "out"
    site.mkdir()
    out.mkdir()
    shutil.copytree(
        Path(plugin.__file__).parent, site / "tiergate_outcomes", ignore=shutil.ignore_patterns("__pycache__")
    )
    dropped = ("TIERGATE_TESTS_TAKEN", "TIERGATE_TESTS_ONLY", "PYTEST_ADDOPTS")
    inherited = {k: v for k, v in os.environ.items() if k not in dropped}
    variables = {
        **inherited,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONPATH": str(site),
        "PYTEST_PLUGINS": "tiergate_outcomes",
        "TIERGATE_TESTS_OUT": str(out),
        **(env or {}),
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    subprocess.run(
        command, cwd=project, env=variables, capture_output=True, text=True, check=False, timeout=60
    )
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(out.iterdir())]


def test_each_test_is_recorded_once_with_the_first_phase_that_went_wrong(tmp_path: Path) -> None:
    write(tmp_path / "p", {"test_phases.py": PHASES})

    [record] = run_pytest(tmp_path / "p")

    assert (record["tool"], record["finished"]) == ("pytest", True)
    assert record["outcomes"] == [
        ["test_phases.py::test_pass", "passed"],
        ["test_phases.py::test_setup_error", "error"],
        ["test_phases.py::test_fails_then_teardown_errors", "failed"],
        ["test_phases.py::test_teardown_error", "error"],
        ["test_phases.py::test_xpassed_strict", "failed"],
        ["test_phases.py::test_xpassed", "xpassed"],
    ]


def test_a_module_that_fails_to_collect_is_an_error_and_deselected_tests_are_named(tmp_path: Path) -> None:
    files = {
        "test_broken.py": "import not_a_module_anywhere\n",
        "test_ok.py": "def test_kept():\n    pass\n\n\ndef test_left_out():\n    pass\n",
    }
    write(tmp_path / "p", files)

    [record] = run_pytest(tmp_path / "p", "-k", "not left_out", "--continue-on-collection-errors")

    assert dict(record["outcomes"]) == {
        "test_broken.py": "error",
        "test_ok.py::test_left_out": "deselected",
        "test_ok.py::test_kept": "passed",
    }


def test_a_run_that_never_finishes_its_session_leaves_its_record_unfinished(tmp_path: Path) -> None:
    leave = "import os\n\n\ndef pytest_sessionfinish(session):\n    os._exit(0)\n"
    write(tmp_path / "p", {"test_a.py": "def test_pass():\n    pass\n", "conftest.py": leave})

    [record] = run_pytest(tmp_path / "p")

    assert record == {"tool": "pytest", "finished": False, "outcomes": []}


def test_a_run_another_recorded_run_started_writes_nothing(tmp_path: Path) -> None:
    write(tmp_path / "p", {"test_a.py": "def test_pass():\n    pass\n"})

    assert run_pytest(tmp_path / "p", env={"TIERGATE_TESTS_TAKEN": "1"}) == []


SELECTED = {
    "tests/test_kept.py": "def test_one():\n    pass\n\n\ndef test_two():\n    assert False\n",
    "tests/test_picked.py": "def test_wanted():\n    pass\n\n\ndef test_unwanted():\n    pass\n",
    "tests/test_never.py": "raise RuntimeError('an unselected module is never imported')\n",
    "tests/conftest.py": "import pytest\n",
}


def select(project: Path, files: list[str], tests: list[str]) -> dict[str, str]:
    only = project.parent / "only.json"
    only.write_text(json.dumps({"files": [str(project / f) for f in files], "tests": tests}))
    return {"TIERGATE_TESTS_ONLY": str(only)}


def test_a_selection_collects_only_its_files_and_deselects_the_rest_of_a_selected_tests_file(
    tmp_path: Path,
) -> None:
    project = tmp_path / "p"
    write(project, SELECTED)

    [record] = run_pytest(
        project, env=select(project, ["tests/test_kept.py"], ["tests/test_picked.py::test_wanted"])
    )

    assert record["only"] is True and record["finished"] is True
    assert dict(record["outcomes"]) == {
        "tests/test_picked.py::test_unwanted": "deselected",
        "tests/test_kept.py::test_one": "passed",
        "tests/test_kept.py::test_two": "failed",
        "tests/test_picked.py::test_wanted": "passed",
    }


def test_a_selection_that_cannot_be_read_or_under_xdist_leaves_the_run_whole(tmp_path: Path) -> None:
    files = {**SELECTED, "tests/test_never.py": "def test_there():\n    pass\n"}
    unread, distributed = tmp_path / "unread" / "p", tmp_path / "distributed" / "p"
    write(unread, files)
    write(distributed, files)
    everything = {
        "tests/test_kept.py::test_one",
        "tests/test_kept.py::test_two",
        "tests/test_picked.py::test_wanted",
        "tests/test_picked.py::test_unwanted",
        "tests/test_never.py::test_there",
    }

    records = [
        *run_pytest(unread, env={"TIERGATE_TESTS_ONLY": str(tmp_path / "missing.json")}),
        # xdist's controller collects nothing and its workers are not the run's top: no selection at all.
        *run_pytest(
            distributed, "-p", "xdist", "-n", "2", env=select(distributed, ["tests/test_kept.py"], [])
        ),
    ]

    assert len(records) == 2
    for record in records:
        assert "only" not in record and set(dict(record["outcomes"])) == everything


def test_the_collection_hook_takes_the_argument_the_running_pytest_gives() -> None:
    # pytest 7 and later: `collection_path` (recent pluggy keeps the spec's names on `spec`); earlier
    # ones: `path` (pytest 3.6's pluggy 0.7 kept them on the hook caller itself).
    recent = SimpleNamespace(spec=SimpleNamespace(argnames=("collection_path", "config")))
    older = SimpleNamespace(argnames=("__multicall__", "path", "config"))

    argnames: Callable[[object], tuple[str, ...]] = plugin.selection._argnames

    assert "collection_path" in argnames(recent)
    assert argnames(older) == ("__multicall__", "path", "config")
    assert argnames(object()) == ("path",)


def streamed_run(tmp_path: Path, *args: str) -> tuple[list[dict[str, Any]], tuple[Streamed, ...]]:
    """`run_pytest` of the project at tmp_path/p with the gate's socket: its records, and its streams."""
    holder = tmp_path / "holder"
    (holder / "tree").mkdir(parents=True)
    with Watch(holder, Bounds(str(holder / "tree"), str(tmp_path / "workspace")), None) as watch:
        socket = {k: v for k, v in watch.env("tests").items() if k in (OUT_VARIABLE, KEY_VARIABLE)}
        records = run_pytest(tmp_path / "p", *args, env=socket)
        heard = streams(watch.name, str(tmp_path / "out"))
    assert heard is not None
    return records, heard


def test_each_outcome_is_streamed_as_the_record_has_it_and_the_end_marked(tmp_path: Path) -> None:
    write(tmp_path / "p", {"test_phases.py": PHASES})

    [record], [stream] = streamed_run(tmp_path)

    assert [stream.report] == [str(path) for path in (tmp_path / "out").iterdir()]
    assert stream.ended and not stream.garbled and stream.patched == ()
    assert list(replayed(stream).items()) == [tuple(pair) for pair in record["outcomes"]]
    # One line a test, but where a later phase went wrong (a teardown error after a pass).
    assert len(stream.outcomes) == len(record["outcomes"]) + 1


# Code under test that, as it is imported, silences what a stream could send through `socket` and
# `json`: the plugin bound what it calls as it connected, before any test module was imported.
SILENCING = """\
import json, json.encoder, socket

socket.socket.sendall = lambda self, data, *flags: None
socket.socket.send = lambda self, data, *flags: len(data)
json.dumps = lambda *args, **kwargs: "{}"
json.encoder.encode_basestring_ascii = lambda text: '""'


def test_fail():
    assert 1 == 2
"""


def test_a_stream_is_out_of_reach_of_what_the_tests_replace_in_the_modules_it_uses(tmp_path: Path) -> None:
    write(tmp_path / "p", {"test_silencing.py": SILENCING})

    _, [stream] = streamed_run(tmp_path)

    assert stream.ended and replayed(stream) == {"test_silencing.py::test_fail": "failed"}


def test_each_xdist_worker_streams_its_own_tests_tied_to_its_runs_report(tmp_path: Path) -> None:
    write(tmp_path / "p", {"test_phases.py": PHASES, "test_b.py": "def test_b():\n    pass\n"})

    [record], heard = streamed_run(tmp_path, "-p", "xdist", "-n", "2")

    [report] = [str(path) for path in (tmp_path / "out").iterdir()]
    [own] = [s for s in heard if not s.worker]
    workers = sorted((s for s in heard if s.worker), key=lambda s: s.worker)
    assert record["workers"] == ["gw0", "gw1"] and own.workers == ("gw0", "gw1")
    assert [(s.worker, s.report, s.ended, s.patched) for s in workers] == [
        ("gw0", report, True, ()),
        ("gw1", report, True, ()),
    ]
    # Each test streamed by the worker that ran it, as the run's own record has it.
    by_workers = {**replayed(workers[0]), **replayed(workers[1])}
    assert by_workers == dict(record["outcomes"]) == replayed(own)
    assert not set(replayed(workers[0])) & set(replayed(workers[1]))


# In the worker (the test module is imported there): the test call replaced as the module is imported,
# and every report made a pass after the runner made it.
IN_THE_WORKER = """\
import _pytest.python

_run = _pytest.python.Function.runtest
_pytest.python.Function.runtest = lambda self: _run(self)


def test_fail():
    assert 1 == 2
"""
PASSING_CONFTEST = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    made = yield
    made.get_result().outcome = "passed"
"""


def test_what_a_worker_saw_reaches_its_runs_record_without_the_socket(tmp_path: Path) -> None:
    # As at the loop's base, where no stream is heard: the worker's own look at the runner, and the
    # failure its guard kept, given to the controller as the worker finishes.
    write(tmp_path / "p", {"test_a.py": IN_THE_WORKER, "conftest.py": PASSING_CONFTEST})

    [record] = run_pytest(tmp_path / "p", "-p", "xdist", "-n", "1")

    assert record["finished"] and record["workers"] == ["gw0"]
    assert record["outcomes"] == [["test_a.py::test_fail", "failed"]]
    assert "_pytest.python.Function.runtest" in record["patched"]


# The same reach from the project's root conftest, which pytest imports before it configures its plugins
# (red team 36): `socket.socket.sendall` rewritten there turned each failure the stream sent into a pass,
# since the plugin took `socket` as it connected, after that conftest. It now takes what it sends through
# as it is imported (PYTEST_PLUGINS: before any conftest), from `_socket`, whose methods are the C type's.
REWRITING_CONFTEST = """\
import socket

_sendall = socket.socket.sendall


def _rewritten(self, data, *flags):
    return _sendall(self, data.replace(b'"failed"', b'"passed"'), *flags)


socket.socket.sendall = _rewritten
socket.socket.send = lambda self, data, *flags: _sendall(self, data.replace(b'"failed"', b'"passed"'))
"""


def test_a_stream_is_out_of_reach_of_the_root_conftest(tmp_path: Path) -> None:
    write(
        tmp_path / "p",
        {"conftest.py": REWRITING_CONFTEST, "test_fails.py": "def test_fail():\n    assert 0\n"},
    )

    _, [stream] = streamed_run(tmp_path)

    assert stream.ended and replayed(stream) == {"test_fails.py::test_fail": "failed"}
