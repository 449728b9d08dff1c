"""The mutants of one gate run: made from the claim's copy, handed to the Python test check that measures
the change's coverage (its pytest runs them once its own tests pass: `pytestmutants`), their fates read
back as a `MutationRun`. At most `MutantBounds.mutants` mutants, spread over the changed lines (each line's
first mutant before any line's second), within `MutantBounds.seconds`, which the check's time limit gets
beside its own: the mutants run inside the check's run.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tiergate.gate import ownfiles, planted
from tiergate.gate.checks import CheckResult
from tiergate.gate.request import MutantBounds
from tiergate.text import quote_inline, quote_path
from tiergate.tier.change import ChangeMeasurement
from tiergate.tier.coverage.judgement import changed_lines, measurable_files
from tiergate.tier.coverage.statements import statement_lines
from tiergate.tier.mutation import pysentinel, python
from tiergate.tier.mutation.fates import MutationRun, Tried
from tiergate.tier.mutation.mutants import Mutant

PLAN_VARIABLE = "TIERGATE_MUTANTS"
# The run's key: the plugin takes it out of the environment before any test runs, and a report must hold it.
KEY_VARIABLE = "TIERGATE_MUTANTS_KEY"
# Which of several reports' fates of one mutant stands: a kill anywhere, then a survivor.
_RANK = ("killed", "survived", "not_run", "uncovered")
PLUGIN = "tiergate_mutants"
_PLUGIN_SOURCE = Path(__file__).parent / "pytestmutants"  # a package: the plugin and its parts
_SNAPSHOT_SOURCE = Path(__file__).parent / "snapshot.py"  # the plugin's, copied into it
_PLAN, _OUT = "mutants.json", "mutants-out.json"
# Once a mutant survived, the rest get this share of the tests' own time more, in a test process and in
# the gate's own runs (Python and JavaScript): enough to name the survivors that come cheap, never a run of
# every test for each (the change is not LIGHT whatever they show, and the step's cost stays a share of the
# tests' own). What is left then is not run for `NOT_NEEDED` (the plugin's and the preload's words).
AFTER_SURVIVOR = 0.25
NOT_NEEDED = "not needed: a mutant survived already"


class Step:
    """The mutants of the changed Python lines of the change `change_of` measures (when they are made)."""

    def __init__(self, bounds: MutantBounds, change_of: Callable[[], ChangeMeasurement]) -> None:
        self.bounds, self._change_of = bounds, change_of
        self._change: ChangeMeasurement | None = None
        self.mutants: dict[str, Mutant] = {}
        self.skipped: list[str] = []
        self.out: Path | None = None
        self.key = ""
        self.sources: dict[str, bytes] = {}
        self.plugin = PLUGIN
        self.secret = secrets.token_hex(16)
        self.unmade: list[str] = []  # changed files no mutant could be made of, and why
        self.unchecked: list[str] = []  # units whose kills no copy that behaves the same checks

    def env(self, key: str, where: Path, out: Path) -> dict[str, str]:
        """The variables that make check `key`'s pytest run the mutants, made from the files at `where`
        (the claim's copy); its plan and the plugin written under `out`. The plugin's folder goes on
        PYTHONPATH after the others (it holds no sitecustomize), the plugin under a name of this run's
        own: no module of the project's shadows it."""
        self.key = key
        self._make(where)
        if not self.mutants:
            return {}
        self.plugin = f"{PLUGIN}_{secrets.token_hex(8)}"
        package = out / "plugin" / self.plugin
        package.mkdir(parents=True)
        for source in (*sorted(_PLUGIN_SOURCE.glob("*.py")), _SNAPSHOT_SOURCE):
            shutil.copyfile(source, package / source.name)
            ownfiles.note(package / source.name)
        plan = self._plan(where, self.sources, out / _OUT, self.bounds.seconds)
        (out / _PLAN).write_text(json.dumps(plan))
        ownfiles.note(out / _PLAN)
        self.out = out / _OUT
        return {
            PLAN_VARIABLE: str(out / _PLAN),
            KEY_VARIABLE: self.secret,
            "PYTEST_PLUGINS": self.plugin,
            "PYTHONPATH": str(out / "plugin"),
        }

    def without(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` with what `env()` added taken out again."""
        kept = {k: v for k, v in env.items() if k not in (PLAN_VARIABLE, KEY_VARIABLE)}
        if self.out is None:
            return kept
        plugins = [p for p in kept.get("PYTEST_PLUGINS", "").split(",") if p and p != self.plugin]
        folders = [
            p for p in kept.get("PYTHONPATH", "").split(os.pathsep) if p != str(self.out.parent / "plugin")
        ]
        for name, parts, separator in (("PYTEST_PLUGINS", plugins, ","), ("PYTHONPATH", folders, os.pathsep)):
            if name in kept:
                kept[name] = separator.join(parts)
                if not parts:  # an empty value would hide the environment's own
                    del kept[name]
        return kept

    def change(self) -> ChangeMeasurement:
        """The change the mutants are made of, measured once."""
        if self._change is None:
            self._change = self._change_of()
        return self._change

    def collect(self, results: Sequence[CheckResult], hit: Mapping[str, frozenset[int]]) -> MutationRun:
        """The fates the check's run wrote (a `MutationRun` saying why, when it wrote none). `hit`: the
        lines its tests ran, by path, as the gate measured them. A changed file no mutant could be made
        of (not UTF-8, not parsed), or a function whose kills nothing checks, leaves the step incomplete."""
        ran = {r.key: r for r in results}.get(self.key)
        if ran is None or ran.status != "passed":
            return MutationRun(skipped=tuple(self.skipped), off="the tests did not all pass")
        found = self._collected(hit)
        missing = [
            *([f"no mutant could be made of {', '.join(self.unmade)}"] if self.unmade else []),
            *(f"no copy of {quote_inline(u)} that behaves the same could be made: its kills go unchecked"
              for u in self.unchecked),
        ]  # fmt: skip
        if not missing:
            return found
        return replace(found, incomplete="; ".join([*filter(None, [found.incomplete]), *missing]), off="")

    def _collected(self, hit: Mapping[str, frozenset[int]]) -> MutationRun:
        skipped = tuple(self.skipped)
        if not self.mutants:
            return MutationRun(skipped=skipped, off="no mutant could be made of the changed Python lines")
        assert self.out is not None
        # One report, or one per pytest-xdist worker (`<out>.gw0`, ...).
        reports = sorted(self.out.parent.glob(self.out.name + "*"))
        try:
            found = [planted.read_json(r) for r in reports if not r.name.endswith(".part")]
            # A report without the run's key is no plugin's of this run: written by the code under test.
            found = [f for f in found if isinstance(f, dict) and f.get("key") == self.secret]
            return (
                self._read(found, skipped, hit)
                if found
                else self._unread(skipped, "wrote no mutants' report")
            )
        except (OSError, KeyError, TypeError, ValueError, AttributeError):
            return self._unread(skipped, "wrote a mutants' report that cannot be read")

    def _unread(self, skipped: tuple[str, ...], why: str) -> MutationRun:
        tried = tuple(Tried(m, "not_run", f"the tests' run {why}") for m in self.mutants.values())
        return MutationRun(tried, skipped, incomplete=f"the tests' run {why}")

    def has_lines(self) -> bool:
        """Whether the change has Python lines to mutate at all."""
        return bool(python_lines(self.change()))

    def _make(self, where: Path) -> None:
        """The mutants of the changed lines of the files at `where` (`mutants`), and those files
        (`sources`); what could not be made, and why (`unmade`, `skipped`)."""
        made: dict[str, list[Mutant]] = {}
        sources: dict[str, bytes] = {}
        for path, numbers in sorted(python_lines(self.change()).items()):
            try:
                content = (where / path).read_bytes()
                content.decode()
            except (OSError, UnicodeDecodeError) as exc:
                self.unmade.append(f"{quote_path(path)} ({type(exc).__name__})")
                continue
            found = python.mutants_of(path, content, numbers, self.bounds.per_line)
            if not found.mutants and any(why.startswith("not parsed") for _, why in found.skipped):
                self.unmade.append(f"{quote_path(path)} (it does not parse)")
            self.skipped.extend(f"{path}:{line}: {why}" for line, why in found.skipped)
            made[path], sources[path] = list(found.mutants), content
        chosen = spread(made)
        if len(chosen) > self.bounds.mutants:  # never dropped unsaid: lines left out would hide in it
            self.unmade.append(f"{len(chosen) - self.bounds.mutants} mutants past [mutation] max_mutants")
        for index, mutant in enumerate(chosen[: self.bounds.mutants]):
            self.mutants[str(index)] = mutant
        self.sources = sources

    def _plan(self, where: Path, sources: Mapping[str, bytes], out: Path, seconds: float) -> dict[str, Any]:
        def entry(name: str, mutant: Mutant) -> dict[str, Any]:
            real = os.path.realpath(where / mutant.path)
            text = mutant.apply(sources[mutant.path]).decode()
            return {"id": name, "file": real, "unit": mutant.unit, "first": mutant.first, "line": mutant.line,
                    "source": text}  # fmt: skip

        units = {(m.path, m.unit, m.first): m for m in self.mutants.values()}
        sentinels = [pysentinel.sentinel_of(m.path, sources[m.path], m) for m in units.values()]
        # A function with no copy that behaves the same: its kills could not be checked.
        self.unchecked = [
            m.unit or m.path for m, s in zip(units.values(), sentinels, strict=True) if s is None
        ]
        return {
            "out": str(out),
            "seconds": seconds,
            "after_survivor": AFTER_SURVIVOR,
            "files": sorted({os.path.realpath(where / p) for p in sources}),
            "mutants": [entry(name, m) for name, m in self.mutants.items()],
            "sentinels": [entry(f"s{i}", s) for i, s in enumerate(sentinels) if s is not None],
        }

    def _read(
        self, found: Sequence[Mapping[str, Any]], skipped: tuple[str, ...], hit: Mapping[str, frozenset[int]]
    ) -> MutationRun:
        """The reports as one: a mutant any of them killed is killed, one survived where none killed it;
        one "uncovered" on a line the gate saw run was not run (its tests went unseen, whatever hid them)."""
        offs = [str(f["off"]) for f in found if f.get("off")]
        found = [f for f in found if not f.get("off")]
        if not found:
            return MutationRun(skipped=skipped, off=offs[0])
        if offs:  # a worker whose tests failed: the check fails too, and no mutant is judged
            return MutationRun(skipped=skipped, off=offs[0])
        tried = []
        for name, mutant in self.mutants.items():
            fates = [tuple(f["fates"].get(name, ("not_run", "its tests' run ended first"))) for f in found]
            fate, by = min(fates, key=lambda pair: _RANK.index(pair[0]))
            if fate == "uncovered" and self._ran(mutant, hit):
                fate, by = "not_run", "its line ran, but under no test the mutants' plugin saw"
            tried.append(Tried(mutant, fate, str(by)))
        return MutationRun(
            tuple(tried),
            skipped,
            "; ".join(str(f["void"]) for f in found if f["void"]),
            "; ".join(str(f["incomplete"]) for f in found if f["incomplete"]),
            "",
            max(float(f["seconds"]) for f in found),
        )

    def _ran(self, mutant: Mutant, hit: Mapping[str, frozenset[int]]) -> bool:
        spans = statement_lines(self.sources[mutant.path]) or {}
        return bool(spans.get(mutant.line, frozenset({mutant.line})) & hit.get(mutant.path, frozenset()))


def python_lines(change: ChangeMeasurement) -> dict[str, frozenset[int]]:
    """The changed lines of the change's Python code files (tests aside), by path."""
    wanted = {p for p in measurable_files(change) if p.endswith(".py")}
    return changed_lines(change, [f for f in change.files if f.path in wanted]) if wanted else {}


def spread(made: Mapping[str, list[Mutant]]) -> list[Mutant]:
    """Every mutant made, each changed line's most telling first (`python.PRIORITY`), then each line's
    second, and so on: a count cut from the end takes from every line alike."""
    by_line: dict[tuple[str, int], list[Mutant]] = {}
    for path, mutants in made.items():
        for mutant in sorted(mutants, key=lambda m: (python.PRIORITY.index(m.operator), m.start)):
            by_line.setdefault((path, mutant.line), []).append(mutant)
    chosen: list[Mutant] = []
    for rank in range(max((len(m) for m in by_line.values()), default=0)):
        chosen.extend(m[rank] for _, m in sorted(by_line.items()) if len(m) > rank)
    return chosen
