"""The gate's verdict: the checks' results and the baseline in; refuted or not, and why.

A failing check refutes the claim unless it failed the same way when the loop began; a check that shows
nothing (timed out, could not run, ran no test) and a broken test contract are never excused. The rules,
case by case, are in docs/judging.md, "The ruling, check by check". Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tiergate.frozen import frozen
from tiergate.gate import verdicttext
from tiergate.gate.checks import COMPILE_STAGE, CheckResult
from tiergate.gate.failures import Failure
from tiergate.gate.output import OutputSummary, summarize
from tiergate.gate.pertest.basetests import (
    BaseTestFailure,
    base_test_failures,
    comparable,
    whole_check_failure,
)
from tiergate.gate.pertest.lost import LostTest, lost_tests, unreported
from tiergate.gate.pertest.order import OrderFailure
from tiergate.gate.pertest.order import reason as order_reason
from tiergate.gate.pertest.record import FAILING, TestRun
from tiergate.gate.standing import (
    CANNOT_RUN,
    DISAGREEING,
    LOST_SHOWN,
    NEVER_EXCUSED,
    NO_BASELINE,
    NO_TESTS,
    RESHAPED_CHARS,
    UNFINISHED,
    BaselineEntry,
    CheckVerdict,
    Reshaped,
)
from tiergate.text import clip, more_than, plural
from tiergate.tier.coverage.lines import GateCoverage

if TYPE_CHECKING:
    from tiergate.gate.verdicttext import Against


@frozen
class GateResult:
    verdicts: tuple[CheckVerdict, ...]
    fingerprint: str | None  # the workspace the results are for; None outside git
    reused: bool  # the results come from an earlier run on this same workspace
    workspace_changed: bool = False  # running the checks changed the workspace (so nothing was kept)
    coverage: GateCoverage | None = None  # the change's line coverage, measured with the tests

    @property
    def refuted(self) -> bool:
        return any(v.standing == "new" for v in self.verdicts)

    @property
    def new_failures(self) -> tuple[CheckVerdict, ...]:
        return tuple(v for v in self.verdicts if v.standing == "new")

    @property
    def pre_existing(self) -> tuple[CheckVerdict, ...]:
        return tuple(v for v in self.verdicts if v.standing == "pre-existing")

    @property
    def read_outside(self) -> tuple[str, ...]:
        """What the checks read outside the claim's copy (`tiergate.gate.imported`), as THOROUGH reasons."""
        return tuple(dict.fromkeys(r for v in self.verdicts for r in v.result.read_outside))

    @property
    def lost_passing(self) -> tuple[tuple[str, LostTest], ...]:
        """(check name, test) of each test that passed when the loop began and does not run now."""
        return tuple((v.result.name, t) for v in self.verdicts for t in v.lost if not t.failed_then)

    @property
    def base_test_failures(self) -> tuple[tuple[str, BaseTestFailure], ...]:
        """(check name, test) of each test of the base failing on this code with its own tests that does
        not refute: the claim's tier is THOROUGH, and the verifier decides from the task."""
        return tuple((v.result.name, f) for v in self.verdicts for f in v.base_tests if not f.refutes)

    @property
    def base_test_runs(self) -> dict[str, TestRun]:
        """Each test check's tests in its run with the base's tests, by check key."""
        runs = {v.result.key: v.with_base.tests for v in self.verdicts if v.with_base is not None}
        return {key: tests for key, tests in runs.items() if tests is not None}

    @property
    def reasons(self) -> tuple[str, ...]:
        if not self.verdicts:
            return ("no checks: none configured and none detected",)
        return tuple(f"{verdicttext.label(v.result)}: {v.standing}: {v.reason}" for v in self.verdicts)

    def report_text(self, limit: int = verdicttext.REPORT_LIMIT, against: Against | None = None) -> str:
        """The failing checks and what helps in their output: for the Stop's block reason, or, with
        `against`, for a person running `tiergate checks` (no claim, maybe no loop)."""
        return verdicttext.report(self.verdicts, self.reused, limit, against)

    def packet_lines(self) -> tuple[str, ...]:
        """The CHECKS section of a verifier's evidence packet."""
        return verdicttext.packet(self.verdicts, self.reused, self.fingerprint)

    def failing_then(self) -> tuple[str, ...]:
        """Each check failing as at the baseline, named with its failing tests, for the tier rule that
        keeps such a claim off LIGHT (`tiergate.tier.policy`)."""
        return tuple(verdicttext.failing_then(v) for v in self.pre_existing)

    def lead_lines(self) -> tuple[str, ...]:
        """What leads a verifier's packet: the checks that still fail as when the loop began (none: ())."""
        return verdicttext.lead(self.verdicts)

    def tests_lines(self, base_tests: Mapping[str, TestRun] | None = None) -> tuple[str, ...]:
        """The TESTS section of a verifier's packet: per test check, its counts at the base and at the
        claim and the tests lost since; with `base_tests` (by check key: the base's test files run
        against the claimed code), that run's counts and failures too."""
        return verdicttext.tests_section(self.verdicts, base_tests or {})

    def to_dict(self) -> dict[str, Any]:
        return {
            "refuted": self.refuted,
            "reused": self.reused,
            "fingerprint": self.fingerprint,
            "workspace_changed": self.workspace_changed,
            "checks": [_verdict_dict(v) for v in self.verdicts],
            **({} if self.coverage is None else {"coverage": self.coverage.summary()}),
        }


