"""The base's tests against the claimed code: what a test check shows with the test files and test
infrastructure put back as the loop began (`tiergate.gate.scratch` runs it). Pure: no I/O.

A test that failed at the base and passes only with the change's edit of it refutes; one that passed then
and fails now makes the claim THOROUGH. Only what differs is run (`base_tests_selection`). See
docs/judging.md, "The base's tests on the claimed code".
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from tiergate.frozen import frozen
from tiergate.gate.pertest.lost import lost_tests
from tiergate.gate.pertest.record import FAILING, RAN, TestOutcome, TestRun
from tiergate.gate.pertest.selection import TestSelection
from tiergate.tier.testnames import named_as_test

_NOW: dict[TestOutcome | None, str] = {
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
    was: TestOutcome | None  # at the base; None when unknown (a whole check)
    now: TestOutcome | None  # with the change's tests; None when it is not run there
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
        if was not in RAN or not _fails(test, then, with_base):
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
    was: TestOutcome | None = "passed" if passed_at_base else None
    return BaseTestFailure("", was, "passed", failure, refute_regressions and passed_at_base)


def comparable(base: TestRun | None, now: TestRun | None, with_base: TestRun | None) -> bool:
    """Whether the three records can be compared test by test."""
    return (
        base is not None and now is not None and with_base is not None and _comparable(base, now, with_base)
    )


def _comparable(base: TestRun, now: TestRun, with_base: TestRun) -> bool:
    runs = (base, now, with_base)
    # The run with the base's tests may be a selection (`base_tests_selection`); the other two are the
    # whole check, or a test they do not name would read as deleted.
    whole = not (base.subset or now.subset)
    return whole and all(r.complete and r.finished for r in runs) and len({r.naming for r in runs}) == 1


def _fails(test: str, outcome: TestOutcome | None, run: TestRun) -> bool:
    """Whether a base test fails with its own tests: it failed, or it is missing from a run that had
    failures (its module could not even be collected against the claimed code). In a run of a selection,
    missing is failing only under a node that failed (its module, package or class, or the whole
    collection): any other missing test was not selected."""
    if outcome is None:
        if run.subset:
            return any(_within(test, failed) for failed in run.named(FAILING))
        return run.failing > 0
    return outcome in FAILING


def _within(test: str, node: str) -> bool:
    """Whether pytest's node id `node` holds `test` (the whole collection's failure holds every test)."""
    return node == "<collection>" or test.startswith((f"{node}::", f"{node}/"))


def base_tests_selection(
    touched_tests: Sequence[str], base: TestRun | None, now: TestRun | None, inside: str
) -> TestSelection | None:
    """What the run with the base's tests runs instead of the whole check (any other test would show
    nothing new): the touched test files (`touched_tests`, made relative to the project folder `inside`,
    "" at the top) and by node id each test failing or lost now. None, the whole run: a touched path not a
    Python test module (a conftest, helper, fixture) or outside the folder; records not both whole, finished
    pytest reports; a collection that failed whole. Empty: nothing differs, nothing to run again."""
    if not _whole_pytest(base) or not _whole_pytest(now):
        return None
    assert base is not None and now is not None
    files = []
    prefix = f"{inside.strip('/')}/" if inside.strip("/") else ""
    for path in touched_tests:
        if not _test_module(path) or not path.startswith(prefix):
            return None
        # A touched file the base has not is gone from the scratch copy: selected, it runs nothing.
        files.append(path[len(prefix) :])
    failing = now.named(FAILING)
    if "<collection>" in failing:
        return None
    tests = tuple(dict.fromkeys([*failing, *(t.test for t in lost_tests(base, now))]))
    return TestSelection(tuple(dict.fromkeys(files)), tests)


def _test_module(path: str) -> bool:
    """A Python test file's path, not a copy kept as data (`fixtures`: the gate's test paths)."""
    name = posixpath.basename(path)
    return name.endswith(".py") and named_as_test(name) and "fixtures" not in path.split("/")[:-1]


def _whole_pytest(run: TestRun | None) -> bool:
    return run is not None and run.naming == "pytest" and run.complete and run.finished and not run.subset
