"""A completed task's step claim: what the gate's result shows broken since the loop began, and only that.

Tests that failed when the loop began are the loop's remaining work, and a later step's test may fail
already; a step may not break what worked: a test or check that passed then and fails (or cannot run) now,
a test lost. A check that did not finish, or has no result from the loop's start, refuses nothing. See
docs/judging.md, "A completed task is a step claim". Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from tiergate.frozen import frozen
from tiergate.gate.checks import CheckResult
from tiergate.gate.pertest.lost import unreported
from tiergate.gate.pertest.record import FAILING, RAN, TestRun
from tiergate.gate.ruling import GateResult
from tiergate.gate.standing import LOST_SHOWN, CheckVerdict
from tiergate.text import DETAIL_INDENT, brief, clip, fit, plural, quote_inline

REFUSAL_LIMIT = 4000
FAILURE_CHARS = 200
TASK_CHARS = 80
PASSED_FAILS = "passed when the loop began and fails now"
NOT_COMPARED = (
    "the check passed when the loop began and fails now; its runs could not be compared test by test"
)
HIDDEN = (
    "passed when the loop began and fails on this code with the tests as they were then "
    "(a test edit hides it)"
)
NOT_EVIDENCE = "it shows nothing either way, and tiergate never refuses a task for its own lack of time"
NO_BASELINE = "no-baseline: "
HUNG = "runs past its whole timeout now (a hang or a slowdown the change brought, refused as at a claim)"
DONE_FEATURE = "a done feature's acceptance check: it passed when that feature was accepted and fails now"
WHAT_TO_DO = (
    "The task stays open: fix what it broke, then mark it completed again. The tests that failed when the "
    "loop began are the rest of the loop's work and do not block a task; nor does a test written for a "
    "later step."
)


@frozen
class Regression:
    """Something that worked when the loop began and does not now."""

    check: str  # the check's name
    test: str  # the test's id; "" for the check as a whole
    what: str  # what became of it since the loop began (the rule)
    now: str = ""  # how it fails now, as its output says ("" when it says nothing)

    def text(self) -> str:
        """One line naming the check and the test; every piece but the rule is quoted (the agent can
        write check names, test names and output)."""
        test = f" {quote_inline(self.test)}" if self.test else ""
        now = f": {quote_inline(clip(self.now, FAILURE_CHARS, '...'))}" if self.now else ""
        return f"check {quote_inline(self.check)}:{test} {self.what}{now}"


@frozen
class StepRuling:
    """The regressions a completed task brought (none: it is accepted), and what else the gate showed
    that refuses nothing: checks that did not finish, checks without a result from when the loop began,
    the loop's remaining work, tests new since then."""

    regressions: tuple[Regression, ...]
    notes: tuple[str, ...]
    unfinished: tuple[str, ...] = ()  # the checks that did not finish, each named with why (the user is told)

    @property
    def refused(self) -> bool:
        return bool(self.regressions)

    @property
    def uncompared(self) -> tuple[str, ...]:
        """The notes of checks that fail now with no result from when the loop began to compare."""
        return tuple(note for note in self.notes if note.startswith(NO_BASELINE))

    @property
    def reasons(self) -> tuple[str, ...]:
        """The decision log's reasons: the verdict first, each regression, then the notes."""
        if self.refused:
            head = f"task-refused: {plural(len(self.regressions), 'regression')} since the loop began"
        elif self.uncompared:
            head = (
                "task-accepted: nothing shown broken, but some checks could not be compared with the "
                "base; the loop's claim judges them"
            )
        else:
            head = "task-accepted: nothing that worked when the loop began is broken"
        return (head, *(f"regression: {r.text()}" for r in self.regressions), *self.notes)


def judge_step(
    result: GateResult, *, held: Collection[str] = (), remaining: Collection[str] = ()
) -> StepRuling:
    """The step's ruling on the gate's `result`. `held`: keys of checks that must keep passing though no
    baseline excuses them (an autopilot's done features' acceptance checks); `remaining`: keys of checks
    that are the loop's work (the current feature's acceptance checks), which refuse nothing."""
    found: list[Regression] = []
    notes: list[str] = []
    unfinished: list[str] = []
    if not result.verdicts:
        notes.append("no-checks: none configured and none detected: nothing to compare")
    for verdict in result.verdicts:
        key = verdict.result.key
        if verdict.result.out_of_time:
            unfinished.append(_named(verdict.result))
            continue
        if verdict.result.status == "timed_out":
            hung, said = _hung(verdict)
            found += hung
            notes += said
            continue
        if verdict.result.status == "skipped":
            notes.append(f"not-run: {_named(verdict.result)}: it shows nothing either way")
            continue
        if key in remaining:
            if verdict.result.failing:
                notes.append(
                    f"remaining-work: {_name(verdict)}: the current feature's acceptance check fails"
                )
            continue
        if key in held:
            found += _held(verdict)
            continue
        regressions, said = _check(verdict)
        found += regressions
        notes += said
    unfinished_notes = tuple(f"not-evidence: {line} did not finish: {NOT_EVIDENCE}" for line in unfinished)
    return StepRuling(tuple(found), (*unfinished_notes, *notes), tuple(unfinished))


