"""The mutants of a gate run's JavaScript lines, run by the `node --test` check that measures them.

First in the check's own processes (`env`: a preload, `nodemutants.cjs`, through NODE_OPTIONS, which writes
what it decided, `nodereports`); then, once the check passed, what no process decided is run as before: each
mutant written into the claim's copy in turn and run by the test files whose processes ran its line.
"""

# What no process decides: ESM code, tests that cannot run again or that fail on a copy of the file that
# behaves the same, a change no run reached, the step's time out. Each of those mutants runs in one `node
# --test` process of its own, isolated as the check was, the file put back after each.
#
# When no mutant survived, one kill of a changed line that the check's processes decided, drawn at random,
# is run again the same way (`confirmations`): what the tests' first run kept where a run again in its
# process finds it (a memo on `process`) cannot reach a process of its own, so a kill that does not repeat
# there leaves the step incomplete.
#
# A mutant dies when its run fails or runs out of its time. Then the file gets a change that alters no code
# (a comment at a killed mutant's place), run by the test files that killed: a test that fails on it reads
# the file, not what the code does, and the kills say nothing. At most `MutantBounds.mutants` mutants within
# `MutantBounds.seconds`.

from __future__ import annotations

import json
import random
import secrets
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from tiergate.gate import ownfiles, sandbox
from tiergate.gate.checks import CheckResult, make_check
from tiergate.gate.mutation import nodereports, step
from tiergate.gate.mutation.snapshot import Snapshot
from tiergate.gate.mutation.step import spread
from tiergate.gate.processes import Running, run_checks
from tiergate.gate.request import MutantBounds
from tiergate.text import quote_path
from tiergate.tier.change import ChangeMeasurement
from tiergate.tier.coverage.judgement import changed_lines, measurable_files
from tiergate.tier.coverage.lines import FileLines, NodeRun
from tiergate.tier.mutation import javascript, jssentinel
from tiergate.tier.mutation.fates import MutationRun, Tried
from tiergate.tier.mutation.mutants import Mutant

SUFFIXES = (".js", ".mjs", ".cjs")
PLAN_VARIABLE = "TIERGATE_NODE_MUTANTS"
KEY_VARIABLE = "TIERGATE_NODE_MUTANTS_KEY"
_PRELOAD = Path(__file__).parent / "nodemutants.cjs"
_PRELOAD_PARTS = Path(__file__).parent / "nodemutants"  # the parts it loads, copied beside it
OUT_OF_TIME = "the mutation step ran out of its time"


class _Made(NamedTuple):
    """The mutants made of the changed lines, the files they were made of, and each line's copy that
    behaves the same (by path and line)."""

    sources: dict[str, bytes]
    mutants: list[Mutant]
    skipped: tuple[str, ...]
    copies: dict[tuple[str, int], Mutant]


