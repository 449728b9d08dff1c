"""The deterministic gate's verdict: the checks' results and the baseline in; refuted or not, and why.

A failing check refutes the claim unless the same failure already existed when the loop began:

    passed                          not held against the claim
    not run (skipped)               not held against it either: the compile stage failed first, and
                                    that failure is what refutes
    timed out                       new, whatever the baseline: a check that did not finish shows
                                    nothing either way
    could not run                   new, whatever the baseline: its program is missing or not
                                    executable (or the shell could not start), so it shows nothing;
                                    not running at the base either excuses nothing
    failing, no baseline result     new: nothing says it failed before
    failing, passed at the baseline new
    failing differently             new: another status (timed out then, a failure now), or
                                    the output named failing tests then and names none now
    failing, with tests not failing new: those tests are the new failures (A, B then; A, B, C now: C)
    at the baseline
    failing, with a test failing    new: a test that failed then, but not the same way (an
    another way                     AssertionError now, a NotImplementedError at setup then): the
                                    change reshaped it, so the baseline does not excuse it
    failing, naming no tests, with  new: those lines are the new failures
    error lines not in the
    baseline's output
    failing as at the baseline      pre-existing: reported, does not refute (the same failing tests,
                                    each failing the same way, or an output that names no tests
                                    then and now, with no error line the baseline did not have)
    exiting 0 while failing now,    new: the exit status was masked since the loop began
    not at the baseline
    a test that failed at the base  new, whether the check passes or fails now: the test the loop
    is lost (`losttests`)           began with, failing, is deleted, skipped or filtered out, not fixed
    a test that passed at the base  not held against the claim here; the claim's tier is THOROUGH
    is lost                         and the verifier is told (`GateResult.lost_passing`)
    its runner's report at the base new: which tests ran cannot be told
    and none now
    a test that failed at the base  new: the change made it pass by editing it (`basetests`: when
    fails with the base's tests,    the change touches tests, the test checks run again on the
    and not with the change's       claimed code with the tests as they were)
    a test that passed at the base  not held against the claim here, unless `[gate] base_tests` is
    fails with the base's tests     "refute"; the claim's tier is THOROUGH and the verifier is told
                                    (`GateResult.base_test_failures`)

"The same way" is `tiergate.gate.output.Failure.same_as`: the same kind (a failure or an error, the
exception's type) and the same message or assertion line once addresses, durations, temporary paths
and line numbers are normalised away. Each new failure is reported with its failure now and what it
was at the baseline, first in its check's block.

Compile-stage checks (syntax, build) are reported as such, apart from behaviour failures. Everything a
person or a model reads is bounded: the Stop's block reason must stay under Claude Code's 10,000
characters, so `report_text` fits a limit and every check's output is trimmed to its failing tests and
assertion lines (`tiergate.gate.output`).

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from tiergate.frozen import frozen
from tiergate.gate.checks import COMPILE_STAGE, CheckResult
from tiergate.gate.output import Failure, OutputSummary, focus, summarize
from tiergate.gate.pertest.basetests import (
    BaseTestFailure,
    base_test_failures,
    comparable,
    whole_check_failure,
)
from tiergate.gate.pertest.lost import LostTest, lost_tests, unreported
from tiergate.gate.pertest.record import FAILING, RAN, TestRun
from tiergate.text import BLOCK_MARKER, clip, fit, plural, quote_inline
from tiergate.tier.coverage.lines import GateCoverage

Standing = Literal["passed", "new", "pre-existing", "skipped"]
Where = Literal["workspace", "worktree"]
REPORT_LIMIT = 6000
NO_BASELINE = "no baseline result to compare with"
NEVER_EXCUSED = "an acceptance or regression check: the baseline never excuses it"
UNFINISHED = "a check that did not finish shows nothing, so its timeout is never excused as pre-existing"
CANNOT_RUN = "a check that could not run shows nothing: it is never passed, nor excused as pre-existing"
NO_TESTS = "a test check that ran no test shows nothing: it is never passed, nor excused as pre-existing"
LOST_SHOWN = 10
NAMES_SHOWN = 10
RESHAPED_SHOWN = 10
RESHAPED_CHARS = 400
_MIN_BLOCK = 200


@frozen
class Against:
    """What `tiergate checks` compared the checks with, named for the person who ran it: the report the
    Stop gives Claude speaks of the claim and of when the loop began instead."""

    name: str  # "HEAD (1a2b3c4d5e6f)", "the loop's base (...)"; "" when there was nothing to compare with
    why_nothing: str = ""  # when `name` is empty: "the repository has no commits yet", ...


@frozen
class BaselineEntry:
    """A check's result when the loop began, and where it ran: in the workspace itself (it was at the
    base then), or in a temporary worktree of the base commit."""

    result: CheckResult
    where: Where


@frozen
class Reshaped:
    """A failure the baseline does not excuse: a test failing now that did not fail at the baseline
    (`was` None) or failed there another way, or (`test` empty) an error line new in an output that
    names no tests."""

    test: str
    now: Failure
    was: Failure | None

    def text(self) -> str:
        name = f"{self.test}: " if self.test else ""
        if self.was is None:
            then = "not failing at the baseline" if self.test else "not in the baseline's output"
        else:
            then = f"at the baseline: {self.was.describe()}"
        # The test's name and its messages are the output's: quoted, to stay on this one line.
        return quote_inline(f"{name}{self.now.describe()} now; {then}")


@frozen
class CheckVerdict:
    result: CheckResult
    standing: Standing
    summary: OutputSummary
    new_tests: tuple[str, ...]  # failing now and not at the baseline, or not the same way
    reason: str  # why it stands so, naming the rule
    reshaped: tuple[Reshaped, ...] = ()  # the new failures against a failing baseline, with what they were
    lost: tuple[LostTest, ...] = ()  # tests that ran at the baseline and do not now
    with_base: CheckResult | None = None  # its run on this code with the tests as at the base
    base_tests: tuple[BaseTestFailure, ...] = ()  # tests of the base failing in that run
    failed_then: bool | None = None  # whether the check failed at the baseline; None: no baseline result
    then: TestRun | None = None  # its tests at the baseline, when known

    @property
    def compile_stage(self) -> bool:
        return self.result.stage == COMPILE_STAGE

    @property
    def edited_to_pass(self) -> tuple[BaseTestFailure, ...]:
        """The base's tests whose run with their own tests refutes the claim."""
        return tuple(f for f in self.base_tests if f.refutes)

    @property
    def lost_failing(self) -> tuple[LostTest, ...]:
        return tuple(t for t in self.lost if t.failed_then)


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
        return tuple(f"{_label(v.result)}: {v.standing}: {v.reason}" for v in self.verdicts)

    def report_text(self, limit: int = REPORT_LIMIT, against: Against | None = None) -> str:
        """The failing checks and what helps in their output: for the Stop's block reason, or, with
        `against`, for a person running `tiergate checks` (no claim, maybe no loop)."""
        return _report(self, limit, against)

    def packet_lines(self) -> tuple[str, ...]:
        """The CHECKS section of a verifier's evidence packet."""
        return _packet(self)

    def failing_then(self) -> tuple[str, ...]:
        """Each check failing as at the baseline, named with its failing tests, for the tier rule that
        keeps such a claim off LIGHT (`tiergate.tier.policy`)."""
        return tuple(_failing_then(v) for v in self.pre_existing)

    def lead_lines(self) -> tuple[str, ...]:
        """What leads a verifier's packet: the checks that still fail as when the loop began (none: ())."""
        return _lead(self)

    def tests_lines(self, base_tests: Mapping[str, TestRun] | None = None) -> tuple[str, ...]:
        """The TESTS section of a verifier's packet: per test check, its counts at the base and at the
        claim and the tests lost since; with `base_tests` (by check key: the base's test files run
        against the claimed code), that run's counts and failures too."""
        return _tests_section(self, base_tests or {})

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
    fingerprint: str | None = None,
    reused: bool = False,
    workspace_changed: bool = False,
    strict: Collection[str] = (),
    with_base: Mapping[str, CheckResult] | None = None,
    refute_regressions: bool = False,
) -> GateResult:
    """The gate's verdict on `results`, against the baseline's results by check key. The checks
    whose keys are in `strict` are never excused by the baseline (an autopilot's acceptance checks:
    at the base their feature does not exist yet, so they fail there). `with_base`: test checks' runs
    on this code with the base's tests, by key; `refute_regressions`: `[gate] base_tests = "refute"`."""
    restored = with_base or {}
    verdicts = tuple(
        against_base(
            compare(
                result,
                None if result.key in strict else baseline.get(result.key),
                strict=result.key in strict,
            ),
            None if result.key in strict else baseline.get(result.key),
            restored.get(result.key),
            refute_regressions=refute_regressions,
        )
        for result in results
    )
    return GateResult(verdicts, fingerprint, reused, workspace_changed)


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
    more = f" (+{len(edited) - LOST_SHOWN} more)" if len(edited) > LOST_SHOWN else ""
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
    more = f" (+{len(failed) - LOST_SHOWN} more)" if len(failed) > LOST_SHOWN else ""
    return f"lost, not fixed, {plural(len(failed), 'test')} that failed when the loop began: {shown}{more}"


