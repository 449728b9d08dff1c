"""Outwitting by literals, at a claim: the tests that failed when the loop began, read as they were at
the base commit (from git objects: the agent may have edited the workspace's), and their values looked
for in the change's implementation lines (the adapter of the pure `tiergate.tier.content.answers`).
Costs nothing more unless the change adds a branching line with a telling literal; then, without the
base's test outcomes in its baseline, the test checks run at the base once (`ensure_baseline`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tiergate import TYPE_CHECKING
from tiergate.git import repository, runner
from tiergate.tier.content import rustanswers
from tiergate.tier.content.answers import (
    TestLiterals,
    branches,
    find_answers,
    literals,
    read_tests,
    rust_literals,
)
from tiergate.tier.content.testfiles import is_test

if TYPE_CHECKING:
    from tiergate.config.settings import Config
    from tiergate.gate.checks import Check
    from tiergate.gate.standing import BaselineEntry
    from tiergate.project import Project
    from tiergate.tier.change import ChangeMeasurement
    from tiergate.tier.content import ContentHit, FileLines

FAILING_NOTE = "failing when the loop began"
UNKNOWN_NOTE = "at the base; whether it failed then is unknown: no time was left to run the base"
MAX_TEST_FILES = 400
MAX_TEST_BYTES = 4_000_000


def hard_coded_answers(
    project: Project, config: Config, base: str, change: ChangeMeasurement, time_left: float | None = None
) -> tuple[ContentHit, ...]:
    """A hit per test that failed at the base whose values the change writes into its code (none when
    the outwitting rules are off, or nothing can be compared). `time_left`: seconds the claim may still
    spend on a run at the base (None: unbounded); with less than a check's timeout, a test of the base
    whose values the code holds is named without knowing whether it failed then: tiergate's lack of time
    never lowers a tier."""
    from tiergate.tier.assess import content_rules

    if not any(eco.name == "outwitting" for eco in content_rules(config)):
        return ()
    files = _suspect_files(change)
    if not files:
        return ()
    from tiergate.gate import baseline
    from tiergate.gate import cache as evidencecache
    from tiergate.gate.detection.projectchecks import checks_at_base

    commit = baseline.base_commit(project.root, base)
    # The gate's own checks (declared as at the base), whose outcomes there the baseline holds.
    checks = [c for c in checks_at_base(project.root, config, commit) if c.kind == "tests"]
    if commit is None or not checks:
        return ()
    top = repository.repo_root(project.root)
    inside = project.root.resolve().relative_to(top.resolve()).as_posix()
    failing = failing_tests(evidencecache.load_baseline(project, commit), checks)
    if failing is not None:
        tests = _base_tests(top, commit, inside, {path for path, _ in failing})
        return _named(tests, failing, files)
    tests = _base_tests(top, commit, inside, None)
    if not find_answers(tests, files):
        return ()
    return _with_base_run(project, commit, checks, tests, files, _base_timeout(config, time_left))


def _base_timeout(config: Config, time_left: float | None) -> float | None:
    """How long a run at the base may take: a check's timeout, within `time_left` (None: too little left)."""
    from tiergate.gate.timeouts import FLOOR, TimeLimits

    timeout = TimeLimits(config.gate.timeout_seconds).ceiling
    if time_left is None:
        return timeout
    if time_left < min(timeout, FLOOR):
        return None
    return min(timeout, time_left)


def _with_base_run(
    project: Project,
    commit: str,
    checks: Sequence[Check],
    tests: Sequence[TestLiterals],
    files: Sequence[FileLines],
    timeout: float | None,
) -> tuple[ContentHit, ...]:
    """No test outcomes at the base yet and some test there would be named: the base runs once within
    `timeout`; with no time left for it (None), every such test is named."""
    from tiergate.gate import baseline

    if timeout is None:
        return find_answers(tests, files, failing_note=UNKNOWN_NOTE)
    from tiergate.gate.processes import Running

    entries = baseline.ensure_baseline(project, commit, checks, Running(timeout=timeout))
    return _named(tests, failing_tests(entries, checks) or frozenset(), files)


def _named(
    tests: Sequence[TestLiterals], failing: frozenset[tuple[str, str]], files: Sequence[FileLines]
) -> tuple[ContentHit, ...]:
    chosen = [t for t in tests if t.key in failing]
    return find_answers(chosen, files, failing_note=FAILING_NOTE)


