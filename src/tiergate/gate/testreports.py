"""Test checks run with a report of each test's outcome, asked of the runner through the environment.

The command is never changed: pytest gets a plugin (`tiergate.gate.pytestoutcomes`), node --test a
reporter (`nodeoutcomes.mjs`); other runners are read from their output. With the gate's socket, pytest's
outcomes also stream there and the report is read against them (`tiergate.gate.pertest.streamed`). pytest
may run a selection only (`select`): a subset. See docs/judging.md, "Each test's outcome".
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from tiergate.gate import imported, ownfiles, planted, watchsocket
from tiergate.gate.checks import Check, CheckResult
from tiergate.gate.pertest import streamed
from tiergate.gate.pertest.fromoutput import from_output
from tiergate.gate.pertest.record import TestOutcome, TestRun, outcome_of
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.pertest.streamed import Reported, Streamed
from tiergate.gate.processes import Running, run_checks
from tiergate.gate.testevidence import with_tests

OUT_VARIABLE = "TIERGATE_TESTS_OUT"
ONLY_VARIABLE = "TIERGATE_TESTS_ONLY"
PLUGIN = "tiergate_outcomes"
_PLUGIN_NOT_IMPORTED = f'Error importing plugin "{PLUGIN}"'
_HERE = Path(__file__).parent
_PYTEST_PLUGIN = _HERE / "pytestoutcomes"  # a package, copied whole as `PLUGIN`
_NODE_REPORTER = _HERE / "nodeoutcomes.mjs"


def run_reported(
    checks: Sequence[Check],
    cwd: Path,
    running: Running | None = None,
    *,
    env: Mapping[str, Mapping[str, str]] | None = None,
    select: Mapping[str, TestSelection] | None = None,
) -> tuple[CheckResult, ...]:
    """`run_checks`, each test check with its tests read from the runner's report or its output.
    `select`: by check key, the only tests that check's runner is asked to run (pytest honours it; a run
    whose every report says it did is a `subset`, any other a whole run)."""
    tests = [c for c in checks if c.kind == "tests"]
    running = running or Running()
    if not tests:
        return run_checks(checks, cwd, running, env=env)
    folder = Path(tempfile.mkdtemp(prefix="tiergate-tests-"))
    try:
        added = _environments(tests, cwd, folder)
        selected = _selections(tests, cwd, folder, select or {})
        for check in tests:
            if check.key in selected or os.environ.get(ONLY_VARIABLE):
                # Empty for a check without one: a selection this process was itself run with (tiergate's
                # gate on a suite that runs the gate) is no check's here.
                added[check.key][ONLY_VARIABLE] = selected.get(check.key, "")
        given = env or {}
        merged = {key: merge_env(given.get(key, {}), added.get(key, {})) for key in {*added, *given}}
        results = run_checks(checks, cwd, running, env=merged)
        outs = {c.key: folder / str(index) for index, c in enumerate(tests)}
        results = _without_the_plugin_where_it_broke(results, tests, outs, cwd, given, running)
        return tuple(
            _judged(
                r, outs[r.key], cwd, selected=r.key in selected, streams=_streams(merged[r.key], outs[r.key])
            )
            if r.key in outs
            else r
            for r in results
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _selections(
    tests: Sequence[Check], cwd: Path, folder: Path, select: Mapping[str, TestSelection]
) -> dict[str, str]:
    """The file that gives each selected check's runner its selection, by check key: written beside the
    check's report folder (never in it: an empty one is how a run whose plugin could not load is told)."""
    written = {}
    for index, check in enumerate(tests):
        selection = select.get(check.key)
        if selection is not None:
            path = folder / f"only-{index}.json"
            files = [str(cwd / name) for name in selection.files]
            asked = {"files": files, "tests": list(selection.tests), "reverse": selection.reverse}
            path.write_text(json.dumps(asked))
            ownfiles.note(path)
            written[check.key] = str(path)
    return written