class NodeStep:
    """The mutants of the changed JavaScript lines of the change `change_of` measures."""

    def __init__(self, bounds: MutantBounds, change_of: Callable[[], ChangeMeasurement]) -> None:
        self.bounds, self.change_of = bounds, change_of
        self.refused: list[str] = []  # changed files no mutant can be made of, and why
        self._made: _Made | None = None
        self.before: Snapshot | None = None  # the copy as the check found it
        self.out: Path | None = None  # the folder of the in-process step's plan and reports
        self.preload = ""  # what `env` added to NODE_OPTIONS
        self.decided: nodereports.Decided = nodereports.Decided()
        # What the preload's reports must hold: the tests' own code cannot have written one that does.
        self.secret = secrets.token_hex(16)

    def env(self, where: Path, out: Path) -> dict[str, str]:
        """The variables that make the check's `node --test` processes run the mutants (made from the files
        at `where`, the claim's copy) within `MutantBounds.seconds` in all, which the check gets beside its
        own limit (`Measurement.mutants_time`); the plan and the preload written in `out`, where the
        processes write their reports."""
        made = self._mutants(where)
        if not made.mutants or _bare(made):  # a line with no copy leaves the step incomplete (`run`)
            return {}
        self.before = Snapshot(where, made.sources)
        out.mkdir()
        preload = out / "nodemutants.cjs"
        shutil.copyfile(_PRELOAD, preload)
        ownfiles.note(preload)
        (out / _PRELOAD_PARTS.name).mkdir()
        for part in sorted(_PRELOAD_PARTS.glob("*.cjs")):
            shutil.copyfile(part, out / _PRELOAD_PARTS.name / part.name)
            ownfiles.note(out / _PRELOAD_PARTS.name / part.name)
        plan = nodereports.plan(where, made.sources, made.mutants, made.copies, out, self.bounds.seconds)
        (out / "plan.json").write_text(json.dumps(plan))
        ownfiles.note(out / "plan.json")
        self.out, self.preload = out, f'--require="{preload}"'
        plan_path = str(out / "plan.json")
        return {PLAN_VARIABLE: plan_path, KEY_VARIABLE: self.secret, "NODE_OPTIONS": self.preload}

    def read(self, where: Path) -> None:
        """What the check's processes decided, read from their reports before their folder goes."""
        if self.out is None:
            return
        rewritten = _rewritten(self.out)
        if rewritten:
            # The preload or its plan, rewritten by a check's process (the plan's folder takes their
            # reports, so they can write it): a process started after that ran code that is not
            # tiergate's, and its keyed report says nothing. Every mutant runs in a process of its own.
            self.decided = nodereports.Decided(problems=(f"rewritten while the checks ran: {rewritten}",))
            return
        self.decided = nodereports.read(self.out, where, self.secret)

    def run(
        self,
        where: Path,
        runs: Sequence[NodeRun],
        env: Mapping[str, str],
        check: CheckResult,
        write: Callable[[Path, bytes], None],
    ) -> MutationRun:
        """The fates of the mutants: what the check's processes decided (`read`), the rest run in `where`
        (the claim's copy) with `check`'s environment `env`; `write` writes a file of the copy as the
        gate's own (`tiergate.gate.cleancopy.rewrite`)."""
        found = self._mutants(where)
        sources, made, skipped, copies = found
        if check.status != "passed":
            return MutationRun(skipped=skipped, off="the tests did not all pass")
        if self.refused:  # a file no mutant can be made of is no evidence that its tests check it
            unread = "; ".join(self.refused)
            return MutationRun(skipped=skipped, incomplete=f"no mutant could be made of {unread}")
        if not made:
            return MutationRun(skipped=skipped, off="no mutant could be made of the changed JavaScript lines")
        bare = _bare(found)
        if bare:  # kills there could not be told from a test that fails on any change at all
            lines = "; ".join(f"line {line} of {quote_path(path)}" for path, line in bare)
            return MutationRun(
                skipped=skipped, incomplete=f"no copy that behaves the same could be made of {lines}"
            )
        left = max(0.0, self.bounds.seconds - self.decided.seconds)
        each = max(5.0, 2 * (check.duration or 0.0) + 2)
        # No coverage in a mutant's own process: the measurement is over, its folder gone.
        own = {k: v for k, v in self.without(env).items() if k != "NODE_V8_COVERAGE"}
        trial = _Trial(where, sources, own, (left, each), write)
        trial.before = self.before
        trial.after_survivor = step.AFTER_SURVIVOR * (check.duration or 0.0)
        covering = [_covering(m, runs) for m in made]
        if survivor_in(self.decided, covering):
            trial.survived()
        order = list(range(len(made)))
        random.SystemRandom().shuffle(order)
        # Those the processes let live wherever they ran them first: a survivor found early spares the rest.
        order.sort(key=lambda i: not self.decided.survived_somewhere(str(i)))
        fates = {i: _unseen(made[i], runs) or self._fate(str(i), made[i], covering[i], trial) for i in order}
        tried = tuple(fates[i] for i in range(len(made)))
        trial.confirm(confirmations(tried, self.decided, random.SystemRandom()))
        void = trial.no_change(copies)
        seconds = self.decided.seconds + time.monotonic() - trial.started
        return MutationRun(tried, skipped, void, trial.incomplete, "", seconds)

    def _fate(self, key: str, mutant: Mutant, tests: tuple[str, ...], trial: _Trial) -> Tried:
        """The mutant's fate: uncovered when no test file ran its line; else as the check's processes
        decided it; else run in a process of its own by the covering test files they left undecided."""
        if not tests:
            return Tried(mutant, "uncovered")
        found = self.decided.fate(key, tests)
        if found is not None:
            return Tried(mutant, *found)
        if trial.enough < float("inf") and self.decided.said(key, step.NOT_NEEDED):
            # its process had its share after a survivor
            return Tried(mutant, "not_run", step.NOT_NEEDED)
        return trial.fate(mutant, self.decided.left(key, tests))

    def without(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` with what `env()` added taken out again: once read, the plan's folder is gone, and a later
        run of the check (in another order, with the base's tests) could not load the preload."""
        kept = {k: v for k, v in env.items() if k not in (PLAN_VARIABLE, KEY_VARIABLE)}
        if self.preload and "NODE_OPTIONS" in kept:
            rest = " ".join(kept["NODE_OPTIONS"].replace(self.preload, "").split())
            if rest:
                kept["NODE_OPTIONS"] = rest
            else:  # an empty value would hide the environment's own
                del kept["NODE_OPTIONS"]
        return kept

    def _mutants(self, where: Path) -> _Made:
        """The mutants of the files at `where`, made once: the processes' plan and the fallback name the
        same mutants by their index."""
        if self._made is None:
            self._made = self._make(where)
        return self._made

    def _make(self, where: Path) -> _Made:
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
        chosen = spread(made)[: self.bounds.mutants]
        copies: dict[tuple[str, int], Mutant] = {}
        for path in {m.path for m in chosen}:
            found = jssentinel.sentinels_of(path, sources[path], [m for m in chosen if m.path == path])
            copies.update({(path, line): copy for line, copy in found.items() if copy is not None})
        return _Made(sources, chosen, tuple(skipped), copies)


def survivor_in(decided: nodereports.Decided, covering: Sequence[Sequence[str]]) -> bool:
    """Whether the check's processes let a mutant live in every test file that ran its line (`covering`,
    by the mutant's index): a mutant no test file ran is uncovered, no survivor."""
    return any(tests and decided.fate(str(i), tests) == ("survived", "") for i, tests in enumerate(covering))


def confirmations(
    tried: Sequence[Tried], decided: nodereports.Decided, pick: random.Random
) -> list[tuple[Mutant, tuple[str, ...]]]:
    """The kill to run again in a process of its own (`_Trial.confirm`): one changed line whose mutants
    the check's processes killed, drawn by `pick`, and one of those kills, with the test files whose
    processes killed it. `tried`: each mutant's fate, by its index (its key in `decided`). None once a
    mutant survived or was not run: the change is not LIGHT whatever they show."""
    # One for the whole change, not one a line: each costs two processes of their own (the mutant and its
    # line's copy), a whole run of the covering tests on a small change, and the line drawn is one the tests
    # cannot know. A kill in the tests' own process can come from what their first run kept where a run
    # again finds it (a memo on `process`, in a module the code under test loads, in a folder the preload
    # does not watch), a process that run never touched cannot; a line's mutants all die there only when
    # its tests check it, so one drawn at random gives such a memo away with the share of the line's kills
    # that are only the memo's. Kills of the gate's own runs were in processes of their own already.
    if any(t.fate in ("survived", "not_run") for t in tried):
        return []
    by_line: dict[tuple[str, int], list[tuple[Mutant, tuple[str, ...]]]] = {}
    for key, found in enumerate(tried):
        tests = decided.killers(str(key)) if found.fate == "killed" else ()
        if tests:
            by_line.setdefault((found.mutant.path, found.mutant.line), []).append((found.mutant, tests))
    return [pick.choice(by_line[pick.choice(sorted(by_line))])] if by_line else []


def _rewritten(out: Path) -> str:
    """The first of the files written for the check's processes in `out` (the preload, its parts, the plan)
    that is not as tiergate wrote it (its inode or change time moved: red team 36), or a file added beside
    them that the preload could load; "" when none."""
    stamps = ownfiles.stamps()
    for path in sorted([*out.glob("*.cjs"), *out.glob("*.json"), *out.glob("nodemutants/*")]):
        if path.name.startswith("node-") or path.name in ("fates", "spent"):
            continue  # the processes' reports and ledgers, theirs to write
        try:
            found = path.stat()
        except OSError:
            return path.name
        if stamps.get(str(path.resolve())) != (found.st_ino, found.st_ctime_ns):
            return path.name
    return ""


def _bare(made: _Made) -> list[tuple[str, int]]:
    """The lines of mutants with no copy that behaves the same, by path and line."""
    return sorted({(m.path, m.line) for m in made.mutants} - set(made.copies))


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
        self.before: Snapshot | None = None  # the copy as the check found it
        self.kills: dict[tuple[str, int], set[tuple[str, ...]]] = {}  # each line's killing runs
        self.after_survivor = 0.0  # the seconds the rest get once a mutant survived (`step.AFTER_SURVIVOR`)
        self.enough = float("inf")

    def survived(self) -> None:
        if self.enough == float("inf"):
            self.enough = time.monotonic() + self.after_survivor

    def fate(self, mutant: Mutant, tests: Sequence[str]) -> Tried:
        if time.monotonic() > self.deadline:
            self.incomplete = OUT_OF_TIME
            return Tried(mutant, "not_run", OUT_OF_TIME)
        if time.monotonic() > self.enough:
            return Tried(mutant, "not_run", step.NOT_NEEDED)
        unsure = self.before.put_back() if self.before is not None else ""
        if unsure:
            self.incomplete = self.incomplete or unsure
            return Tried(mutant, "not_run", unsure)
        if self.fails(mutant, tests):
            self.kills.setdefault((mutant.path, mutant.line), set()).add(tuple(tests))
            return Tried(mutant, "killed", " ".join(tests))
        self.survived()
        return Tried(mutant, "survived")

    def confirm(self, picks: Sequence[tuple[Mutant, tuple[str, ...]]]) -> None:
        """Each kill of `picks` (`confirmations`: a mutant the tests' own processes killed, and their test
        files) run again in a process of its own, the copy put back first: one that does not fail there
        leaves the step incomplete. Each that does is a kill of `no_change`'s, whose copy that behaves the
        same runs there too. Nothing once the step is incomplete."""
        for mutant, tests in picks:
            if self.incomplete:
                return
            if time.monotonic() > self.deadline:
                self.incomplete = OUT_OF_TIME
                return
            unsure = self.before.put_back() if self.before is not None else ""
            if unsure:
                self.incomplete = unsure
            elif not self.fails(mutant, tests):
                self.incomplete = (
                    "a kill in the tests' own process did not repeat in a process of its own "
                    f"({mutant.describe()})"
                )
            else:
                self.kills.setdefault((mutant.path, mutant.line), set()).add(tuple(tests))

    def no_change(self, copies: Mapping[tuple[str, int], Mutant]) -> str:
        """Why the kills here say nothing ("": they do): a run that killed a line's mutant fails again,
        the same test files run the same way, with the line's copy that behaves the same in."""
        for place, runs in sorted(self.kills.items()):
            for tests in sorted(runs):
                unsure = self.before.put_back() if self.before is not None else ""
                if unsure or self.fails(copies[place], tests):
                    path, line = place
                    return (
                        f"{' '.join(tests)} failed with line {line} of {path} changed in no way that matters"
                    )
        return ""

    def fails(self, mutant: Mutant, tests: Sequence[str]) -> bool:
        """Whether the `tests` fail with `mutant` in. With an empty temporary folder of their own (TMPDIR,
        made in the check's): nothing the check's run or an earlier one left there (answers kept in the
        name of a folder `fs.mkdtemp` made) judges the mutant. Isolated, they see of the folder holding the
        copy only the copy (`sandbox.narrowed`): not what the check's run wrote beside it."""
        path = self.where / mutant.path
        original = self.sources[mutant.path]
        kept = self.env.get("TMPDIR", "")
        temporary = tempfile.mkdtemp(prefix="mutant-", dir=kept if kept and Path(kept).is_dir() else None)
        self.write(path, mutant.apply(original))
        try:
            command = "node --test " + " ".join(shlex.quote(t) for t in tests)
            check = make_check("mutant", command, "tiergate mutants")
            env = sandbox.narrowed({**self.env, "TMPDIR": temporary}, self.where)
            [result] = run_checks([check], self.where, Running(timeout=self.each), env={check.key: env})
        finally:
            self.write(path, original)
            shutil.rmtree(temporary, ignore_errors=True)
        return result.status != "passed"
