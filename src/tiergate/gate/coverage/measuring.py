"""Line coverage measured by the gate itself, while it runs the project's tests (`tiergate.gate.run`).

A test check that can take it (`plan`) is measured through its environment, its command as written: for
Python a `sitecustomize.py` folder first on PYTHONPATH, for Node NODE_V8_COVERAGE. Only the change's files,
the project's coverage settings and pragmas ignored; the data goes to a folder under the state folder,
removed once read. See docs/ARCHITECTURE.md, "Coverage measured at the gate".
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from tiergate import TYPE_CHECKING
from tiergate.gate import ownfiles, planted
from tiergate.gate.checks import Check, CheckResult
from tiergate.gate.coverage.plan import FORMATS, Capability, RunnerFacts, Tool, files_for, plan
from tiergate.gate.mutation.step import Step
from tiergate.project import Project, ensure_state_dir
from tiergate.tier.coverage.lines import CoverageData, FileLines, GateCoverage, NodeRun, v8_file_lines
from tiergate.tier.mutation.fates import MutationRun

if TYPE_CHECKING:  # imported where it is used: the gate's other runs need none of it
    from tiergate.gate.mutation.nodestep import NodeStep

FOLDER = "coverage"
# Beside the mutants' own seconds, what their check's limit also gives them: forks, ends, the report.
MUTANTS_MARGIN = 10.0
PLAN_VARIABLE = "TIERGATE_COVERAGE_PLAN"

# Copied as the run's sitecustomize.py: it runs in the tests' own interpreter (its docstring says how).
SITECUSTOMIZE = Path(__file__).parent.parent / "checksite" / "sitecustomize.py"


def runner_facts(root: Path) -> RunnerFacts:
    """The project's pytest options (as text: only whether they add `--cov` matters) and package.json
    scripts; unreadable files count as absent."""
    from tiergate.gate.detection.projectchecks import read_facts

    facts = read_facts(root)
    options = [
        str(facts.pyproject.get("tool", {}).get("pytest", {}).get("ini_options", {}).get("addopts", ""))
    ]
    for name in ("pytest.ini", ".pytest.ini", "setup.cfg", "tox.ini"):
        with contextlib.suppress(OSError):
            options.append((root / name).read_text(errors="replace"))
    scripts = facts.package_json.get("scripts")
    return RunnerFacts(
        pytest_options="\n".join(options),
        scripts={k: v for k, v in scripts.items() if isinstance(v, str)} if isinstance(scripts, dict) else {},
    )


def project_plan(root: Path, checks: Sequence[Check]) -> tuple[tuple[Check, Capability], ...]:
    """Each test check of the project at `root` with whether it can take coverage at the gate."""
    return plan(checks, runner_facts(root))


def describe_plan(planned: Sequence[tuple[Check, Capability]]) -> tuple[bool, str]:
    """Whether any check measures coverage at the gate; and which ("check `tests` (how)"), or why none can."""
    taking = [f"check `{c.name}` ({found.reason})" for c, found in planned if found.tool]
    if taking:
        return True, "; ".join(taking)
    if not planned:
        return False, "no test check (none configured or detected) to measure it"
    why = "; ".join(f"check `{c.name}` (`{c.command}`): {found.reason}" for c, found in planned)
    return False, f"no test check can measure it: {why}"


class Measurement:
    """One gate run's coverage of the change's code `files` (repository-relative): the environment
    each measured check runs with, then what it measured."""

    def __init__(
        self,
        project: Project,
        checks: Sequence[Check],
        files: Sequence[str],
        mutants: Step | None = None,
    ) -> None:
        """`mutants`: the change's mutants, run by the first Python check measured once its tests pass."""
        self.project = project
        self.files = tuple(files)
        self.mutants = mutants
        # Where the checks run (the claim's copy, `tiergate.gate.cleancopy`): the files measured are there.
        self.where = project.root
        self.taking: dict[str, tuple[Check, Tool, tuple[str, ...]]] = {}
        self.runners: dict[str, str] = {}  # what runs each measured check's tests
        self.node_runs: dict[str, list[NodeRun]] = {}  # each Node process of a measured check
        # Writes a file of the claim's copy as the gate's own (JavaScript mutants); None: not in a copy.
        self.write: Callable[[Path, bytes], None] | None = None
        # The JavaScript mutants, first run by the first `node --test` check measured (its key) in its own
        # processes, then the rest in processes of their own.
        self.node_step: NodeStep | None = None
        self.node_key = ""
        self.off: list[str] = []
        for check, found in plan(checks, runner_facts(project.root)):
            chosen = files_for(found.tool, self.files) if found.tool else ()
            if found.tool and chosen:
                self.taking[check.key] = (check, found.tool, chosen)
                self.runners[check.key] = found.runner
            elif found.tool is None:
                self.off.append(f"check `{check.name}` (`{check.command}`): {found.reason}")
        self._folder: Path | None = None

    def env(self) -> dict[str, dict[str, str]]:
        """The variables to add to each measured check's environment, by check key."""
        if not self.taking:
            return {}
        runs = ensure_state_dir(self.project) / FOLDER
        runs.mkdir(mode=0o700, exist_ok=True)
        folder = self._folder = Path(tempfile.mkdtemp(prefix="run-", dir=runs))
        (folder / "site").mkdir()
        shutil.copyfile(SITECUSTOMIZE, folder / "site" / "sitecustomize.py")
        ownfiles.note(folder / "site" / "sitecustomize.py")
        added: dict[str, dict[str, str]] = {}
        for index, (key, (_, tool, chosen)) in enumerate(self.taking.items()):
            out = folder / str(index)
            out.mkdir()
            if tool == "node":
                mutants = self._node_mutants(key, folder / f"{index}-mutants")
                added[key] = {"NODE_V8_COVERAGE": str(out), **mutants}
                continue
            include = [os.path.realpath(self.where / f) for f in chosen if not set(f) & set("*?[")]
            (out / "plan.json").write_text(json.dumps({"out": str(out), "include": include}))
            ownfiles.note(out / "plan.json")
            python_path = os.pathsep.join(
                p for p in (str(folder / "site"), os.environ.get("PYTHONPATH")) if p
            )
            added[key] = {"PYTHONPATH": python_path, PLAN_VARIABLE: str(out / "plan.json")}
            if self.mutants is not None and not self.mutants.key and self.runners[key] == "pytest":
                more = self.mutants.env(key, self.where, out)
                joined = os.pathsep.join(p for p in (python_path, more.pop("PYTHONPATH", "")) if p)
                added[key].update({**more, "PYTHONPATH": joined})
        return added

    def _node_mutants(self, key: str, out: Path) -> dict[str, str]:
        """What check `key` adds to run the JavaScript mutants in its own processes (`tiergate.gate.mutation.
        nodestep`), the first `node --test` check only; its plan and its processes' reports in `out`."""
        if self.mutants is None or self.node_step is not None or self.runners[key] != "node --test":
            return {}
        from tiergate.gate.mutation.nodestep import NodeStep

        self.node_step, self.node_key = NodeStep(self.mutants.bounds, self.mutants.change), key
        return self.node_step.env(self.where, out)

    def collect(
        self,
        results: Sequence[CheckResult],
        env: dict[str, dict[str, str]] | None = None,
        *,
        node: bool = False,
    ) -> GateCoverage:
        """What the measured checks' processes wrote, read; the folder removed. `env`: each check's
        environment, by key, from which the mutants' plugin is taken out (its folder is gone: a later run
        of the check could not load it); with `node`, the JavaScript mutants run after, in it
        (`with_node_mutants`)."""
        measured: list[CoverageData] = []
        off = list(self.off)
        ran = {r.key: r for r in results}
        try:
            for index, (key, (check, tool, chosen)) in enumerate(self.taking.items()):
                result = ran.get(key)
                if self._folder is None or result is None or result.status not in ("passed", "failed"):
                    off.append(f"check `{check.name}`: it did not run to its end, nothing was measured")
                    continue
                found = self._read(key, tool, self._folder / str(index), chosen)
                if isinstance(found, str):
                    off.append(f"check `{check.name}` (`{check.command}`): {found}")
                else:
                    source = f"check `{check.name}` ({found[0]})"
                    measured.append(CoverageData(source, FORMATS[tool], found[1]))
            mutation = self._mutation(results, measured)
            if self.node_step is not None:
                self.node_step.read(self.where)
        finally:
            self.close()
        coverage = GateCoverage(self.files, tuple(measured), tuple(off), mutation)
        if env is not None and self.mutants is not None and self.mutants.key in env:
            env[self.mutants.key] = self.mutants.without(env[self.mutants.key])
        if env is not None and self.node_step is not None and self.node_key in env:
            env[self.node_key] = self.node_step.without(env[self.node_key])
        return self.with_node_mutants(coverage, results, env) if env is not None and node else coverage

    def mutants_time(self) -> dict[str, float]:
        """The time the mutants get beside their check's own limit, by check key (none when none run): the
        Python plugin's, and the JavaScript preload's in the `node --test` check's processes."""
        found = {}
        if self.mutants is not None and self.mutants.key and self.mutants.mutants:
            found[self.mutants.key] = self.mutants.bounds.seconds + MUTANTS_MARGIN
        if self.node_step is not None and self.node_step.out is not None:
            found[self.node_key] = self.node_step.bounds.seconds + MUTANTS_MARGIN
        return found

    def _mutation(
        self, results: Sequence[CheckResult], measured: Sequence[CoverageData]
    ) -> MutationRun | None:
        if self.mutants is None:
            return None
        if not self.mutants.key:
            if not self.mutants.has_lines():
                return MutationRun(off="the change has no Python lines")
            return MutationRun(off="no check ran the change's Python lines under pytest, which runs them")
        source = f"check `{self.taking[self.mutants.key][0].name}` ("
        hit: dict[str, frozenset[int]] = {}
        for data in measured:
            if data.source.startswith(source):
                hit |= {path: hit.get(path, frozenset()) | lines.hit for path, lines in data.files.items()}
        return self.mutants.collect(results, hit)

    def with_node_mutants(
        self, coverage: GateCoverage, results: Sequence[CheckResult], env: Mapping[str, Mapping[str, str]]
    ) -> GateCoverage:
        """`coverage` with the change's JavaScript mutants run (`tiergate.gate.mutation.nodestep`) by the
        first `node --test` check measured, in its environment (`env`, by check key) and where it ran."""
        from dataclasses import replace

        from tiergate.gate.mutation.nodestep import NodeStep

        keys = [key for key, runner in self.runners.items() if runner == "node --test"]
        key = self.node_key or (keys[0] if keys else "")
        ran = {r.key: r for r in results}
        if self.mutants is None or self.write is None or key not in ran:
            return coverage
        step = self.node_step or NodeStep(self.mutants.bounds, self.mutants.change)
        runs = self.node_runs.get(key, [])
        found = step.run(self.where, runs, env.get(key, {}), ran[key], self.write)
        joined = found if coverage.mutation is None else coverage.mutation.joined(found)
        return replace(coverage, mutation=joined)

    def nothing_taken(self) -> GateCoverage:
        """The record of a run where no check could take coverage: only the reasons."""
        return GateCoverage(self.files, (), tuple(self.off))

    def close(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def _read(
        self, key: str, tool: Tool, out: Path, chosen: Sequence[str]
    ) -> tuple[str, dict[str, FileLines]] | str:
        by_real = {os.path.realpath(self.where / f): f for f in chosen}
        if tool == "node":
            return _node_reports(out, self.where, by_real, self.node_runs.setdefault(key, []))
        return _python_reports(out, by_real)


def _python_reports(out: Path, by_real: Mapping[str, str]) -> tuple[str, dict[str, FileLines]] | str:
    reports = sorted(out.glob("report-*"))
    if not reports:
        return "no Python process of its run started the measurement (PYTHONPATH or site dropped?)"
    tools: set[str] = set()
    files: dict[str, FileLines] = {}
    for report in reports:
        try:
            data = planted.read_json(report)
            tools.add(str(data["tool"]))
            for name, (statements, ran) in data["files"].items():
                path = by_real.get(os.path.realpath(name))
                if path is not None:
                    hit = frozenset(map(int, ran))
                    _merge(files, path, FileLines(frozenset(map(int, statements)) | hit, hit))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return f"a coverage report of its run cannot be read ({type(exc).__name__})"
    return ", ".join(sorted(tools)), files


def _node_reports(
    out: Path, root: Path, by_real: Mapping[str, str], runs: list[NodeRun] | None = None
) -> tuple[str, dict[str, FileLines]] | str:
    """The change's lines V8 saw run, merged over the run's processes; each process's own, with the test
    files it ran, added to `runs` (`node --test` runs each test file in a process of its own). A process
    may write several files (`v8.takeCoverage()`, its threads'), named by its pid: they are one run."""
    reports = sorted(out.glob("coverage-*.json"))
    if not reports:
        return "no Node process of its run wrote V8 coverage (NODE_V8_COVERAGE dropped?)"
    files: dict[str, FileLines] = {}
    sources: dict[str, str] = {}
    processes: dict[str, tuple[dict[str, FileLines], set[str]]] = {}
    for report in reports:
        own, tests = processes.setdefault(report.name.split("-")[1], ({}, set()))
        try:
            scripts: list[dict[str, Any]] = planted.read_json(report)["result"]
            for script in scripts:
                path = _file_url_path(str(script.get("url", "")), by_real)
                if path is None:
                    continue
                if path not in sources:
                    sources[path] = (root / path).read_text()
                _merge(own, path, v8_file_lines(sources[path], script["functions"]))
            tests.update(_test_files(scripts, root))
        except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            return f"a V8 coverage file of its run cannot be read ({type(exc).__name__})"
    for own, tests in processes.values():
        for path, lines in own.items():
            _merge(files, path, lines)
        if runs is not None:
            runs.append(NodeRun(tuple(sorted(tests)), own))
    return "Node V8 coverage", files


def _test_files(scripts: Sequence[Mapping[str, Any]], root: Path) -> tuple[str, ...]:
    from tiergate.tier.coverage.judgement import classify

    found = []
    top = os.path.realpath(root)
    for script in scripts:
        url = str(script.get("url", ""))
        if url.startswith("file://"):
            path = os.path.realpath(unquote(urlparse(url).path))
            if path.startswith(top + os.sep) and "/node_modules/" not in path:
                relative = os.path.relpath(path, top)
                if classify(relative) == "test":
                    found.append(relative)
    return tuple(sorted(set(found)))


def _file_url_path(url: str, by_real: Mapping[str, str]) -> str | None:
    if not url.startswith("file://"):
        return None
    return by_real.get(os.path.realpath(unquote(urlparse(url).path)))


def _merge(files: dict[str, FileLines], path: str, lines: FileLines) -> None:
    known = files.get(path)
    files[path] = lines if known is None else known | lines
