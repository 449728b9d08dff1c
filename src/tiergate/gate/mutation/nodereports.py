"""The JavaScript mutants' in-process step, as the gate sees it: the plan the check's `node --test` processes
read (`plan`), and what they decided, read back from their reports (`read`) and merged over the processes
(`Decided.fate`): killed when one killed it; survived when every test file whose process ran its line (V8's
coverage of the check's run) says survived; else the test files that did not are left to run it in a
process of its own. The preload that runs them is `nodemutants.cjs`; `nodestep` runs the rest.
"""

# A process decides a mutant killed when one of its tests failed with the mutant in and passed with a copy
# of the file that behaves the same; survived when every one of its tests that called into the mutant's
# module passed with the mutant in and the mutant's change ran.
from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from tiergate.frozen import frozen
from tiergate.gate import planted
from tiergate.gate.mutation import step
from tiergate.tier.mutation.fates import Fate
from tiergate.tier.mutation.mutants import Mutant


def plan(
    where: Path,
    sources: Mapping[str, bytes],
    made: Sequence[Mutant],
    copies: Mapping[tuple[str, int], Mutant],
    out: Path,
    seconds: float,
) -> dict[str, Any]:
    """The plan of the mutants `made` of the files `sources` (by path, relative to `where`): each file's
    real path; each line's copy that behaves the same (`copies`, by path and line); for each mutant its
    index in `made` (its id), its file's index, its line's copy's index, and its span and text, as offsets
    into the file's text as Node holds it (UTF-16 code units), in a random order; the folder `out` the
    reports go to, the step's `seconds`, summed over the processes, and `step.AFTER_SURVIVOR`."""
    paths = sorted({m.path for m in made})
    index = {path: at for at, path in enumerate(paths)}
    lines = sorted({(m.path, m.line) for m in made})
    line_index = {place: at for at, place in enumerate(lines)}
    entries = [
        _edit(sources, m, index) | {"id": str(key), "sentinel": line_index[m.path, m.line]}
        for key, m in enumerate(made)
    ]
    random.SystemRandom().shuffle(entries)
    return {
        "out": str(out),
        "seconds": seconds,
        "after_survivor": step.AFTER_SURVIVOR,
        "files": [{"file": os.path.realpath(where / p)} for p in paths],
        "sentinels": [_edit(sources, copies[place], index) for place in lines],
        "mutants": entries,
    }


def _edit(sources: Mapping[str, bytes], mutant: Mutant, index: Mapping[str, int]) -> dict[str, Any]:
    """A mutant's (or a copy's) file, span and text as Node sees the file."""
    content = sources[mutant.path]
    return {
        "file": index[mutant.path],
        "start": _units(content, mutant.start),
        "end": _units(content, mutant.end),
        "original": mutant.original,
        "replacement": mutant.replacement,
    }


def _units(content: bytes, offset: int) -> int:
    """The byte `offset` into UTF-8 `content` as an offset into its text in UTF-16 code units."""
    return len(content[:offset].decode("utf-8", errors="replace").encode("utf-16-le")) // 2


@frozen
class Decided:
    """What the check's processes decided of each mutant (by its id), each with the test file it ran, and
    the seconds they spent on it in all."""

    processes: tuple[tuple[str, Mapping[str, tuple[str, str]]], ...] = ()
    seconds: float = 0.0
    problems: tuple[str, ...] = field(default=())

    def fate(self, key: str, covering: Sequence[str]) -> tuple[Fate, str] | None:
        """Mutant `key`'s fate and by whom when the processes decided it: killed by a test of one of them,
        or survived in every test file of `covering` (those whose process ran its line); else None."""
        for _, fates in self.processes:
            fate, by = fates.get(key, ("", ""))
            if fate == "killed":
                return ("killed", by)
        return None if self.left(key, covering) else ("survived", "")

    def survived_somewhere(self, key: str) -> bool:
        """Whether some process let mutant `key` live and none killed it."""
        fates = [found.get(key, ("", ""))[0] for _, found in self.processes]
        return "survived" in fates and "killed" not in fates

    def killers(self, key: str) -> tuple[str, ...]:
        """The test files whose process killed mutant `key` (none when no process did)."""
        found = {test for test, fates in self.processes if fates.get(key, ("", ""))[0] == "killed"}
        return tuple(sorted(found))

    def said(self, key: str, why: str) -> bool:
        """Whether a process left mutant `key` undecided for `why`."""
        return any(fates.get(key) == ("undecided", why) for _, fates in self.processes)

    def left(self, key: str, covering: Sequence[str]) -> tuple[str, ...]:
        """The test files of `covering` whose process did not decide mutant `key`."""
        survived = {test for test, fates in self.processes if fates.get(key, ("", ""))[0] == "survived"}
        return tuple(test for test in covering if test not in survived)


def read(folder: Path, where: Path, key: str) -> Decided:
    """The reports the check's processes wrote in `folder` (one a test file), their test files and test ids
    relative to `where`. A report that cannot be read, or that does not hold the plan's `key` (the preload
    took it out of the environment before the tests' code ran), decides nothing: its mutants run in
    processes of their own."""
    processes: list[tuple[str, Mapping[str, tuple[str, str]]]] = []
    seconds = 0.0
    problems: list[str] = []
    for path in sorted(folder.glob("node-*.json")):
        try:
            data = planted.read_json(path)
            if not isinstance(data, dict) or data.get("key") != key:
                raise ValueError("not the preload's report")
            found = _report(data, where)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            problems.append(f"{path.name}: {type(exc).__name__}")
            continue
        processes.append(found[:2])
        seconds += found[2]
    return Decided(tuple(processes), seconds, tuple(problems))


def _report(data: Mapping[str, Any], where: Path) -> tuple[str, dict[str, tuple[str, str]], float]:
    fates: dict[str, tuple[str, str]] = {}
    for key, (fate, by) in data["fates"].items():
        if fate not in ("killed", "survived", "undecided"):
            raise ValueError(f"not a fate: {fate!r}")
        fates[str(key)] = (fate, _test_id(str(by), where) if fate == "killed" else str(by))
    return _relative(str(data["test_file"]), where), fates, float(data.get("seconds", 0.0))


def _test_id(test: str, where: Path) -> str:
    """A test's id as the preload wrote it (its file's path, then its suites' and its name, " > " between)
    with the file's path relative to `where`."""
    file, _, names = test.partition(" > ")
    return f"{_relative(file, where)} > {names}" if names else _relative(file, where)


def _relative(path: str, where: Path) -> str:
    real, top = os.path.realpath(path), os.path.realpath(where)
    return os.path.relpath(real, top) if real.startswith(top + os.sep) else path