def judge(
    results: Sequence[CheckResult],
    baseline: Mapping[str, BaselineEntry],
    *,
    strict: Collection[str] = (),
    with_base: Mapping[str, CheckResult] | None = None,
    refute_regressions: bool = False,
    out_of_order: Mapping[str, Sequence[OrderFailure]] | None = None,
) -> GateResult:
    """The gate's verdict on `results`, against the baseline's results by check key. The checks
    whose keys are in `strict` are never excused by the baseline (an autopilot's acceptance checks:
    at the base their feature does not exist yet, so they fail there). `with_base`: test checks' runs
    on this code with the base's tests, by key; `refute_regressions`: `[gate] base_tests = "refute"`;
    `out_of_order`: the tests the task is about that pass only in the suite's order, by key
    (`tiergate.gate.pertest.order`)."""
    restored = with_base or {}
    ordered = out_of_order or {}
    verdicts = tuple(
        against_order(
            against_base(
                compare(
                    result,
                    None if result.key in strict else baseline.get(result.key),
                    strict=result.key in strict,
                ),
                None if result.key in strict else baseline.get(result.key),
                restored.get(result.key),
                refute_regressions=refute_regressions,
            ),
            ordered.get(result.key, ()),
        )
        for result in results
    )
    return GateResult(verdicts, None, False)


def against_order(verdict: CheckVerdict, found: Sequence[OrderFailure]) -> CheckVerdict:
    """`verdict`, new when some test the task is about passes only in the suite's order."""
    if not found or verdict.standing == "new":
        return verdict
    named = tuple(dict.fromkeys(f.test for f in found))
    return replace(verdict, standing="new", new_tests=named, reason=order_reason(found))


def new_compile_failures(
    results: Sequence[CheckResult], baseline: Mapping[str, BaselineEntry], strict: Collection[str] = ()
) -> bool:
    """Whether the compile stage has a new failure: then the behaviour stage is not run."""
    return any(
        compare(r, baseline.get(r.key), strict=r.key in strict).standing == "new"
        for r in results
        if r.stage == COMPILE_STAGE
    )


def against_base(
    verdict: CheckVerdict,
    before: BaselineEntry | None,
    with_base: CheckResult | None,
    *,
    refute_regressions: bool = False,
) -> CheckVerdict:
    """`verdict` with what the check's run with the base's tests shows (`tiergate.gate.pertest.basetests`): a
    test the change made pass by editing it makes it new."""
    if with_base is None:
        return verdict
    result = verdict.result
    found = _base_findings(result, before, with_base, refute_regressions)
    edited = tuple(f for f in found if f.refutes)
    if edited and verdict.standing != "new":
        summary = summarize(result.output) if result.failing else _EMPTY
        named = tuple(f.test for f in edited if f.test)
        reason = _edited_reason(edited)
        verdict = replace(verdict, standing="new", summary=summary, new_tests=named, reason=reason)
    return replace(verdict, with_base=with_base, base_tests=found)


def _base_findings(
    result: CheckResult, before: BaselineEntry | None, with_base: CheckResult, refute: bool
) -> tuple[BaseTestFailure, ...]:
    """What the check's run with the base's tests shows; nothing when that run shows nothing (it timed
    out, could not run, ran no test)."""
    if with_base.status not in ("passed", "failed"):
        return ()
    base = None if before is None else before.result.tests
    summary = summarize(with_base.output)
    if comparable(base, result.tests, with_base.tests):
        messages = _messages(with_base.tests, summary)
        return base_test_failures(base, result.tests, with_base.tests, messages, refute_regressions=refute)
    lines = "; ".join(f.describe() for f in summary.failures[:3]) or with_base.reason
    found = whole_check_failure(
        before is not None and before.result.status == "passed",
        result.status == "passed",
        with_base.status == "failed",
        clip(lines, RESHAPED_CHARS, "..."),
        refute_regressions=refute,
    )
    return () if found is None else (found,)