def _shows_nothing(result: CheckResult) -> str:
    """Why a failing check is no evidence at all, whatever the baseline ("" when it is some)."""
    if result.status == "no_tests":
        return NO_TESTS
    if result.could_not_run:
        return CANNOT_RUN
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


# Texts -----------------------------------------------------------------------------------------------------


def _title(v: CheckVerdict) -> str:
    r = v.result
    stage = "syntax/compile failure" if v.compile_stage else f"{r.kind} failure"
    return f"{_label(r)} [{stage}] {_command(r)}: {quote_inline(r.reason)} after {r.duration:.1f} s"


def _label(r: CheckResult) -> str:
    """A check's name as a text shows it: the project's configuration names it, and the agent can
    write that, so it is quoted like the rest."""
    return quote_inline(r.name)


def _command(r: CheckResult) -> str:
    return f"`{quote_inline(r.command)}`"


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(quote_inline(name) for name in names[:NAMES_SHOWN])
    return shown + (f" (+{len(names) - NAMES_SHOWN} more)" if len(names) > NAMES_SHOWN else "")


def _failure_block(v: CheckVerdict) -> list[str]:
    if v.edited_to_pass:
        return _edited_block(v)
    if v.lost_failing or (v.result.status == "passed" and v.standing == "new"):
        return _lost_block(v)
    if v.result.could_not_run:
        what = "NO EVIDENCE" if v.result.status == "no_tests" else "COULD NOT RUN"
        lines = [f"{what}: {_label(v.result)} {_command(v.result)}: {quote_inline(v.result.reason)}"]
        return lines + _lost_lines(v.lost)
    lines = [f"FAILED: {_title(v)}"]
    if v.new_tests:
        lines.append(f"  new failing tests: {_names(v.new_tests)}")
    lines += _reshaped_lines(v.reshaped)
    older = [name for name in v.summary.failed_tests if name not in v.new_tests] if v.new_tests else []
    if older:
        lines.append(f"  failing at the baseline too: {_names(older)}")
    if v.reason not in (NO_BASELINE, UNFINISHED):
        lines.append(f"  ({v.reason})")
    # The output is the agent's to shape: each line after the marker, escaped, no fence.
    if not older:
        return lines + [BLOCK_MARKER + quote_inline(line) for line in v.summary.lines]
    # Old failures too: the new ones' output first, then the rest, so that none is buried or cut.
    focused = focus(v.result.output, v.new_tests)
    lines.append(f"  output of the new {'failure' if len(v.new_tests) == 1 else 'failures'}:")
    lines += [BLOCK_MARKER + quote_inline(line) for line in focused.first]
    if focused.rest:
        lines.append("  the rest of the output (failures the baseline had too, totals):")
        lines += [BLOCK_MARKER + quote_inline(line) for line in focused.rest]
    return lines