def _hung(v: CheckVerdict) -> tuple[list[Regression], list[str]]:
    """A check that ran past its own whole timeout (not the gate's budget: `out_of_time`): a hang or a
    slowdown the change brought refuses, as at a claim, unless the check failed when the loop began."""
    if v.failed_then:
        return [], [f"remaining-work: {_name(v)} failed when the loop began and does not finish now"]
    return [Regression(v.result.name, "", HUNG, v.result.reason)], []


def _check(v: CheckVerdict) -> tuple[list[Regression], list[str]]:
    """One check's regressions, and what it shows that refuses nothing."""
    r = v.result
    if r.could_not_run:
        return _cannot_run(v), []
    found = _lost(v) + _hidden(v)
    silent = unreported(v.then, r.tests)
    if silent:
        # Its runner's report at the base and none now: which tests ran cannot be told.
        found.append(Regression(r.name, "", silent))
    if r.status != "failed":
        return found, []
    failing, notes = _failing(v, compared=not silent)
    return found + failing, notes


def _failing(v: CheckVerdict, *, compared: bool) -> tuple[list[Regression], list[str]]:
    """A check that fails now: test by test where its runs compare, else as a whole (`compared`: whether
    they may be compared at all)."""
    if v.failed_then is None:
        return [], [f"{NO_BASELINE}{_name(v)} fails now, with no result from when the loop began to compare"]
    then, now = v.then, v.result.tests
    if compared and then is not None and now is not None and _comparable(then, now):
        return _by_test(v, then, now)
    if v.failed_then:
        return [], [f"remaining-work: {_name(v)} failed when the loop began and fails now"]
    return (_whole_check(v) if compared else []), []


def _cannot_run(v: CheckVerdict) -> list[Regression]:
    """A check that cannot run now, or ran no test: a regression when it ran when the loop began (its
    lost tests named, when its runs compare test by test)."""
    r = v.result
    ran_then = v.failed_then is False or (v.then is not None and v.then.ran > 0)
    if not ran_then:
        return []
    lost = _lost(v)
    if lost:
        return lost
    then = "passed" if v.failed_then is False else f"ran {plural(v.then.ran if v.then else 0, 'test')}"
    now = "runs no test now" if r.status == "no_tests" else "cannot run now"
    return [Regression(r.name, "", f"{then} when the loop began and {now}", r.reason)]


def _lost(v: CheckVerdict) -> list[Regression]:
    """Each test that ran when the loop began and does not now, whether it passed or failed then."""
    return [Regression(v.result.name, t.test, t.text().removeprefix(f"{t.test}: ")) for t in v.lost]


def _hidden(v: CheckVerdict) -> list[Regression]:
    """Each test of the base that passed then and fails on this code with the tests as they were: a
    regression that the edited tests hide (`tiergate.gate.pertest.basetests`)."""
    hidden = [f for f in v.base_tests if f.was is not None and f.was not in FAILING]
    return [Regression(v.result.name, f.test, HIDDEN, f.failure) for f in hidden]


def _by_test(v: CheckVerdict, then: TestRun, now: TestRun) -> tuple[list[Regression], list[str]]:
    """A failing check whose runs compare test by test: each test that passed then and fails now."""
    before, messages = then.by_test, _failures(v)
    found, still, fresh = [], 0, 0
    for test in now.named(FAILING):
        was = before.get(test)
        if was in RAN and was not in FAILING:
            found.append(Regression(v.result.name, test, PASSED_FAILS, messages(test)))
        elif was in FAILING:
            still += 1
        else:
            fresh += 1
    if not now.failing and v.failed_then is False:
        # Nothing to put it on: the check as a whole broke (a failure outside every test).
        found.append(Regression(v.result.name, "", PASSED_FAILS + ", naming no failing test", _first(v)))
    notes = []
    if still:
        notes.append(
            f"remaining-work: {_name(v)}: {plural(still, 'test')} that failed when the loop began "
            f"{'fails' if still == 1 else 'fail'} still (the same way or not)"
        )
    if fresh:
        notes.append(
            f"new-tests: {_name(v)}: {plural(fresh, 'test')} new since the loop began "
            f"{'fails' if fresh == 1 else 'fail'} (a later step's, written first)"
        )
    return found, notes