def _messages(tests: TestRun | None, summary: OutputSummary) -> dict[str, str]:
    """Each failing test's message in `summary`, by the id its record gives it (an output may name a
    node test by its own name only)."""
    named = {f.test: f for f in summary.failures if f.test}
    found = {}
    for test in () if tests is None else tests.named(FAILING):
        failure = named.get(test) or named.get(test.rpartition(" > ")[2])
        if failure is not None and failure.line:
            found[test] = clip(failure.describe(), RESHAPED_CHARS, "...")
    return found


def _edited_reason(edited: Sequence[BaseTestFailure]) -> str:
    names = ", ".join(f.test for f in edited[:LOST_SHOWN] if f.test) or "the check as a whole"
    more = more_than(len(edited), LOST_SHOWN)
    verb = "fails" if len(edited) == 1 else "fail"
    return (
        f"{plural(len(edited), 'test')} the loop began with {verb} on this code as written then, and not "
        f"with the tests as the change edited them: {names}{more}"
    )


def compare(result: CheckResult, before: BaselineEntry | None, *, strict: bool = False) -> CheckVerdict:
    then = None if before is None else before.result.tests
    failed_then = None if before is None else before.result.failing
    return replace(_compare(result, before, then, strict=strict), failed_then=failed_then, then=then)


def _compare(
    result: CheckResult, before: BaselineEntry | None, then: TestRun | None, *, strict: bool
) -> CheckVerdict:
    lost = lost_tests(then, result.tests)
    broken = _contract_broken(result, then, lost)
    if broken is not None:
        return broken
    if not result.failing:
        passed = result.status == "passed"
        why = "passed" if passed else result.reason
        return CheckVerdict(result, "passed" if passed else "skipped", _EMPTY, (), why, lost=lost)
    return _failing(result, before, lost, strict=strict)


def _failing(
    result: CheckResult, before: BaselineEntry | None, lost: tuple[LostTest, ...], *, strict: bool
) -> CheckVerdict:
    """`compare` for a failing check: new, or pre-existing as at the baseline."""
    summary = _EMPTY if result.could_not_run else summarize(result.output)
    failing = summary.failed_tests
    shows_nothing = _shows_nothing(result)
    if shows_nothing:
        return CheckVerdict(result, "new", summary, failing, shows_nothing, lost=lost)
    if result.tests is not None and result.tests.subset:
        # A first pass stands in for its check only where its own comparison with the base refutes
        # (`tiergate.gate.firstpass`): its reason names the tests that fail now and did not then.
        return CheckVerdict(result, "new", summary, failing, result.reason, lost=lost)
    if strict:
        return CheckVerdict(result, "new", summary, failing, NEVER_EXCUSED, lost=lost)
    if before is None:
        return CheckVerdict(result, "new", summary, failing, NO_BASELINE, lost=lost)
    earlier_summary = summarize(before.result.output) if before.result.failing else _EMPTY
    earlier = earlier_summary.failed_tests
    reshaped = _reshaped(summary, earlier_summary) if before.result.status == result.status else ()
    why_new = _why_new(result, before.result, earlier, failing, reshaped)
    if why_new is not None:
        new = tuple(r.test for r in reshaped if r.test)
        return CheckVerdict(result, "new", summary, new or failing, why_new, reshaped, lost=lost)
    detail = "the same failing tests or fewer, failing the same way" if failing else _NO_NAMES
    reason = f"failed at the baseline too ({detail}; {_WHERE_TEXT[before.where]})"
    return CheckVerdict(result, "pre-existing", summary, (), reason, lost=lost)


def _contract_broken(
    result: CheckResult, then: TestRun | None, lost: Sequence[LostTest]
) -> CheckVerdict | None:
    """The verdict on a check whose tests broke the loop's test contract (a test that failed when the
    loop began lost, or the runner's report gone since the base); None when they kept it."""
    silent = unreported(then, result.tests) if result.status in ("passed", "failed") else ""
    if not silent and not any(t.failed_then for t in lost):
        return None
    summary = summarize(result.output) if result.failing else _EMPTY
    named = tuple(t.test for t in lost if t.failed_then)
    return CheckVerdict(result, "new", summary, named, silent or _lost_reason(lost), lost=tuple(lost))