def _lost_block(v: CheckVerdict) -> list[str]:
    """A check refuted by its tests rather than its exit status: lost tests, or a report gone missing."""
    lines = [f"TESTS LOST: {_label(v.result)} {_command(v.result)}: {quote_inline(v.reason)}"]
    lines += _lost_lines(v.lost)
    return lines + [BLOCK_MARKER + quote_inline(line) for line in v.summary.lines]


def _edited_block(v: CheckVerdict) -> list[str]:
    """A check refuted by its run with the base's tests: each test the change made pass by editing it."""
    lines = [f"TESTS EDITED TO PASS: {_label(v.result)} {_command(v.result)}: {quote_inline(v.reason)}"]
    lines += _base_test_lines(v.edited_to_pass)
    lines += _lost_lines(v.lost)
    return lines + [BLOCK_MARKER + quote_inline(line) for line in v.summary.lines]


def _base_test_lines(found: Sequence[BaseTestFailure]) -> list[str]:
    lines = [f"  - {quote_inline(f.text())}" for f in found[:LOST_SHOWN]]
    if len(found) > LOST_SHOWN:
        lines.append(f"  (+{len(found) - LOST_SHOWN} more)")
    return lines


def _with_base_lines(v: CheckVerdict) -> list[str]:
    """Each test of the base that fails on this code with its own tests and does not refute, with its
    failure, in the packet (the run's counts are in its TESTS section)."""
    passing = [f for f in v.base_tests if not f.refutes]
    if not passing:
        return []
    lines = [
        "  FAILS WITH THE TESTS AS THEY WERE when the loop began (test files and test infrastructure put "
        "back, on this code, in a scratch copy; the change edited these tests: decide from the task whether "
        "it asked for this behaviour change, or whether the edit hides a regression):"
    ]
    return lines + _base_test_lines(passing)


