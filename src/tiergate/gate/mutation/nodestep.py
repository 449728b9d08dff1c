"""The mutants of a gate run's JavaScript lines, run once the `node --test` check that measured them has
passed: each mutant written into the claim's copy in turn and run by the test files whose processes ran its
line (one `node --test` process a mutant, isolated as the check was), the file put back after each.

A mutant dies when its run fails or runs out of its time. Then the file gets a change that alters no code
(a comment at a killed mutant's place), run by the test files that killed: a test that fails on it reads
the file, not what the code does, and the kills say nothing. At most `MutantBounds.mutants` mutants within
`MutantBounds.seconds`.
"""

from __future__ import annotations

import random
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tiergate.gate.checks import CheckResult, make_check
from tiergate.gate.mutation.step import spread
from tiergate.gate.processes import run_checks
from tiergate.gate.request import MutantBounds
from tiergate.text import quote_path
from tiergate.tier.change import ChangeMeasurement
from tiergate.tier.coverage.judgement import changed_lines, measurable_files
from tiergate.tier.coverage.lines import FileLines, NodeRun
from tiergate.tier.mutation import javascript
from tiergate.tier.mutation.fates import MutationRun, Tried
from tiergate.tier.mutation.mutants import Mutant

SUFFIXES = (".js", ".mjs", ".cjs")
# A comment changes no code: a test that fails with it in reads the file, not what the code does.
_NO_CHANGE = "/**/"


class NodeStep:
    """The mutants of the changed JavaScript lines of the change `change_of` measures."""

    def __init__(self, bounds: MutantBounds, change_of: Callable[[], ChangeMeasurement]) -> None:
        self.bounds, self.change_of = bounds, change_of
        self.refused: list[str] = []  # changed files no mutant can be made of, and why
        # Its own run writes no coverage: the measurement is over, its folder gone.
        self.dropped = ("NODE_V8_COVERAGE",)

    def run(
        self,
        where: Path,
        runs: Sequence[NodeRun],
        env: Mapping[str, str],
        check: CheckResult,
        write: Callable[[Path, bytes], None],
    ) -> MutationRun:
        """The fates of the mutants, run in `where` (the claim's copy) with `check`'s environment `env`;
        `write` writes a file of the copy as the gate's own (`tiergate.gate.cleancopy.rewrite`)."""
        sources, made, skipped = self._make(where)
        if check.status != "passed":
            return MutationRun(skipped=skipped, off="the tests did not all pass")
        if self.refused:  # a file no mutant can be made of is no evidence that its tests check it
            unread = "; ".join(self.refused)
            return MutationRun(skipped=skipped, incomplete=f"no mutant could be made of {unread}")
        if not made:
            return MutationRun(skipped=skipped, off="no mutant could be made of the changed JavaScript lines")
        own = {k: v for k, v in env.items() if k not in self.dropped}
        each = max(5.0, 2 * (check.duration or 0.0) + 2)
        trial = _Trial(where, sources, own, (self.bounds.seconds, each), write)
        order = list(range(len(made)))
        random.SystemRandom().shuffle(order)
        fates = {i: _unseen(made[i], runs) or trial.fate(made[i], _covering(made[i], runs)) for i in order}
        tried = tuple(fates[i] for i in range(len(made)))
        void = trial.no_change([t.mutant for t in tried if t.fate == "killed"])
        return MutationRun(tried, skipped, void, trial.incomplete, "", time.monotonic() - trial.started)

    def _make(self, where: Path) -> tuple[dict[str, bytes], list[Mutant], tuple[str, ...]]:
        change = self.change_of()
        wanted = {p for p in measurable_files(change) if p.endswith(SUFFIXES)}
        lines = changed_lines(change, [f for f in change.files if f.path in wanted]) if wanted else {}
        sources: dict[str, bytes] = {}
        made: dict[str, list[Mutant]] = {}
        skipped: list[str] = []
        for path, numbers in sorted(lines.items()):
            try:
                sources[path] = (where / path).read_bytes()
            except OSError as exc:
                skipped.append(f"{path}: not read ({type(exc).__name__})")
                continue
            made[path] = list(javascript.mutants_of(path, sources[path], numbers, self.bounds.per_line))
            refused = javascript.refusal(sources[path]) if not made[path] else ""
            if refused:
                self.refused.append(f"{quote_path(path)} ({refused})")
        return sources, spread(made)[: self.bounds.mutants], tuple(skipped)


def _unseen(mutant: Mutant, runs: Sequence[NodeRun]) -> Tried | None:
    """A mutant whose line ran in a process with no test file in it (a worker thread, a child the tests
    started): not run, since no test the gate can name ran it."""
    for run in runs:
        if not run.tests and mutant.line in run.lines.get(mutant.path, _NONE).hit:
            return Tried(mutant, "not_run", "its line ran where no test file was seen")
    return None


def _covering(mutant: Mutant, runs: Sequence[NodeRun]) -> tuple[str, ...]:
    """The test files whose processes ran the mutant's line."""
    found = {
        test for run in runs if mutant.line in run.lines.get(mutant.path, _NONE).hit for test in run.tests
    }
    return tuple(sorted(found))


_NONE = FileLines(frozenset(), frozenset())


class _Trial:
    """The mutants' runs in the copy, one at a time, each file put back after its run."""

    def __init__(
        self,
        where: Path,
        sources: Mapping[str, bytes],
        env: Mapping[str, str],
        seconds: tuple[float, float],
        write: Callable[[Path, bytes], None],
    ) -> None:
        """`seconds`: the whole step's, and each mutant's run's."""
        self.where, self.sources, self.env, self.write = where, sources, dict(env), write
        self.started = time.monotonic()
        self.deadline, self.each = self.started + seconds[0], seconds[1]
        self.incomplete = ""
        self.killers: list[str] = []

    def fate(self, mutant: Mutant, tests: Sequence[str]) -> Tried:
        if not tests:
            return Tried(mutant, "uncovered")
        if time.monotonic() > self.deadline:
            self.incomplete = "the mutation step ran out of its time"
            return Tried(mutant, "not_run", "the mutation step ran out of its time")
        if self.fails(mutant, tests):
            self.killers += tests
            return Tried(mutant, "killed", " ".join(tests))
        return Tried(mutant, "survived")

    def no_change(self, killed: Sequence[Mutant]) -> str:
        """Why the kills say nothing: the killing tests fail with a comment where a mutant was ("": not)."""
        if not killed:
            return ""
        first = killed[0]
        comment = Mutant(first.path, first.line, first.start, first.start, "", _NO_CHANGE, "statement")
        tests = sorted(set(self.killers))
        if self.fails(comment, tests):
            return f"{' '.join(tests)} failed with only a comment added to {first.path}"
        return ""

    def fails(self, mutant: Mutant, tests: Sequence[str]) -> bool:
        path = self.where / mutant.path
        original = self.sources[mutant.path]
        self.write(path, mutant.apply(original))
        try:
            command = "node --test " + " ".join(shlex.quote(t) for t in tests)
            check = make_check("mutant", command, "tiergate mutants")
            [result] = run_checks([check], self.where, timeout=self.each, env={check.key: self.env})
        finally:
            self.write(path, original)
        return result.status != "passed"