def _whole_check(v: CheckVerdict) -> list[Regression]:
    """A check that passed when the loop began and fails now, not comparable test by test: each failing
    test its output names, else the check itself."""
    named = v.summary.failed_tests
    messages = _failures(v)
    if named and v.result.kind == "tests":
        shown = [Regression(v.result.name, test, NOT_COMPARED, messages(test)) for test in named[:LOST_SHOWN]]
        if len(named) > LOST_SHOWN:
            more = f"and {plural(len(named) - LOST_SHOWN, 'more failing test')}: {NOT_COMPARED}"
            shown.append(Regression(v.result.name, "", more))
        return shown
    return [Regression(v.result.name, "", "passed when the loop began and fails now", _first(v))]


def _held(v: CheckVerdict) -> list[Regression]:
    """A done feature's acceptance check: it must keep passing."""
    r = v.result
    if not r.failing:
        return []
    return [Regression(r.name, "", DONE_FEATURE, _first(v) or r.reason)]


def _comparable(then: TestRun, now: TestRun) -> bool:
    """Whether two records of a check's tests can be compared test by test (`tiergate.gate.pertest.lost`)."""
    return then.complete and now.complete and then.finished and now.finished and then.naming == now.naming


def _failures(v: CheckVerdict) -> Callable[[str], str]:
    """How each test fails now, by the id its record gives it (an output may name a node test by its
    own name only); "" when the output does not say."""
    named = {f.test: f for f in v.summary.failures if f.test}

    def how(test: str) -> str:
        failure = named.get(test) or named.get(test.rpartition(" > ")[2])
        return "" if failure is None or not failure.line else failure.describe()

    return how


def _first(v: CheckVerdict) -> str:
    """The first failure line its output shows, or the check's reason."""
    if v.summary.failures:
        return v.summary.failures[0].describe()
    return v.summary.lines[0] if v.summary.lines else v.result.reason


def _name(v: CheckVerdict) -> str:
    return f"check {quote_inline(v.result.name)}"


def _named(r: CheckResult) -> str:
    """A check that did not run to its end, named with why."""
    return f"check {quote_inline(r.name)} ({quote_inline(r.reason)})"


def refusal(task_id: str, subject: str, ruling: StepRuling) -> str:
    """What the model reads when its task's completion is refused: the task, each regression, what to do;
    within `REFUSAL_LIMIT` characters (the regressions' lines are what is cut, counted)."""
    named = (
        f'task #{quote_inline(task_id)} ("{brief(subject, TASK_CHARS)}")'
        if subject
        else f"task #{quote_inline(task_id)}"
    )
    count = len(ruling.regressions)
    lines = [
        f"tiergate refused to mark {named} completed: it broke what worked when the loop began "
        f"({plural(count, 'regression')}, from tiergate's own run of the project's checks against the "
        "loop's base).",
        *_listed(ruling.regressions),
    ]
    if ruling.unfinished:
        lines.append("These checks did not finish, so they show nothing either way:")
        lines += [f"{DETAIL_INDENT}- {line}" for line in ruling.unfinished]
    lines.append(WHAT_TO_DO)
    return fit("\n".join(lines), REFUSAL_LIMIT)


def _listed(regressions: Sequence[Regression]) -> list[str]:
    return [f"{DETAIL_INDENT}- {r.text()}" for r in regressions]


def unfinished_notice(task_id: str, ruling: StepRuling) -> str:
    """The user's line when a task was accepted while some check did not finish or could not be compared
    with the base ("" when every one was judged)."""
    said = []
    if ruling.unfinished:
        said.append(f"{'; '.join(ruling.unfinished)} did not finish: {NOT_EVIDENCE}")
    if ruling.uncompared:
        said.append(
            "some checks could not be compared with the base (no result from when the loop began): the "
            "loop's claim judges them"
        )
    if not said:
        return ""
    return f"tiergate: task #{quote_inline(task_id)} was accepted, but " + "; and ".join(said)
