"""A pytest check's tests from what its plugin streamed and the report it wrote (`tiergate.gate.pertest.
streamed`): an honest run's report and stream agree, and every way a report can tell another story than
its stream, or a stream be missing, spoiled or doubled, makes the record no evidence."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tiergate.gate.pertest.record import TestOutcome, outcome_of
from tiergate.gate.pertest.streamed import DISAGREES, Reported, Streamed, merged, replayed

PATH = "/tmp/tiergate-tests-x/0/pytest-1-ab.json"
OUTCOMES: tuple[tuple[str, TestOutcome], ...] = (
    ("t.py::add", "passed"),
    ("t.py::div", "failed"),
    ("t.py::skip", "skipped"),
)
# As the plugin streams them: each test's outcome as its recorder changes it (setup's skip, call's
# failure, a teardown error after a pass).
STREAM = Streamed(
    PATH,
    (("t.py::add", "passed"), ("t.py::div", "failed"), ("t.py::skip", "skipped")),
    ("_pytest.python.Function.runtest",),
    ended=True,
)
REPORT = Reported(PATH, OUTCOMES, finished=True)


def saying(**outcomes: str) -> list[Reported]:
    """The finished report, each test named (`div="passed"`) said otherwise, one named "" left out."""
    said = {**dict(OUTCOMES), **{f"t.py::{name}": outcome for name, outcome in outcomes.items()}}
    return [replace(REPORT, outcomes=tuple((t, outcome_of(o)) for t, o in said.items() if o))]


def test_a_report_that_agrees_with_its_stream_is_evidence_with_what_the_stream_named_replaced() -> None:
    run = merged([REPORT], [STREAM], selected=False)

    assert run.disagrees == "" and run.finished and run.source == "pytest report"
    assert run.by_test == dict(OUTCOMES)
    # A runner part put back before the session ended is missing from the report, not from the stream.
    assert run.patched == ("_pytest.python.Function.runtest",)


def test_a_failure_streamed_is_never_taken_back_by_a_later_line() -> None:
    later = replace(STREAM, outcomes=(*STREAM.outcomes, ("t.py::div", "passed"), ("t.py::add", "error")))

    assert replayed(later) == {"t.py::add": "error", "t.py::div": "failed", "t.py::skip": "skipped"}


FORGED = {
    "a failure the report says passed": (
        saying(div="passed"),
        [STREAM],
        "it has t.py::div passed where the stream has failed",
    ),
    "a failure the report leaves out": (
        saying(div=""),
        [STREAM],
        "it has t.py::div left out where the stream has failed",
    ),
    "a test the stream never had": (
        saying(extra="passed"),
        [STREAM],
        "it names 1 test the stream never had: t.py::extra",
    ),
    "another outcome than the stream's": (
        saying(skip="passed"),
        [STREAM],
        "it has t.py::skip passed where the stream has skipped",
    ),
    "a passing test the report leaves out": (
        saying(skip=""),
        [STREAM],
        "it leaves out 1 test the stream had: t.py::skip",
    ),
    "a finished report whose stream never ended": (
        [REPORT],
        [replace(STREAM, ended=False)],
        "it says the run finished, and its stream never did",
    ),
    "a report with no stream": ([REPORT], [], "it was written with no stream"),
    "a stream whose report is gone": ([], [STREAM], "a stream's report is gone"),
    "a second stream for the same report": (
        [REPORT],
        [STREAM, replace(STREAM, outcomes=(("t.py::div", "passed"),))],
        "more than one stream is for the same report",
    ),
    "a garbled line": ([REPORT], [replace(STREAM, garbled=True)], "a line of its stream is no outcome"),
    "an outcome that is none": (
        [REPORT],
        [replace(STREAM, outcomes=(*STREAM.outcomes, ("t.py::add", "fine")))],
        "a line of its stream is no outcome",
    ),
}


@pytest.mark.parametrize("case", list(FORGED))
def test_a_report_that_tells_another_story_than_its_stream_is_no_evidence(case: str) -> None:
    reports, streams, why = FORGED[case]

    run = merged(reports, streams, selected=False)

    assert run.disagrees.startswith(f"{DISAGREES}: {why}"), run.disagrees
    # What stands is what was streamed: the failure stays.
    if streams and not streams[0].garbled:
        assert run.by_test.get("t.py::div") == "failed"


def test_a_run_that_died_is_unfinished_and_its_stream_holds_its_outcomes() -> None:
    # The plugin writes outcomes only as the session ends: a run that died left an empty, unfinished file.
    died = replace(REPORT, outcomes=(), finished=False)

    run = merged([died], [replace(STREAM, ended=False)], selected=False)

    assert run.disagrees == "" and not run.finished and run.by_test == dict(OUTCOMES)


def test_an_unfinished_report_that_names_a_failure_passed_still_disagrees() -> None:
    died = replace(REPORT, outcomes=(("t.py::div", "passed"),), finished=False)

    run = merged([died], [replace(STREAM, ended=False)], selected=False)

    assert "it has t.py::div passed where the stream has failed" in run.disagrees


def test_two_runs_in_one_check_each_agree_with_their_own_stream() -> None:
    other = "/tmp/tiergate-tests-x/0/pytest-2-cd.json"
    second: tuple[tuple[str, TestOutcome], ...] = (("u.py::again", "passed"),)

    run = merged(
        [REPORT, Reported(other, second, finished=True, only=True)],
        [Streamed(other, second, ended=True), STREAM],
        selected=True,
    )

    assert run.disagrees == "" and run.by_test == {**dict(OUTCOMES), **dict(second)}
    assert not run.subset  # one of the two reports did not say it kept to the selection


def test_without_a_socket_the_reports_alone_are_read_as_before() -> None:
    forged = replace(REPORT, outcomes=(("t.py::div", "passed"),))

    run = merged([forged], None, selected=False)

    assert run.disagrees == "" and run.by_test == {"t.py::div": "passed"} and run.finished


# Under xdist: the run's own stream (its controller's) relays every test and names the workers it
# started; each worker streams the tests it ran, on a connection of its own, for the same report.
CONTROLLER = replace(STREAM, patched=(), workers=("gw0", "gw1"))
GW0 = Streamed(PATH, (("t.py::add", "passed"), ("t.py::skip", "skipped")), ended=True, worker="gw0")
GW1 = Streamed(PATH, (("t.py::div", "failed"),), ended=True, worker="gw1")
DISTRIBUTED = replace(REPORT, workers=("gw0", "gw1"))


def test_a_run_and_the_streams_of_its_workers_that_agree_are_evidence() -> None:
    patched_in_a_worker = replace(GW1, patched=("plugin calc.Quiet",))

    run = merged([DISTRIBUTED], [CONTROLLER, GW0, patched_in_a_worker], selected=False)

    assert run.disagrees == "" and run.finished and run.by_test == dict(OUTCOMES)
    # A part replaced in a worker is named with the run's, whatever the controller saw.
    assert run.patched == ("plugin calc.Quiet",)


def test_a_failure_a_worker_streamed_stands_where_its_run_said_it_passed() -> None:
    # The controller relayed a pass (rewritten in the worker after the runner made it a failure); its
    # report agrees with its own stream, and the worker's stream has the failure.
    passed = (("t.py::add", "passed"), ("t.py::div", "passed"), ("t.py::skip", "skipped"))
    controller = replace(CONTROLLER, outcomes=passed)
    report = replace(DISTRIBUTED, outcomes=tuple((t, outcome_of(o)) for t, o in passed))

    for streams in ([controller, GW0, GW1], [GW1, GW0, controller]):
        run = merged([report], streams, selected=False)

        assert run.disagrees == "" and run.by_test["t.py::div"] == "failed"


WORKERS_FALL_SHORT = {
    "a worker that never streamed": (
        [DISTRIBUTED],
        [CONTROLLER, GW0],
        "no stream came from 1 worker of its run: gw1",
    ),
    "a worker only the report names, that never streamed": (
        [replace(DISTRIBUTED, workers=("gw0", "gw1", "gw2"))],
        [CONTROLLER, GW0, GW1],
        "no stream came from 1 worker of its run: gw2",
    ),
    "a worker only the run's stream names, that never streamed": (
        [replace(DISTRIBUTED, workers=())],
        [CONTROLLER, GW0],
        "no stream came from 1 worker of its run: gw1",
    ),
    "a finished run with a worker whose stream never ended": (
        [DISTRIBUTED],
        [CONTROLLER, GW0, replace(GW1, ended=False)],
        "it says the run finished, and the stream of 1 worker never did: gw1",
    ),
    "two streams for one worker": (
        [DISTRIBUTED],
        [CONTROLLER, GW0, GW1, replace(GW1, outcomes=(("t.py::div", "passed"),))],
        "more than one stream is for the same report",
    ),
    "a stream for a worker the run never started": (
        [DISTRIBUTED],
        [CONTROLLER, GW0, GW1, replace(GW1, worker="gw7", outcomes=())],
        "a stream is for a worker its run never started: gw7",
    ),
    "a worker's stream whose report is gone": (
        [],
        [GW1],
        "a stream's report is gone",
    ),
    "a worker's stream with no stream of its run's own": (
        [DISTRIBUTED],
        [GW0, GW1],
        "it was written with no stream",
    ),
}


@pytest.mark.parametrize("case", list(WORKERS_FALL_SHORT))
def test_a_run_whose_workers_streams_fall_short_is_no_evidence(case: str) -> None:
    reports, streams, why = WORKERS_FALL_SHORT[case]

    run = merged(reports, streams, selected=False)

    assert run.disagrees == f"{DISAGREES}: {why}", run.disagrees


def test_a_run_that_died_with_its_workers_is_unfinished_not_in_disagreement() -> None:
    died = replace(DISTRIBUTED, outcomes=(), finished=False)
    cut = [replace(s, ended=False) for s in (CONTROLLER, GW0, GW1)]

    run = merged([died], cut, selected=False)

    assert run.disagrees == "" and not run.finished and run.by_test == dict(OUTCOMES)


# A test that crashed its worker (gw1, a segfault or `os._exit` in `div`): the worker's stream has what it
# ran before, and no end mark; the controller saw it go down crashed, named the test it crashed in, and
# xdist started gw2 in its place, which ran the rest. Outcomes beyond the crash: as xdist reported them.
CRASHING = replace(
    CONTROLLER,
    workers=("gw0", "gw1", "gw2"),
    down=(("gw1", "crashed"), ("gw0", "done"), ("gw2", "done")),
    crashes=(("gw1", "t.py::div"),),
)
CRASHED = replace(GW1, outcomes=(("t.py::add", "passed"),), ended=False)
REPLACING = replace(GW0, outcomes=(("t.py::skip", "skipped"),), worker="gw2")
GW0_ALONE = replace(GW0, outcomes=())
CRASHED_RUN = replace(DISTRIBUTED, workers=("gw0", "gw1", "gw2"))


def test_a_worker_its_run_saw_crash_is_no_disagreement_and_the_test_it_crashed_in_failed() -> None:
    run = merged([CRASHED_RUN], [CRASHING, GW0_ALONE, CRASHED, REPLACING], selected=False)

    assert run.disagrees == "" and run.finished and run.by_test == dict(OUTCOMES)


def test_the_test_a_worker_crashed_in_is_failed_whatever_the_report_and_streams_say() -> None:
    # A plugin made xdist's crash report a pass on its way: the run's outcomes, its report and the worker's
    # stream (it crashed in the test's teardown) all say passed.
    passed = (("t.py::add", "passed"), ("t.py::div", "passed"), ("t.py::skip", "skipped"))
    report = replace(CRASHED_RUN, outcomes=tuple((t, outcome_of(o)) for t, o in passed))
    crashed = replace(CRASHED, outcomes=(("t.py::div", "passed"),))

    run = merged(
        [report], [replace(CRASHING, outcomes=passed), GW0_ALONE, crashed, REPLACING], selected=False
    )

    assert run.by_test["t.py::div"] == "failed"
    assert run.disagrees == f"{DISAGREES}: it has t.py::div passed where the stream has failed"


def test_a_crash_keeps_a_failure_streamed_before_it_and_an_error_stays_an_error() -> None:
    crashed = replace(CRASHED, outcomes=(("t.py::add", "failed"), ("t.py::div", "error")))
    outcomes = (("t.py::add", "failed"), ("t.py::div", "error"), ("t.py::skip", "skipped"))
    controller = replace(CRASHING, outcomes=outcomes)
    report = replace(CRASHED_RUN, outcomes=tuple((t, outcome_of(o)) for t, o in outcomes))

    run = merged([report], [controller, GW0_ALONE, crashed, REPLACING], selected=False)

    assert run.disagrees == "" and run.by_test == {
        "t.py::add": "failed",
        "t.py::div": "error",
        "t.py::skip": "skipped",
    }


CRASHES_FALL_SHORT: dict[str, tuple[list[Streamed | None], str]] = {
    "a worker that vanished, its run saw it go down as it finished": (
        [replace(CRASHING, down=(("gw1", "done"), ("gw0", "done"), ("gw2", "done")))],
        "it says the run finished, and the stream of 1 worker never did: gw1",
    ),
    "a worker that vanished, its run saw none go down": (
        [replace(CRASHING, down=(), crashes=())],
        "it says the run finished, and the stream of 1 worker never did: gw1",
    ),
    "a crash only the worker's own stream tells": (
        [replace(CRASHING, down=()), replace(CRASHED, down=(("gw1", "crashed"),))],
        "it says the run finished, and the stream of 1 worker never did: gw1",
    ),
    "another worker's crash": (
        [replace(CRASHING, down=(("gw0", "crashed"),))],
        "it says the run finished, and the stream of 1 worker never did: gw1",
    ),
    "a crashed worker that never streamed": (
        [CRASHING, None],
        "no stream came from 1 worker of its run: gw1",
    ),
    "the replacement worker that never streamed": (
        [CRASHING, CRASHED, None],
        "no stream came from 1 worker of its run: gw2",
    ),
}


@pytest.mark.parametrize("case", list(CRASHES_FALL_SHORT))
def test_a_worker_that_vanished_without_its_run_seeing_it_crash_is_still_no_evidence(case: str) -> None:
    changed, why = CRASHES_FALL_SHORT[case]
    # Each stream of the crashed run, in order (controller, gw1, gw2), as the case changes it (None: gone).
    streams = [GW0_ALONE]
    for i, stream in enumerate([CRASHING, CRASHED, REPLACING]):
        now = changed[i] if i < len(changed) else stream
        if now is not None:
            streams.append(now)

    run = merged([CRASHED_RUN], streams, selected=False)

    assert run.disagrees == f"{DISAGREES}: {why}", run.disagrees
    assert not run.finished or why.startswith("no stream")
