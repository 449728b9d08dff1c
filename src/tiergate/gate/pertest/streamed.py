"""A pytest check's tests, from the outcomes its plugin streamed to the gate as they happened and the report
it wrote at the end: the report is evidence only where it agrees with the stream. Pure: no I/O.

Code under test can rewrite the report after the session ends; an outcome streamed over the gate's socket
(`tiergate.gate.imported`) cannot be taken back. So a test streamed as failed stays failed, and a report
telling another story than its stream (or one without the other) is no evidence (docs/judging.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from tiergate.frozen import frozen
from tiergate.gate.pertest.record import FAILING, OUTCOMES, TestOutcome, TestRun, outcome_of
from tiergate.text import listed, plural, quote_inline

DISAGREES = "the report disagrees with the outcomes the tests streamed as they ran"
NAMES_SHOWN = 5


@frozen
class Streamed:
    """One stream as the gate heard it, on one connection: the report file it is for (its path, as the
    plugin named it), each (test, outcome) in the order sent, the runner's parts it named replaced,
    whether its end mark came, and whether some line of it was no message of the plugin's. `worker`: the
    xdist worker of that report's run that sent it ("": the run's own stream, its controller's under
    xdist); `workers`: the workers the run's own stream said it started, `down` how each went down
    (worker, "crashed" or "done"), `crashes` the test each crashed worker was running (worker, test)."""

    report: str
    outcomes: tuple[tuple[str, str], ...] = ()
    patched: tuple[str, ...] = ()
    ended: bool = False
    garbled: bool = False
    worker: str = ""
    workers: tuple[str, ...] = ()
    down: tuple[tuple[str, str], ...] = ()
    crashes: tuple[tuple[str, str], ...] = ()


@frozen
class Reported:
    """One report file as read (`finished` False too when it could not be read whole); `workers`: the
    xdist workers it says its run started."""

    path: str
    outcomes: tuple[tuple[str, TestOutcome], ...]
    finished: bool
    only: bool = False
    patched: tuple[str, ...] = ()
    workers: tuple[str, ...] = ()


def replayed(stream: Streamed) -> dict[str, str]:
    """Each test's outcome as its stream leaves it: the latest, but a failure or an error is never taken
    back (the plugin's own rule for its report, `_Recorder.set`)."""
    found: dict[str, str] = {}
    for test, outcome in stream.outcomes:
        if found.get(test) not in FAILING:
            found[test] = outcome
    return found


def witnessed(stream: Streamed) -> dict[str, str]:
    """`replayed`, each test a worker crashed in failed: xdist reports it failed, and nothing said of it
    after (a rerun, a pass the report was made into) takes that back."""
    found = replayed(stream)
    for _, test in stream.crashes:
        if found.get(test) not in FAILING:  # an error streamed first stays one, as the plugin keeps it
            found[test] = "failed"
    return found


def crashed(streams: Sequence[Streamed]) -> set[tuple[str, str]]:
    """The xdist workers whose run's own stream (its controller's, which saw them go down) says they
    crashed, by their report and name: a crashed worker's stream has no end mark, through no fault of the
    run's. A worker's own stream cannot say it (it is what crashed)."""
    return {(s.report, w) for s in streams if not s.worker for w, how in s.down if how == "crashed"}


def merged(reports: Sequence[Reported], streams: Sequence[Streamed] | None, *, selected: bool) -> TestRun:
    """The check's tests from its report files and, where the gate's socket heard the run (`streams` not
    None, even empty), what its tests streamed: the streamed outcomes, the runner's parts named in either,
    finished only where both say so, and `disagrees` saying why the reports are no evidence when they
    tell another story. `selected`: the gate asked for a selection; the run is a subset only when every
    report says it kept to it."""
    outcomes: dict[str, TestOutcome] = {}
    finished, only = True, selected
    patched: set[str] = set()
    for report in reports:
        finished = finished and report.finished
        only = only and report.only
        patched.update(report.patched)
        outcomes.update(report.outcomes)
    disagrees = ""
    if streams is not None:
        disagrees = disagreement(reports, streams)
        down = crashed(streams)
        finished = finished and all(s.ended or (s.report, s.worker) in down for s in streams)
        # Every stream replayed as one: a failure streamed in any run of the check, or on any connection
        # (a second one for the same report is forged), is never taken back by another; nor is a crash.
        whole = Streamed(
            "",
            tuple(pair for s in streams for pair in s.outcomes),
            crashes=tuple(pair for s in streams for pair in s.crashes),
        )
        outcomes = {t: outcome_of(o) for t, o in witnessed(whole).items() if o in OUTCOMES}
        patched.update(p for s in streams for p in s.patched)
    return TestRun(
        "pytest report",
        "pytest",
        tuple(outcomes.items()),
        True,
        finished=finished,
        subset=only,
        patched=tuple(sorted(patched)),
        disagrees=disagrees,
    )


def disagreement(reports: Sequence[Reported], streams: Sequence[Streamed]) -> str:
    """Why `reports` are no evidence against the `streams` the gate heard for them ("" when they agree):
    `DISAGREES`, then what differs first."""
    why = _why(reports, streams)
    return f"{DISAGREES}: {why}" if why else ""


# Each stream by the report it is for and the worker of that report's run that sent it ("": the run's own).
_BySender = dict[tuple[str, str], list[Streamed]]


def _why(reports: Sequence[Reported], streams: Sequence[Streamed]) -> str:
    by_sender: _BySender = {}
    for stream in streams:
        by_sender.setdefault((stream.report, stream.worker), []).append(stream)
    if any(s.garbled or any(o not in OUTCOMES for _, o in s.outcomes) for s in streams):
        return "a line of its stream is no outcome the plugin sends"
    if any(len(found) > 1 for found in by_sender.values()):
        return "more than one stream is for the same report"
    written = {r.path for r in reports}
    if any(path not in written for path, _ in by_sender):
        return "a stream's report is gone"
    started = _started(reports, by_sender)
    for report in reports:
        why = _run_against(report, by_sender, started[report.path])
        if why:
            return why
    unknown = [worker for path, worker in by_sender if worker and worker not in started.get(path, ())]
    if unknown:
        return f"a stream is for a worker its run never started: {_shown(unknown)}"
    return ""


def _started(reports: Sequence[Reported], by_sender: _BySender) -> dict[str, list[str]]:
    """The xdist workers each report's run started, as the report or the run's own stream says."""
    found = {}
    for report in reports:
        own = by_sender.get((report.path, ""), [])
        found[report.path] = list(dict.fromkeys((*report.workers, *(w for s in own for w in s.workers))))
    return found


def _run_against(report: Reported, by_sender: _BySender, workers: Sequence[str]) -> str:
    """How one report differs from its run's streams: its own, and those of the workers it started."""
    found = by_sender.get((report.path, ""))
    if not found:
        return "it was written with no stream"
    return _against(report, found[0]) or _workers_against(report, workers, by_sender)


def _workers_against(report: Reported, workers: Sequence[str], by_sender: _BySender) -> str:
    """How the streams of the xdist workers a report's run started fall short ("" when they do not): a
    worker that never streamed ran its tests unseen (crashed or not: its tests' outcomes were never
    witnessed where they ran), one whose stream never ended (the run finished) stopped being seen on the
    way, unless the run's own stream says it crashed (what it streamed before stands, the test it crashed
    in is failed, the rest xdist ran again on the worker it started in its place, streamed as any)."""
    missing = [w for w in workers if (report.path, w) not in by_sender]
    if missing:
        return f"no stream came from {plural(len(missing), 'worker')} of its run: {_shown(missing)}"
    down = crashed(by_sender.get((report.path, ""), []))
    unended = [
        w
        for w in workers
        if report.finished and not by_sender[(report.path, w)][0].ended and (report.path, w) not in down
    ]
    if unended:
        workers_of = plural(len(unended), "worker")
        return f"it says the run finished, and the stream of {workers_of} never did: {_shown(unended)}"
    return ""


def _against(report: Reported, stream: Streamed) -> str:
    """How one report differs from its stream ("" when it does not). A report that never finished holds
    no outcome of the plugin's (it writes them as the session ends): only those it names are compared."""
    if report.finished and not stream.ended:
        return "it says the run finished, and its stream never did"
    streamed = witnessed(stream)
    said = dict(report.outcomes)
    # A finished report that leaves out a failing test hides it as much as one that says it passed.
    missing = None if report.finished else "failed"
    hidden = [t for t, o in streamed.items() if o in FAILING and said.get(t, missing) not in FAILING]
    if hidden:
        return f"it has {_shown(hidden)} {_said(said, hidden[0])} where the stream has {streamed[hidden[0]]}"
    unseen = [t for t in said if t not in streamed]
    if unseen:
        return f"it names {plural(len(unseen), 'test')} the stream never had: {_shown(unseen)}"
    other = [t for t, o in said.items() if streamed[t] != o]
    if other:
        return f"it has {_shown(other)} {said[other[0]]} where the stream has {streamed[other[0]]}"
    left_out = [t for t in streamed if t not in said] if report.finished else []
    if left_out:
        return f"it leaves out {plural(len(left_out), 'test')} the stream had: {_shown(left_out)}"
    return ""


def _said(said: dict[str, TestOutcome], test: str) -> str:
    return said.get(test) or "left out"


def _shown(tests: Sequence[str]) -> str:
    # Test names are the agent's to choose: each kept on tiergate's line.
    return listed(tests, NAMES_SHOWN, each=quote_inline)