def _without_the_plugin_where_it_broke(
    results: tuple[CheckResult, ...],
    tests: Sequence[Check],
    outs: Mapping[str, Path],
    cwd: Path,
    given: Mapping[str, Mapping[str, str]],
    running: Running,
) -> tuple[CheckResult, ...]:
    """The results, the checks that pytest could not start with the plugin run again without it.

    A command that sets PYTHONPATH itself (`PYTHONPATH=src pytest`) hides the plugin's folder, and
    pytest then stops at once on the plugin it cannot import: tiergate must never fail a user's check.
    Only a run that wrote no report at all and says so is run again (reading its output, as for a
    runner without a report): printing the message in a test that ran cannot trigger it."""
    broken = {
        r.key
        for r in results
        if r.key in outs and not any(outs[r.key].iterdir()) and _PLUGIN_NOT_IMPORTED in r.output
    }
    if not broken:
        return results
    again_checks = [c for c in tests if c.key in broken]
    again = run_checks(again_checks, cwd, running, env={k: v for k, v in given.items() if k in broken})
    by_key = {r.key: r for r in again}
    return tuple(by_key.get(r.key, r) for r in results)


def merge_env(first: Mapping[str, str], second: Mapping[str, str]) -> dict[str, str]:
    """Two sets of added variables as one: search paths both set are joined, the first's first."""
    merged = {**first, **second}
    for name, separator in (("PYTHONPATH", os.pathsep), ("PYTEST_PLUGINS", ","), ("NODE_OPTIONS", " ")):
        if name in first and name in second:
            parts = [*first[name].split(separator), *second[name].split(separator)]
            merged[name] = separator.join(_unique(parts))
    return merged


def _unique(parts: list[str]) -> list[str]:
    return [p for p in dict.fromkeys(parts) if p]


def _environments(tests: Sequence[Check], cwd: Path, folder: Path) -> dict[str, dict[str, str]]:
    site = folder / "site"
    site.mkdir()
    (site / PLUGIN).mkdir()
    copies = [(part, site / PLUGIN / part.name) for part in sorted(_PYTEST_PLUGIN.glob("*.py"))]
    for source, copy in (*copies, (_NODE_REPORTER, site / "tiergate-outcomes.mjs")):
        shutil.copyfile(source, copy)
        ownfiles.note(copy)
    scripts = _scripts(cwd)
    added: dict[str, dict[str, str]] = {}
    for index, check in enumerate(tests):
        out = folder / str(index)
        out.mkdir()
        variables = {
            OUT_VARIABLE: str(out),
            "PYTHONPATH": os.pathsep.join(_unique([str(site), os.environ.get("PYTHONPATH", "")])),
            "PYTEST_PLUGINS": ",".join(_unique([*os.environ.get("PYTEST_PLUGINS", "").split(","), PLUGIN])),
        }
        if _runs_node_test(check.command, scripts):
            reporter = site / "tiergate-outcomes.mjs"
            options = (
                f'--test-reporter="{reporter}" --test-reporter-destination=/dev/null '
                "--test-reporter=spec --test-reporter-destination=stdout"
            )
            variables["NODE_OPTIONS"] = " ".join(_unique([os.environ.get("NODE_OPTIONS", ""), options]))
        added[check.key] = variables
    return added


def _scripts(cwd: Path) -> list[str]:
    """The package.json scripts in `cwd` (none when there is no readable one)."""
    try:
        data = json.loads((cwd / "package.json").read_text())
    except (OSError, ValueError):
        return []
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return [v for v in scripts.values() if isinstance(v, str)] if isinstance(scripts, dict) else []


def _runs_node_test(command: str, scripts: Sequence[str]) -> bool:
    texts = [command, *scripts] if command.split()[:1] in (["npm"], ["yarn"], ["pnpm"]) else [command]
    if any("--test-reporter" in text for text in texts):
        return False
    return any("--test" in text.split() or "node --test" in text for text in texts)


