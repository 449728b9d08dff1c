"""How well tests cover a change: `none`, `partial` or `full`, and one line of evidence saying why.

The changed executable lines of code files that are not tests (per ecosystem: `ECOSYSTEMS`) are looked up
in what the gate measured, else in coverage files newer than the change. Without usable data never `full`:
`partial` when tests touch the change, `none` when not. No changed executable line: `full`, vacuously,
said so. The rules in full: docs/coverage.md.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import posixpath
import re
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Literal

from tiergate.frozen import frozen
from tiergate.git import changes, search
from tiergate.text import AND_MORE, more_than, quote_inline
from tiergate.tier.change import ChangeMeasurement, FileChange
from tiergate.tier.content.patch import parse_patch
from tiergate.tier.coverage import datafiles
from tiergate.tier.coverage.lines import GATE_FORMATS, CoverageData, GateCoverage, LineMap

Level = Literal["none", "partial", "full"]


@frozen
class CoverageJudgement:
    level: Level
    evidence: str  # one line: where the judgement came from


@frozen
class Ecosystem:
    """What is code and what is a test, for one family of languages."""

    name: str
    code: tuple[str, ...]  # suffixes of source files a line-coverage tool measures
    test_names: tuple[str, ...]  # file-name patterns (case-sensitive) of tests
    test_dirs: tuple[str, ...]  # directories (a '/'-joined sequence) whose files are tests


ECOSYSTEMS: tuple[Ecosystem, ...] = (
    Ecosystem("Python", (".py",), ("test_*.py", "*_test.py", "conftest.py"), ("tests", "test")),
    Ecosystem(
        "JavaScript/TypeScript",
        (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte"),
        # `node --test` runs its own defaults too: `*_test.js`, `*-test.js`, `test-*.js`, `test.js`.
        ("*.test.*", "*.spec.*", "*_test.*", "*-test.*", "test-*.*", "test.*"),
        ("__tests__", "tests", "test"),
    ),
    Ecosystem("Go", (".go",), ("*_test.go",), ()),
    # Unit tests live inside the code they test (`#[cfg(test)]`); only integration tests have a place.
    Ecosystem("Rust", (".rs",), (), ("tests",)),
    Ecosystem(
        "Java/Kotlin/Scala/Groovy",
        (".java", ".kt", ".scala", ".groovy"),
        ("*Test.*", "*Tests.*", "*IT.*", "Test*.*", "*Spec.*"),
        ("src/test",),
    ),
    Ecosystem("Ruby", (".rb",), ("*_spec.rb", "*_test.rb", "test_*.rb"), ("spec", "test")),
    Ecosystem(
        "C/C++",
        (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp"),
        ("*_test.*", "*_unittest.*", "test_*.*"),
        ("tests", "test"),
    ),
    Ecosystem("C#", (".cs",), ("*Test.cs", "*Tests.cs"), ()),
    Ecosystem("PHP", (".php",), ("*Test.php",), ("tests",)),
    Ecosystem("Shell", (".sh", ".bash", ".bats"), ("*.bats", "test_*.sh", "*_test.sh"), ("tests", "test")),
)
_BY_SUFFIX = {suffix: eco for eco in ECOSYSTEMS for suffix in eco.code}
# Each ecosystem's test-name patterns as one compiled match: `classify` runs on every changed path of a
# claim, and fnmatch pattern by pattern cost a 2,000-file change some 30 ms.
_TEST_NAME = {
    eco.name: re.compile("|".join(fnmatch.translate(p) for p in eco.test_names)) for eco in ECOSYSTEMS
}
# Stems that name a role, not a module: a test names the package (the directory) instead.
_GENERIC_STEMS = frozenset({"__init__", "__main__", "index", "main", "mod", "lib"})
_MIN_STEM = 3
# Beyond this many paths the diff runs unrestricted and is filtered here, keeping the command line short.
_MAX_PATHSPECS = 1000
_NAMED = 3

Kind = Literal["code", "test"]


def classify(path: str) -> Kind | None:
    """'test', 'code' (measurable source that is not a test), or None (docs, config, data, ...)."""
    eco = _BY_SUFFIX.get(posixpath.splitext(path)[1].lower())
    if eco is None:
        return None
    name, directory = posixpath.basename(path), "/" + posixpath.dirname(path) + "/"
    if (eco.test_names and _TEST_NAME[eco.name].match(name)) or any(
        f"/{d}/" in directory for d in eco.test_dirs
    ):
        return "test"
    return "code"


def pathspecs_of_tests() -> list[str]:
    """git pathspecs that select every file `classify` may call a test (and then some)."""
    names = {f":(glob)**/{p}" for eco in ECOSYSTEMS for p in eco.test_names}
    dirs = {f":(glob)**/{d}/**" for eco in ECOSYSTEMS for d in eco.test_dirs}
    return sorted(names | dirs)


def judge_coverage(
    change: ChangeMeasurement, gate: GateCoverage | None = None, patch: bytes | None = None
) -> CoverageJudgement:
    """The judgement; from what the gate measured (`gate`) when it measured any, and then never from
    coverage files in the workspace, which the agent can write. `patch`: the change's `git diff -U0 -M`
    when the caller already has it (the content rules read the same one), else it is run here when the
    line numbers are needed."""
    grown = _grown(change)
    if not grown:
        return CoverageJudgement(
            "full", _vacuous(change, [f for f in change.files if classify(f.path) == "code"])
        )
    off = f"; not measured at the gate: {_some(gate.off)}" if gate is not None and gate.off else ""
    if gate is not None and gate.measured:
        data, reason = list(gate.measured), off
    else:
        data, reason = _usable_data(change, {f.path for f in grown})
        reason += off
    if not data:
        return _fallback(change, grown, reason)
    lines = changed_lines(change, grown, patch)
    lost = [f.path for f in grown if f.path not in lines]
    if lost:  # never judge from the lines that happened to be found
        return _fallback(change, grown, f"changed line numbers unknown for {_some(lost)}")
    return _from_data(data, _placed(change.root, lines), reason)


def measurable_files(change: ChangeMeasurement) -> tuple[str, ...]:
    """The changed code files that have new lines: the ones whose coverage is judged."""
    return tuple(f.path for f in _grown(change))


def _grown(change: ChangeMeasurement) -> list[FileChange]:
    # A file has new-side lines exactly when it has additions; their numbers are needed only with data.
    code = [f for f in change.files if classify(f.path) == "code"]
    return [f for f in code if f.status != "deleted" and not f.binary and f.additions]


def changed_lines(
    change: ChangeMeasurement, files: Sequence[FileChange], patch: bytes | None = None
) -> dict[str, frozenset[int]]:
    """New-side line numbers per file, for the given files that have any (from `patch`, a diff of at
    least those files, when given)."""
    lines = {f.path: frozenset(range(1, f.additions + 1)) for f in files if f.status == "untracked"}
    diffed = [f for f in files if f.status != "untracked" and f.additions]
    if diffed:
        if patch is None:
            paths = [p for f in diffed for p in (f.path, f.old_path) if p]
            patch = changes.diff_patch(
                change.root, change.base, paths if len(paths) <= _MAX_PATHSPECS else ()
            )
        wanted = {f.path for f in diffed}
        lines.update((p, n) for p, n in _added_lines(patch).items() if p in wanted)
    return {path: numbers for path, numbers in lines.items() if numbers}


def _added_lines(patch: bytes) -> dict[str, frozenset[int]]:
    return {f.path: frozenset(f.added_numbers) for f in parse_patch(patch) if f.added_runs}


def _vacuous(change: ChangeMeasurement, code: Sequence[FileChange]) -> str:
    tail = "no changed executable line to cover"
    if not change.files:
        return f"empty change: {tail}"
    if code:
        return f"code changed only by deletions, moves or mode changes ({_count(code, 'file')}): {tail}"
    return f"no code changed ({_count(change.files, 'file')}: docs, config, data or tests): {tail}"


def _usable_data(change: ChangeMeasurement, wanted: Collection[str]) -> tuple[list[CoverageData], str]:
    """The coverage files newer than the change, read; and a note on those that are not usable."""
    found = datafiles.present(change.root)
    if not found:
        return [], "no coverage data"
    newest, newest_path = _newest_change(change)
    usable: list[CoverageData] = []
    notes: list[str] = []
    for name, fmt in found:
        if (change.root / name).stat().st_mtime_ns <= newest:
            notes.append(f"{name} is stale, older than {newest_path}")
            continue
        try:
            usable.append(datafiles.load(change.root, name, fmt, wanted))
        except datafiles.CoverageDataError as e:
            notes.append(f"{name} is unreadable: {e}")
    if usable:
        return usable, f"; not used: {'; '.join(notes)}" if notes else ""
    return [], f"coverage data not usable ({'; '.join(notes)})"


def _newest_change(change: ChangeMeasurement) -> tuple[int, str]:
    newest, newest_path = 0, ""
    for f in change.files:
        if f.status == "deleted" or f.path.endswith("/") or _is_artefact(f.path):
            continue
        try:
            mtime = os.lstat(change.root / f.path).st_mtime_ns
        except OSError:
            continue
        if mtime > newest:
            newest, newest_path = mtime, f.path
    return newest, newest_path


_ARTEFACTS = frozenset(name for name, _ in datafiles.LOCATIONS)


def _is_artefact(path: str) -> bool:
    """Coverage output itself: written with or after the data, it says nothing about the code."""
    return (
        path in _ARTEFACTS
        or posixpath.basename(path).startswith(".coverage")
        or path.startswith(("htmlcov/", "coverage/lcov-report/"))
    )


def _placed(root: Path, lines: dict[str, frozenset[int]]) -> dict[str, dict[frozenset[int], frozenset[int]]]:
    """Each file's changed lines grouped in the units coverage data knows, unit -> its changed lines: a
    changed line of a Python statement that spans lines stands for its statement
    (`tiergate.tier.coverage.statements`), each other line for itself."""
    from tiergate.tier.coverage.statements import statement_lines

    placed: dict[str, dict[frozenset[int], frozenset[int]]] = {}
    for path, numbers in lines.items():
        spans = None
        if path.endswith(".py"):
            with contextlib.suppress(OSError):
                spans = statement_lines((root / path).read_bytes())
        units: dict[frozenset[int], frozenset[int]] = {}
        for n in numbers:
            unit = spans.get(n, frozenset({n})) if spans else frozenset({n})
            units[unit] = units.get(unit, frozenset()) | {n}
        placed[path] = units
    return placed


def _from_data(
    data: Sequence[CoverageData], lines: dict[str, dict[frozenset[int], frozenset[int]]], note: str
) -> CoverageJudgement:
    merged = LineMap()
    for d in data:
        merged.add(d)
    total = hit = 0
    missed: list[str] = []
    unknown: list[str] = []
    for path, units in sorted(lines.items()):
        known = merged.get(path)
        if known is None:
            total += len(units)
            unknown.append(f"{path} ({_count(len(units), 'line')})")
            continue
        executable = [unit for unit in units if unit & known.executable]
        ran = [unit for unit in executable if unit & known.hit]
        total, hit = total + len(executable), hit + len(ran)
        if len(ran) < len(executable):
            not_run = [n for unit in executable if unit not in ran for n in units[unit]]
            missed.append(f"{path}:{_ranges(not_run)}")
    source = _sources(data)
    if not total:
        level: Level = "full"
        evidence = (
            f"{source} knows none of the changed lines of {_count(lines, 'code file')} as executable: "
            "no changed executable line to cover"
        )
    else:
        level = "full" if hit == total else "partial" if hit else "none"
        evidence = f"{source} {'cover' if len(data) > 1 else 'covers'} {hit}/{total} changed executable lines"
    if missed:
        evidence += f"; not run: {_some(missed)}"
    if unknown:
        evidence += f"; files the data does not know: {_some(unknown)}"
    return CoverageJudgement(level, evidence + note)


def _fallback(change: ChangeMeasurement, code: Sequence[FileChange], reason: str) -> CoverageJudgement:
    touches = _test_touches(change, code)
    if not touches:
        return CoverageJudgement(
            "none", f"{reason}; tests touch none of the {_count(code, 'changed code file')}"
        )
    return CoverageJudgement(
        "partial", f"{reason}; tests touch the change ({'; '.join(touches)}): partial at most"
    )


def _test_touches(change: ChangeMeasurement, code: Sequence[FileChange]) -> list[str]:
    changed_tests = [f.path for f in change.files if f.status != "deleted" and classify(f.path) == "test"]
    stems = sorted({s for f in code if (s := _stem(f.path))})
    found = search.grep_files(change.root, stems, pathspecs_of_tests(), change.base)
    naming = [p for p in found if classify(p) == "test" and p not in changed_tests]
    twins = [f.path for f in code if _has_own_tests(change.root, f.path)]
    touches = []
    if changed_tests:
        touches.append(f"{_count(changed_tests, 'changed test file')}: {_some(changed_tests)}")
    if naming:
        touches.append(f"{_count(naming, 'test file')} naming changed modules: {_some(naming)}")
    if twins:
        touches.append(f"{_count(twins, 'changed file')} with tests of its own: {_some(twins)}")
    return touches


def _stem(path: str) -> str | None:
    directory, name = posixpath.split(path)
    stem = posixpath.splitext(name)[0]
    if stem in _GENERIC_STEMS:
        stem = posixpath.basename(directory)
    return stem if len(stem) >= _MIN_STEM else None


def _has_own_tests(root: Path, path: str) -> bool:
    """A Go file with its `_test.go` twin beside it, or a Rust file with a `#[cfg(test)]` module."""
    if path.endswith(".go"):
        return (root / (path[: -len(".go")] + "_test.go")).is_file()
    if path.endswith(".rs"):
        try:
            return b"#[cfg(test)]" in (root / path).read_bytes()
        except OSError:
            return False
    return False


def _sources(data: Sequence[CoverageData]) -> str:
    if all(d.format in GATE_FORMATS for d in data):
        return f"{', '.join(d.source for d in data)}, measured at the gate,"
    if len(data) == 1:
        return f"{data[0].source} ({data[0].format}, newer than the change)"
    listed = ", ".join(f"{d.source} ({d.format})" for d in data)
    return f"{listed}, all newer than the change,"


def _ranges(numbers: Iterable[int]) -> str:
    """'3-5,9' for {3, 4, 5, 9}."""
    spans: list[list[int]] = []
    for n in sorted(numbers):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _some(items: Sequence[str]) -> str:
    # The items name the agent's files: escaped, so that a name cannot break the evidence's one line.
    shown = ", ".join(quote_inline(item) for item in items[:_NAMED])
    return shown + more_than(len(items), _NAMED, AND_MORE)


def _count(items: Iterable[object] | int, noun: str) -> str:
    n = items if isinstance(items, int) else sum(1 for _ in items)
    return f"{n} {noun}{'' if n == 1 else 's'}"
