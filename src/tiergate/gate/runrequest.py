"""One run of the gate as its caller asks for it: what it runs (a `GateRequest`, `tiergate.gate.request`)
and how this one run goes (its budget, reuse, the change measured, a task's run, results kept for it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tiergate.frozen import frozen
from tiergate.gate.request import GateRequest

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tiergate.foreign import Exclusions
    from tiergate.gate.checks import Check, CheckResult
    from tiergate.gate.processes import Progress
    from tiergate.gate.timeouts import TimeLimits
    from tiergate.tier.change import ChangeMeasurement
    from tiergate.tier.coverage.lines import GateCoverage

    # Results kept for a workspace, with the coverage measured as they ran (None: none measured).
    Kept = tuple[tuple[CheckResult, ...], GateCoverage | None]


@frozen
class RunRequest:
    """One gate run: `gate` says what runs; the rest how this run goes (see each field's note)."""

    gate: GateRequest
    # This run's timeout alone, per check, not `gate.limits` (a bench's, a test's run); None: the limits.
    timeout: float | None = None
    budget: float | None = None  # seconds for the whole gate, baseline runs included; None: unbounded
    progress: Progress | None = None
    reuse: bool = True  # results kept for this very workspace stand (`tiergate.gate.reuse`)
    # The change's code files, whose line coverage the test checks that can take it measure as they run
    # (`tiergate.gate.coverage.measuring`); None: no measurement. Kept with the results.
    measure: Sequence[str] | None = None
    # The change from the base with `gate.exclusions`, measured by the caller with nothing run since: the
    # workspace's fingerprint, the base commit and whether the workspace is that commit come from it
    # rather than from git (one measured otherwise is not used); its paths are the changed paths the
    # base's tests look at (None: asked of git when needed).
    change: ChangeMeasurement | None = None
    # A completed task's step claim (`tiergate.handlers.task_completed`): it reuses what a claim kept, but
    # keeps its own results apart, so that a claim never stands on a task's run (a task may be marked
    # completed again and again until a flaky test passes once).
    for_task: bool = False
    # Every check the base does not hold yet runs there first, before the behaviour stage (`tiergate.gate.
    # job`); never beside a run of the claim's code, which could reach into its worktree.
    whole_base: bool = False
    # Results run for this very workspace by a background gate (`tiergate.gate.background`), judged as kept
    # ones are.
    kept: Kept | None = None

    @property
    def base(self) -> str | None:
        return self.gate.base

    @property
    def checks(self) -> tuple[Check, ...]:
        return self.gate.checks

    @property
    def exclusions(self) -> Exclusions:
        return self.gate.exclusions

    @property
    def check_timeout(self) -> float:
        """The most a check may run: this run's own timeout, else the loop's limits' ceiling."""
        return self.gate.timeout if self.timeout is None else self.timeout

    @property
    def limits(self) -> TimeLimits | None:
        """Each check's limit follows its time at the base (`tiergate.gate.timeouts`); None: the timeout."""
        return self.gate.limits if self.timeout is None else None