def _streams(env: Mapping[str, str], out: Path) -> tuple[Streamed, ...] | None:
    """What the check's pytest runs streamed to the gate's socket it ran with, for the reports in `out`;
    None when it ran with none that this process listens on (outside a claim's copy, at the base)."""
    address = env.get(imported.OUT_VARIABLE)
    return watchsocket.streams(address, str(out)) if address else None


def _judged(
    result: CheckResult, out: Path, cwd: Path, *, selected: bool, streams: Sequence[Streamed] | None
) -> CheckResult:
    report = read_report(out, cwd, selected=selected, streams=streams)
    return with_tests(result, report, from_output(result.output))


def read_report(
    out: Path, cwd: Path, *, selected: bool = False, streams: Sequence[Streamed] | None = None
) -> TestRun | None:
    """The report the check's runner wrote in `out` (None: none), test ids relative to `cwd`. A file that
    cannot be read is an unfinished report: something in the tests' process spoiled it. `selected`: the
    runner was asked for a selection; the run is a subset only then, and only when every file says it
    kept to it (a report is written in the tests' process: unasked, its word would hide lost tests).
    `streams`: what pytest's runs streamed to the gate's socket as they ran (None: the check had none),
    which the reports must agree with; a stream whose report is gone is a report too, a disagreeing one."""
    pytest_files = sorted(out.glob("pytest-*.json"))
    node_files = sorted(out.glob("node-*.jsonl"))
    if pytest_files or streams:
        return streamed.merged([_pytest_file(path) for path in pytest_files], streams, selected=selected)
    if node_files:
        return _node_report(node_files, cwd)
    return None


def _pytest_file(path: Path) -> Reported:
    """One report file of tiergate's pytest plugin, as far as it can be read."""
    outcomes: list[tuple[str, TestOutcome]] = []
    patched: list[str] = []
    workers: list[str] = []
    try:
        data = planted.read_json(path)
        finished, only = data["finished"] is True, data.get("only") is True
        patched += (str(p) for p in data.get("patched", ()))
        workers += (str(w) for w in data.get("workers", ()))
        for test, outcome in data["outcomes"]:
            outcomes.append((str(test), outcome_of(outcome)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        finished = only = False
    return Reported(str(path), tuple(outcomes), finished, only, tuple(patched), tuple(workers))


def _node_report(files: Sequence[Path], cwd: Path) -> TestRun:
    outcomes: dict[str, TestOutcome] = {}
    finished = True
    for path in files:
        ended = False
        try:
            for line in planted.read_text(path).splitlines():
                record = json.loads(line)
                if record.get("finished") is True:
                    ended = True
                    continue
                name = " > ".join([_relative(str(record["file"]), cwd), *map(str, record["path"])])
                outcomes[name] = outcome_of(record["outcome"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            ended = False
        finished = finished and ended
    return TestRun("node --test report", "node", tuple(outcomes.items()), True, finished=finished)


def _relative(file: str, cwd: Path) -> str:
    """A test file's path as a test id holds it: from `cwd` (`../shared/x.test.js` for one elsewhere in its
    work tree, as in a monorepo's package), so that the ids in the base's worktree, the claim's copy and the
    workspace are the same; a path outside the work tree as it is."""
    real, here = os.path.realpath(file), os.path.realpath(cwd)
    with contextlib.suppress(ValueError):
        return str(Path(real).relative_to(here))
    top = _work_tree_top(Path(here))
    if top is not None and Path(real).is_relative_to(top):
        return os.path.relpath(real, here)
    return file


def _work_tree_top(folder: Path) -> Path | None:
    """The nearest folder from `folder` up that holds a `.git` (a repository's or a worktree's)."""
    for place in (folder, *folder.parents):
        if (place / ".git").exists():
            return place
    return None
