"""How one check stands against the base: its baseline entry, its verdict, and each new failure.

The records the ruling (`tiergate.gate.ruling`) makes and its texts (`tiergate.gate.verdicttext`) read,
with the reasons that name the rules. Pure: no I/O.
"""

from __future__ import annotations

from typing import Literal

from tiergate.frozen import frozen
from tiergate.gate.checks import COMPILE_STAGE, CheckResult
from tiergate.gate.failures import Failure
from tiergate.gate.output import OutputSummary
from tiergate.gate.pertest.basetests import BaseTestFailure
from tiergate.gate.pertest.lost import LostTest
from tiergate.gate.pertest.record import TestRun
from tiergate.text import quote_inline

Standing = Literal["passed", "new", "pre-existing", "skipped"]
Where = Literal["workspace", "worktree"]
NO_BASELINE = "no baseline result to compare with"
NEVER_EXCUSED = "an acceptance or regression check: the baseline never excuses it"
UNFINISHED = "a check that did not finish shows nothing, so its timeout is never excused as pre-existing"
CANNOT_RUN = "a check that could not run shows nothing: it is never passed, nor excused as pre-existing"
NO_TESTS = "a test check that ran no test shows nothing: it is never passed, nor excused as pre-existing"
DISAGREEING = (
    "a test check whose report disagrees with what its tests streamed shows nothing: it is never passed, "
    "nor excused as pre-existing"
)
LOST_SHOWN = 10
RESHAPED_CHARS = 400


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