def _suspect_files(change: ChangeMeasurement) -> list[FileLines]:
    """The change's implementation files with an added branching line that holds a telling literal (a
    Rust file's code lines only, its tests told by where they stand in the file as the change leaves it)."""
    from tiergate.tier.changedlines import changed_lines

    found = []
    for changed in changed_lines(change):
        if changed.path.endswith(rustanswers.SUFFIX):
            code = _rust_code_lines(change.root, changed)
            if any(rustanswers.branches(t) and next(rust_literals(t), None) for t in code.added):
                found.append(code)
        elif not is_test(changed.path) and any(
            branches(t) and next(literals(t), None) for t in changed.added
        ):
            found.append(changed)
    return found


def _rust_code_lines(root: Path, changed: FileLines) -> FileLines:
    """A Rust file's added lines that are not its tests, as the workspace holds it (none when it cannot
    be read: gone since it was measured)."""
    try:
        source = (root / changed.path).read_bytes().decode("utf-8", "replace")
    except OSError:
        source = ""
    return rustanswers.code_lines(changed, source)


def failing_tests(
    entries: Mapping[str, BaselineEntry], checks: Sequence[Check]
) -> frozenset[tuple[str, str]] | None:
    """(file, test name) of each test that failed at the base in a test check; None when a test check
    has no baseline result yet (what failed cannot be told)."""
    from tiergate.gate.pertest.record import FAILING

    found: set[tuple[str, str]] = set()
    for check in checks:
        entry = entries.get(check.key)
        if entry is None:
            return None
        run = entry.result.tests
        if run is not None:
            found.update(runner_key(test, run.naming) for test in run.named(FAILING))
    return frozenset(found)


def runner_key(test: str, naming: str = "") -> tuple[str, str]:
    """A runner's test id as (file, test name): `tests/t.py::C::test_x[2-3]` is (`tests/t.py`,
    `test_x`), `test/t.test.js > suite > adds` is (`test/t.test.js`, `adds`); cargo's (`naming`) ids
    name no file: `tests::test_x` is ("", `tests::test_x`)."""
    if naming == "cargo":
        return "", test
    if "::" in test:
        parts = test.split("::")
        return parts[0], parts[-1].split("[", 1)[0]
    parts = test.split(" > ")
    return parts[0], parts[-1]


def _base_tests(top: Path, commit: str, inside: str, paths: set[str] | None) -> list[TestLiterals]:
    """The tests of the base's test files (`paths`, relative to the project; None: every test file; ""
    among them: every Rust file, since a Rust test can stand in any), with their literals, read from
    git's objects."""
    prefix = "" if inside in ("", ".") else f"{inside}/"
    if paths is None or "" in paths:
        listed = runner.run(top, "ls-tree", "-r", "-z", "--name-only", commit, "--", prefix or ".").stdout
        names = [n for n in listed.decode("utf-8", "surrogateescape").split("\0") if n.startswith(prefix)]
        rust = {n[len(prefix) :] for n in names if n.endswith(rustanswers.SUFFIX)}
        paths = rust | ({n[len(prefix) :] for n in names if is_test(n)} if paths is None else paths - {""})
    wanted = sorted(paths)[:MAX_TEST_FILES]
    tests: list[TestLiterals] = []
    for path, text in _blobs(top, commit, [prefix + p for p in wanted]):
        tests.extend(read_tests(path[len(prefix) :], text))
    return tests


def _blobs(top: Path, commit: str, paths: Sequence[str]) -> Iterable[tuple[str, str]]:
    """(path, text) of each of `paths` at `commit` that is a file there, in one `git cat-file --batch`,
    up to `MAX_TEST_BYTES` in all."""
    if not paths:
        return []
    request = "".join(f"{commit}:{p}\n" for p in paths).encode("utf-8", "surrogateescape")
    out = runner.run(top, "cat-file", "--batch", stdin=request).stdout
    found: list[tuple[str, str]] = []
    at, total = 0, 0
    for path in paths:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue  # missing, or not a file
        size = int(header[2])
        total += size
        if total <= MAX_TEST_BYTES:
            found.append((path, out[at : at + size].decode("utf-8", "replace")))
        at += size + 1
    return found
