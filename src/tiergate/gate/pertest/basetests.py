"""The base's tests against the claimed code: what a test check shows when the test files and test
infrastructure are put back as they were when the loop began (`tiergate.gate.scratch` runs it).

A test that failed at the base and passes only with the change's edit of it refutes; one that passed
then and fails now makes the claim THOROUGH. See docs/judging.md, "The base's tests on the claimed
code". Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

from tiergate.frozen import frozen
from tiergate.gate.pertest.record import FAILING, RAN, Outcome, TestRun

_NOW: dict[Outcome | None, str] = {
    None: "it is not run at all with the tests as the change left them",
    "skipped": "it is skipped with the tests as the change edited them",
    "xfailed": "it is marked as an expected failure with the tests as the change edited them",
    "deselected": "it is deselected with the tests as the change left them",
}
EDITED_TO_PASS = "it passes only with the tests as the change edited them"
WHAT_IT_MEANS = "a behaviour change the task asked for, or a regression an edited test hides"


@frozen
class BaseTestFailure:
    """A test of the base that fails against the claimed code with the tests as they were then."""

    test: str  # "" when the records could not be compared test by test (the whole check then)
    was: Outcome | None  # at the base; None when unknown (a whole check)
    now: Outcome | None  # with the change's tests; None when it is not run there
    failure: str  # how it fails with the base's tests (its message; "" when none was read)
    refutes: bool

    @property
    def edited_to_pass(self) -> bool:
        """Failing when the loop began, failing still with its tests, not failing with the change's."""
        return self.was in FAILING

    def text(self) -> str:
        how = f" ({self.failure})" if self.failure else ""
        if not self.test:
            return f"the check fails with the tests as they were when the loop began{how}: {WHAT_IT_MEANS}"
        if self.edited_to_pass:
            now = EDITED_TO_PASS if self.now in RAN else _NOW.get(self.now, EDITED_TO_PASS)
            then = f" (as they were: {self.failure})" if self.failure else ""
            return (
                f"{self.test} failed when the loop began and still fails with the tests as they were then; "
                f"{now}{then}"
            )
        return (
            f"{self.test} passed when the loop began and fails with the tests as they were then{how}: "
            f"{WHAT_IT_MEANS}"
        )


def base_test_failures(
    base: TestRun | None,
    now: TestRun | None,
    with_base: TestRun | None,
    failures: Mapping[str, str],
    *,
    refute_regressions: bool = False,
) -> tuple[BaseTestFailure, ...]:
    """The findings, in the base's order. `failures`: each failing test's message in the run with the
    base's tests, by test id. `refute_regressions`: a test that passed at the base and fails with its
    own tests refutes instead of making the change THOROUGH."""
    if base is None or now is None or with_base is None:
        return ()
    if not _comparable(base, now, with_base):
        return ()
    current, restored = now.by_test, with_base.by_test
    found = []
    for test, was in base.outcomes:
        then = restored.get(test)
        if was not in RAN or not _fails(then, with_base):
            continue
        if was in FAILING and current.get(test) not in FAILING:
            found.append(BaseTestFailure(test, was, current.get(test), failures.get(test, ""), True))
        elif was not in FAILING:
            found.append(
                BaseTestFailure(test, was, current.get(test), failures.get(test, ""), refute_regressions)
            )
    return tuple(found)


def whole_check_failure(
    passed_at_base: bool, passes_now: bool, fails_with_base: bool, failure: str, *, refute_regressions: bool
) -> BaseTestFailure | None:
    """The one finding for a check whose records cannot be compared test by test: it passes with the
    change's tests and fails with the base's (None otherwise)."""
    if not (passes_now and fails_with_base):
        return None
    was: Outcome | None = "passed" if passed_at_base else None
    return BaseTestFailure("", was, "passed", failure, refute_regressions and passed_at_base)


def comparable(base: TestRun | None, now: TestRun | None, with_base: TestRun | None) -> bool:
    """Whether the three records can be compared test by test."""
    return (
        base is not None and now is not None and with_base is not None and _comparable(base, now, with_base)
    )


def _comparable(base: TestRun, now: TestRun, with_base: TestRun) -> bool:
    runs = (base, now, with_base)
    return all(r.complete and r.finished for r in runs) and len({r.naming for r in runs}) == 1


def _fails(outcome: Outcome | None, run: TestRun) -> bool:
    """Whether a base test fails with its own tests: it failed, or it is missing from a run that had
    failures (its module could not even be collected against the claimed code)."""
    if outcome is None:
        return run.failing > 0
    return outcome in FAILING