def _lost_reason(lost: Sequence[LostTest]) -> str:
    failed = [t for t in lost if t.failed_then]
    shown = "; ".join(t.text() for t in failed[:LOST_SHOWN])
    more = more_than(len(failed), LOST_SHOWN)
    return f"lost, not fixed, {plural(len(failed), 'test')} that failed when the loop began: {shown}{more}"


def _shows_nothing(result: CheckResult) -> str:
    """Why a failing check is no evidence at all, whatever the baseline ("" when it is some)."""
    if result.status == "no_tests":
        return NO_TESTS
    if result.could_not_run:
        return CANNOT_RUN
    # Its output may be the forger's too (failing just as at the base): the disagreement is the finding.
    if result.tests is not None and result.tests.disagrees:
        return DISAGREEING
    return UNFINISHED if result.status == "timed_out" else ""


def _why_new(
    now: CheckResult,
    then: CheckResult,
    earlier: Sequence[str],
    failing: Sequence[str],
    reshaped: Sequence[Reshaped],
) -> str | None:
    """Why a failing check's failure is new against its baseline result; None if it is the same one."""
    if not then.failing:
        return f"{then.status} at the baseline"
    if then.status != now.status:
        return f"fails differently: {then.reason} at the baseline"
    if (now.exit_code == 0) != (then.exit_code == 0):
        return (
            f"fails differently: {now.reason}; exit {then.exit_code} at the baseline (its exit status masked)"
        )
    if earlier and not failing:
        return "fails differently: it named failing tests at the baseline and names none now"
    if reshaped:
        return _reshaped_reason(reshaped)
    return None


def _reshaped(now: OutputSummary, then: OutputSummary) -> tuple[Reshaped, ...]:
    """The failures in `now` that `then` (the baseline's output) did not have, the same way."""
    if not now.failed_tests:
        # Neither names tests (else _why_new has spoken): compare the sets of failure lines.
        return tuple(
            Reshaped("", f, None) for f in now.failures if not any(f.same_as(g) for g in then.failures)
        )
    # A test whose output carries no message has an empty one: two of those are the same.
    current = {t: Failure(t, "failed", "", "") for t in now.failed_tests} | {f.test: f for f in now.failures}
    earlier = {t: Failure(t, "failed", "", "") for t in then.failed_tests} | {
        f.test: f for f in then.failures
    }
    found = []
    for test in now.failed_tests:
        was = earlier.get(test)
        if was is None or not current[test].same_as(was):
            found.append(Reshaped(test, current[test], was))
    return tuple(found)


def _reshaped_reason(reshaped: Sequence[Reshaped]) -> str:
    if not reshaped[0].test:
        return f"{plural(len(reshaped), 'error line')} not in the baseline's output"
    fresh = sum(r.was is None for r in reshaped)
    other = len(reshaped) - fresh
    parts = [f"{plural(fresh, 'failing test')} not failing at the baseline"] if fresh else []
    if other:
        verb = "fails" if other == 1 else "fail"
        parts.append(f"{plural(other, 'failing test')} that {verb} otherwise than at the baseline")
    return ", ".join(parts)


_NO_NAMES = "its output names no tests to compare, and no error line the baseline did not have"
_EMPTY = OutputSummary((), (), ())
_WHERE_TEXT = {
    "workspace": "baseline run in the workspace",
    "worktree": "baseline run in a worktree of the base",
}


def _verdict_dict(v: CheckVerdict) -> dict[str, Any]:
    r = v.result
    return {
        "name": r.name,
        "command": r.command,
        "kind": r.kind,
        "stage": r.stage,
        "status": r.status,
        "exit_code": r.exit_code,
        "duration": round(r.duration, 3),
        "reason": r.reason,
        "standing": v.standing,
        "why": v.reason,
        "failed_tests": list(v.summary.failed_tests),
        "new_tests": list(v.new_tests),
        "new_failures": [r.text() for r in v.reshaped],
        "output_lines": list(v.summary.lines),
        "output_bytes": r.output_bytes,
        **({} if r.tests is None else {"tests": r.tests.describe_counts(), "tests_from": r.tests.source}),
        **({"lost_tests": [t.text() for t in v.lost]} if v.lost else {}),
        **({} if v.with_base is None else {"with_base_tests": v.with_base.status}),
        **({"base_tests": [f.text() for f in v.base_tests]} if v.base_tests else {}),
    }