def _lost_lines(lost: Sequence[LostTest]) -> list[str]:
    lines = [f"  - {quote_inline(t.text())}" for t in lost[:LOST_SHOWN]]
    if len(lost) > LOST_SHOWN:
        lines.append(f"  (+{len(lost) - LOST_SHOWN} more lost tests)")
    return lines


def _reshaped_lines(reshaped: Sequence[Reshaped]) -> list[str]:
    """Each new failure with its failure now and what it was at the baseline (bounded)."""
    lines = [f"  - {clip(r.text(), RESHAPED_CHARS, '...')}" for r in reshaped[:RESHAPED_SHOWN]]
    if len(reshaped) > RESHAPED_SHOWN:
        lines.append(f"  - (+{len(reshaped) - RESHAPED_SHOWN} more)")
    return lines


def _report(result: GateResult, limit: int, against: Against | None = None) -> str:
    new = sorted(result.new_failures, key=lambda v: not v.compile_stage)
    head = [_headline(result) if against is None else _person_headline(result, against)]
    if result.reused:
        head.append("(These results were produced earlier for this very workspace and reused.)")
    old_label = "Pre-existing, not held against this claim" if against is None else "Pre-existing"
    tail = [
        f"{old_label}: {_label(v.result)} ({quote_inline(v.result.reason)}; {v.reason})"
        for v in result.pre_existing
    ]
    skipped = [_label(v.result) for v in result.verdicts if v.standing == "skipped"]
    if skipped:
        tail.append(f"Not run, because the compile stage failed first: {', '.join(skipped)}")
    passed = [
        f"{_label(v.result)} ({v.result.duration:.1f} s)" for v in result.verdicts if v.standing == "passed"
    ]
    if passed:
        tail.append(f"Passed: {', '.join(passed)}")
    if any(v.result.could_not_run for v in new):
        tail.append(
            "A check that cannot run must be made to run (install its program, or fix its command in the "
            "[checks] table); `tiergate doctor` names what is missing."
        )
    if result.refuted and against is None:
        tail.append("Fix the new failures, then claim again. `tiergate checks` runs the same checks.")
    elif result.refuted:
        tail.append("A completion claim on this workspace would be refuted: fix the new failures first.")
    fixed = "\n".join(head + tail)
    room = max(_MIN_BLOCK, (limit - len(fixed) - 2 * (len(new) + 1)) // max(1, len(new)))
    blocks = [_fit_lines(_failure_block(v), room) for v in new]
    return fit("\n".join(head + blocks + tail), limit)


def _headline(result: GateResult) -> str:
    total = len(result.verdicts)
    if total == 0:
        return "tiergate ran no checks: none are configured and none were detected."
    old = len(result.pre_existing)
    if result.refuted:
        return _refuted_headline(result, total, old)
    if old:
        verb = "fails" if old == 1 else "fail"
        return (
            f"tiergate's checks do not refute the claim: {plural(old, 'check')} of {total} {verb}, "
            "as when the loop began."
        )
    return f"tiergate's checks pass ({plural(total, 'check')})."


def _refuted_headline(result: GateResult, total: int, old: int) -> str:
    new = len(result.new_failures)
    compile_new = sum(v.compile_stage for v in result.new_failures)
    kind = "syntax/compile failures" if compile_new == new else "failures"
    also = f"; {plural(old, 'other check')} already failed then" if old else ""
    strict = all(v.reason == NEVER_EXCUSED for v in result.new_failures)
    since = "; ".join(dict.fromkeys(_since(v) for v in result.new_failures))
    if strict:
        since = "acceptance or regression checks that must pass"
    counted = f"{plural(new, 'check')} of {total}"
    tests = _tests_headline(result.new_failures)
    if tests:
        return f"tiergate's checks refute the claim: in {counted}, {tests}{also}."
    unrunnable = [_label(v.result) for v in result.new_failures if v.result.could_not_run]
    if len(unrunnable) == new:
        return f"tiergate's checks refute the claim: {counted} could not run, so no evidence{also}."
    could_not = f" ({', '.join(unrunnable)} could not run)" if unrunnable else ""
    return f"tiergate's checks refute the claim: new {kind} in {counted}, {since}{could_not}{also}."


def _since(v: CheckVerdict) -> str:
    """How a new failure stands against when the loop began, truthfully for a check that failed then too."""
    if v.reason == NEVER_EXCUSED:
        return "an acceptance or regression check that must pass"
    if v.failed_then is None:
        return "with nothing from when the loop began to compare with"
    if not v.failed_then:
        return "not failing when the loop began"
    if any(r.was is not None for r in v.reshaped):
        return "failing otherwise than when the loop began (the check failed then too)"
    if v.reshaped and v.reshaped[0].test:
        return "with failing tests that did not fail when the loop began (the check failed then too)"
    return "failing differently than when the loop began (the check failed then too)"


def _tests_headline(new: Sequence[CheckVerdict]) -> str:
    """What the new failures are, when all are of one kind that their exit status does not tell: lost
    tests, failing tests behind an exit 0, or no test run at all ("" otherwise)."""
    if all(v.edited_to_pass and not v.lost_failing for v in new):
        return (
            "tests the loop began with fail on this code as they were written then, and pass only as the "
            "change edited them"
        )
    if all(v.lost_failing or v.result.status == "passed" for v in new):
        return (
            "tests the loop began with are lost or not reported (deleted, skipped or filtered out, not fixed)"
        )
    if all(v.result.status == "failed" and v.result.exit_code == 0 for v in new):
        return "tests fail while the check exits 0"
    if all(v.result.status == "no_tests" for v in new):
        return "not one test ran, so no evidence"
    return ""


def _person_headline(result: GateResult, against: Against) -> str:
    """`_headline` for a person at `tiergate checks`: what the checks were compared with, and plainly
    when not one of them passes."""
    total = len(result.verdicts)
    new, old = len(result.new_failures), len(result.pre_existing)
    if total == 0 or (new == 0 and old == 0):
        return _headline(result)
    where = against.name or "nothing"
    compared = f"compared with {where}" + (f" ({against.why_nothing})" if not against.name else "")
    failing = new + old
    verb = "fails" if failing == 1 else "fail"
    fails = f"tiergate's checks: {failing} of {total} {verb}"
    if failing == total:
        fails = f"Every check fails ({total} of {total})"
    if not new:
        closing = ", but no check passes" if failing == total else ""
        return f"{fails}, as at {where}: nothing new, so a claim would not be refuted{closing}."
    checks = "all of them" if new == total else plural(new, "check")
    if all(v.result.could_not_run for v in result.new_failures):
        what = f"{checks} could not run, so no evidence"
    else:
        what = f"new failures in {checks}"
    also = f"; {plural(old, 'other check')} failed there too" if old else ""
    return f"{fails}: {what}, {compared}{also}."


def _fit_lines(lines: list[str], room: int) -> str:
    """Whole lines while they fit in `room` characters, then a note of how many were left out."""
    kept: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        if used + len(line) + 1 > room and kept:
            kept.append(f"  [... {len(lines) - index} more lines]")
            break
        kept.append(line[: max(0, room - 20)] if not kept and len(line) > room else line)
        used += len(line) + 1
    return "\n".join(kept)


def _packet(result: GateResult) -> tuple[str, ...]:
    if not result.verdicts:
        return (
            "CHECKS: none; the project configures no [checks] and tiergate detected none. Run what the "
            "evidence below needs yourself.",
        )
    fresh = "reused from an earlier run on this same workspace" if result.reused else "run just now"
    short = (result.fingerprint or "none")[:12]
    lines = [f"CHECKS tiergate ran on this exact workspace (fingerprint {short}, {fresh}):"]
    for v in result.verdicts:
        r = v.result
        check = f"{_label(r)} ({_command(r)}, {r.kind})"
        if v.standing == "passed":
            lines.append(f"- {check}: passed in {r.duration:.1f} s")
        elif v.standing == "pre-existing":
            names = f"; failing tests: {_names(v.summary.failed_tests)}" if v.summary.failed_tests else ""
            lines.append(f"- {check}: {quote_inline(r.reason)}, pre-existing: {v.reason}{names}")
        elif v.standing == "skipped":
            lines.append(f"- {check}: not run: {quote_inline(r.reason)}")
        else:
            lines.append(f"- {check}: FAILING, new: {quote_inline(r.reason)}; {v.reason}")
        lines += _with_base_lines(v)
    lines.append(
        "These results are evidence about this workspace only. They do not show that the task is done: "
        "check the task's own criteria yourself."
    )
    return tuple(lines)


def _failing_then(v: CheckVerdict) -> str:
    names = v.summary.failed_tests
    tests = f"failing tests: {_names(names)}" if names else "its output names no failing test"
    return f"check {_label(v.result)} ({tests})"


def _lead(result: GateResult) -> tuple[str, ...]:
    if not result.pre_existing:
        return ()
    lines = [
        "STILL FAILING AS WHEN THE LOOP BEGAN (read this first): this claim is not green. These checks "
        "fail the same way they did at the loop's base; the task may be to fix exactly them, and then it "
        "is not done:"
    ]
    for v in result.pre_existing:
        r = v.result
        lines.append(f"- {_label(r)} ({_command(r)}): {quote_inline(r.reason)}; {_failing_then(v)}")
    return tuple(lines)


def _tests_section(result: GateResult, base_tests: Mapping[str, TestRun]) -> tuple[str, ...]:
    tested = [v for v in result.verdicts if v.result.tests is not None or v.then is not None or v.lost]
    if not tested:
        return ()
    lines = [
        "TESTS, per test check: counts at the loop's base and at this claim (the agent can edit tests, so "
        "the base's tests are the contract and a lost test is never a pass on its word; check that the task "
        "asked for each change):"
    ]
    for v in tested:
        lines += _tests_lines(v, base_tests.get(v.result.key))
    return tuple(lines)


def _tests_lines(v: CheckVerdict, base_tests: TestRun | None) -> list[str]:
    """One test check's story: its counts then and now, its lost tests, and, when it ran, the base's
    test files against the claimed code (`base_tests`)."""
    now, then = v.result.tests, v.then
    unrecorded = f"no test record ({quote_inline(v.result.reason)})"
    lines = [
        f"- {_label(v.result)}:",
        "  at the base: " + (_counts(then) if then is not None else "not recorded (no run at the base)"),
        "  at the claim: " + (_counts(now, then) if now is not None else unrecorded),
    ]
    if v.lost:
        lines.append("  LOST since the loop began (ran then, not now):")
        lines += _lost_lines(v.lost)
    if base_tests is not None:
        lines.append("  the base's test files run against the claimed code: " + _counts(base_tests))
        failing = base_tests.named(FAILING)
        if failing:
            lines.append(f"    failing there: {_names(failing)}")
    return lines


def _counts(run: TestRun, then: TestRun | None = None) -> str:
    """'passed 3, failed 1, skipped 0, xfailed 0, not run 1 (from its pytest report)': the same five
    counts every time, so that the base and the claim read side by side. Not run: deselected, and with
    `then`, the tests that ran then and are not in this run at all."""
    passed = run.total("passed") + run.total("xpassed")
    failed = run.total("failed") + run.total("error")
    missing = 0
    if then is not None and then.complete and run.complete and then.naming == run.naming:
        missing = len(set(then.named(RAN)) - set(run.by_test))
    return (
        f"passed {passed}, failed {failed}, skipped {run.total('skipped')}, xfailed {run.total('xfailed')}, "
        f"not run {run.total('deselected') + missing} (from its {run.source})"
    )


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
