"""The whole baseline, run beside the claim's checks: every check the base does not hold yet runs at the
base commit in a thread of its own while the claim's run, so that each check's time and each test's
outcome at the base are known for every loop (what the claim's time limits and its first pass compare
against), at the cost of no wall time on a machine with a core to spare.

Each check's time at the base is known as soon as it ends there, before the others do: a claim's check
still running then gets its limit from it at once (`tiergate.gate.timeouts`). See docs/judging.md,
"The baseline".
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from tiergate.gate import baseline
from tiergate.gate import cache as evidencecache
from tiergate.gate.checks import Check
from tiergate.gate.processes import Progress, ProgressEvent
from tiergate.gate.standing import BaselineEntry
from tiergate.project import Project


class BaseRun:
    """The run at the base of `checks` (those `commit`'s baseline does not hold), begun at once."""

    def __init__(
        self,
        project: Project,
        commit: str,
        checks: Sequence[Check],
        *,
        timeout: float,
        progress: Progress | None = None,
    ) -> None:
        self.project = project
        self.commit = commit
        known = evidencecache.load_baseline(project, commit)
        self.durations: dict[str, float] = {k: e.result.duration for k, e in known.items()}
        self.missing = tuple(c for c in checks if c.key not in known)
        self._progress = progress
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(timeout,), name="tiergate-base", daemon=True)
        if self.missing:
            self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def covers(self, key: str) -> bool:
        return any(c.key == key for c in self.missing)

    def entries(self) -> dict[str, BaselineEntry]:
        """The baseline, once this run has ended (it is waited for)."""
        self.join()
        return evidencecache.load_baseline(self.project, self.commit)

    def join(self) -> None:
        if self._thread.is_alive():
            self._thread.join()

    def _run(self, timeout: float) -> None:
        try:
            baseline.ensure_baseline(
                self.project, self.commit, self.missing, timeout=timeout, progress=self._seen
            )
        except BaseException as exc:  # a run at the base that fails is a baseline not had: never raised here
            self._error = exc

    def _seen(self, event: ProgressEvent) -> None:
        if event.event == "end" and event.result is not None:
            self.durations[event.check.key] = event.result.duration
        if self._progress is not None:
            self._progress(event)
