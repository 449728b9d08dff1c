"""The seed's experiment: a shallow check against tiergate's gate, on a scripted agent's patches.

The fixture (`tests/fixtures/seed_service/`) is a small JSON service, its features, the probes that
cover them and, per feature, a correct patch and possibly defective ones; its script says which patches
a scripted agent hands in. The experiment plays the script twice, each time in a fresh git repository
holding the service's skeleton, and each time a feature is claimed done only when its check says so:

    shallow   the seed's starting point: the patch was written into the file
    gate      tiergate's real gate (`tiergate.gate.run.run_gate`) on the syntax check (its compile stage),
              then the new feature's probes and the probes of every feature already done (the
              regression suite), each probe against a service of its own. A feature that no probe
              covers fails its check.

A claimed patch is committed (the new last green point); a refuted one is taken out again, leaving the
file as it was at the last green point, and the script's next patch for that feature, if any, is tried.

At the end, what really works is measured apart from either check: the probes of every claimed feature,
run on the final service. A claimed feature that does not work is a false claim. For each one, `blame`
names the defective patches that break it: each defective patch is put alone (every other claimed
patch correct) into a scratch copy of the service, and a feature whose probes fail there is broken by it.

The regression suite is one check, so that a claim costs three processes (syntax, the new feature's
probes, the regression suite's) however many features are done; its failing probes' names say which
features broke.

The gate runs with the empty tree as the loop's base, so that no failure is excused as pre-existing: a
feature's acceptance probes fail at any real base, where the feature does not exist yet, and a defective
patch that fails the same probes would otherwise count as the same, older failure.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
import tomllib
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from testing.gaterun import gate_run
from testing.gitrepo import git, init_repo
from tiergate.gate.checks import Check, make_check
from tiergate.gate.ruling import GateResult
from tiergate.git import objects
from tiergate.project import Project

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "seed_service"
CATALOG = FIXTURE / "catalog.toml"
SKELETON = FIXTURE / "service.py"
PROBE_RUNNER = FIXTURE / "probe.py"
SERVICE_FILE = "service.py"
MARKER = "# FEATURES-END"
CORRECT = "correct"
GATE_TIMEOUT = 60.0
PROBES_TIMEOUT = 120.0
SOURCE = "the seed experiment"
REGRESSION = "regression"

CheckName = Literal["shallow", "gate"]


# The catalog -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Feature:
    id: str
    title: str
    description: str


@dataclass(frozen=True)
class Probe:
    name: str
    feature: str
    steps: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class Patch:
    feature: str
    variant: str
    code: str
    defect: str = ""  # what is wrong with it; empty for a correct patch

    @property
    def defective(self) -> bool:
        return bool(self.defect)


@dataclass(frozen=True)
class Catalog:
    features: tuple[Feature, ...]
    probes: tuple[Probe, ...]
    patches: tuple[Patch, ...]
    script: tuple[tuple[str, tuple[str, ...]], ...]  # per feature, in order, the patches handed in

    def feature(self, feature_id: str) -> Feature:
        return next(f for f in self.features if f.id == feature_id)

    def patch(self, feature: str, variant: str) -> Patch:
        for patch in self.patches:
            if (patch.feature, patch.variant) == (feature, variant):
                return patch
        raise KeyError(f"no patch {variant!r} for {feature}")

    def probes_of(self, feature: str) -> tuple[Probe, ...]:
        return tuple(p for p in self.probes if p.feature == feature)


def load_catalog(path: Path = CATALOG) -> Catalog:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    features, probes, patches = [], [], []
    for entry in data["feature"]:
        features.append(Feature(entry["id"], entry["title"], entry["description"]))
        probes += [Probe(p["name"], entry["id"], tuple(p["steps"])) for p in entry.get("probe", [])]
        patches += [
            Patch(entry["id"], variant, body["code"].strip("\n"), body.get("defect", ""))
            for variant, body in entry.get("patch", {}).items()
        ]
    script = tuple((feature, tuple(variants)) for feature, variants in data.get("script", {}).items())
    catalog = Catalog(tuple(features), tuple(probes), tuple(patches), script)
    for probe in probes:
        if feature_of(probe.name) != probe.feature:
            raise ValueError(
                f"probe {probe.name!r} of {probe.feature}: its name must start with {probe.feature}."
            )
    for feature, variants in script:
        for variant in variants:
            catalog.patch(feature, variant)  # raises for a script naming a patch that does not exist
    return catalog


def write_probes(catalog: Catalog, path: Path) -> Path:
    """The probes as the probe runner reads them; kept outside the workspace, which the agent owns."""
    data = [{"name": p.name, "feature": p.feature, "steps": list(p.steps)} for p in catalog.probes]
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


# The workspace ---------------------------------------------------------------------------------------------


def new_workspace(path: Path) -> Path:
    """A git repository holding the service's skeleton, committed."""
    return init_repo(path, {SERVICE_FILE: SKELETON.read_text(), ".gitignore": "__pycache__/\n"})


def with_patch(text: str, patch: Patch) -> str:
    """The service's text with `patch` inserted above the features' end marker."""
    if MARKER not in text:
        raise ValueError(f"the service has no {MARKER!r} line to insert {patch.feature} above")
    return text.replace(MARKER, f"{patch.code}\n\n\n{MARKER}", 1)


def shallow_check(service: Path, patch: Patch) -> bool:
    """The seed's shallow check: the patch is written into the file."""
    return patch.code in service.read_text()


# The gate --------------------------------------------------------------------------------------------------


def _python() -> str:
    return shlex.quote(sys.executable)


def syntax_check() -> Check:
    return make_check("syntax", f"{_python()} -I -m py_compile {SERVICE_FILE}", SOURCE)


def probe_check(name: str, features: Sequence[str], probes_file: Path) -> Check:
    """One check running the probes of `features`, each probe against a service of its own."""
    selected = " ".join(f"--feature {shlex.quote(feature)}" for feature in features)
    command = (
        f"{_python()} -I {shlex.quote(str(PROBE_RUNNER))} --probes {shlex.quote(str(probes_file))} "
        f"{selected} {SERVICE_FILE}"
    )
    return make_check(name, command, SOURCE)


def gate_checks(done: Sequence[str], feature: str, probes_file: Path) -> tuple[Check, ...]:
    """The syntax check (the compile stage), the new feature's probes, and the regression suite: the
    probes of every feature already done."""
    new = probe_check(f"probes-{feature}", [feature], probes_file)
    if not done:
        return (syntax_check(), new)
    return (syntax_check(), new, probe_check(REGRESSION, done, probes_file))


def gate(
    project: Project, done: Sequence[str], feature: str, probes_file: Path, timeout: float = GATE_TIMEOUT
) -> GateResult:
    """tiergate's gate on a claim that `feature` is done, `done` being done already."""
    base = objects.empty_tree(project.root)  # no baseline excuse (module docstring)
    return gate_run(project, base, gate_checks(done, feature, probes_file), timeout=timeout)


# What really works -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProbeRun:
    """One feature's probes on a service, run apart from any gate."""

    feature: str
    passed: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]  # (probe, what went wrong)
    exit_code: int  # the runner's, which may have run other features' probes too

    @property
    def working(self) -> bool:
        return bool(self.passed) and not self.failed


def run_probes(
    folder: Path, features: Sequence[str], probes_file: Path, runners: int = 1
) -> dict[str, ProbeRun]:
    """Each feature's probes on the service in `folder`: a runner per share of the features, at once.

    One runner by default: a runner's start (its interpreter and imports) costs more CPU than a dozen
    probes, which it forks warm; callers with independent services run those at once instead."""
    shares = [list(features[i::runners]) for i in range(min(runners, len(features)))]
    with ThreadPoolExecutor(max_workers=runners) as pool:
        outputs = list(pool.map(lambda share: _run_share(folder, share, probes_file), shares))
    runs = {}
    for share, (output, exit_code, stderr) in zip(shares, outputs, strict=True):
        runs.update(parse_tap(share, output, exit_code, stderr))
    return {feature: runs[feature] for feature in features}


_WORKERS = os.cpu_count() or 2


def _run_share(folder: Path, features: Sequence[str], probes_file: Path) -> tuple[str, int, str]:
    selected = [arg for feature in features for arg in ("--feature", feature)]
    command = [sys.executable, "-I", str(PROBE_RUNNER), "--probes", str(probes_file), *selected, SERVICE_FILE]
    done = subprocess.run(
        command, check=False, cwd=folder, capture_output=True, text=True, timeout=PROBES_TIMEOUT
    )
    return done.stdout, done.returncode, done.stderr


def feature_of(probe: str) -> str:
    """The feature a probe covers: its name's first part (`F03.search-title`: F03)."""
    return probe.split(".", 1)[0]


def parse_tap(features: Sequence[str], output: str, exit_code: int, stderr: str = "") -> dict[str, ProbeRun]:
    """The probe runner's TAP, per feature. A runner that failed without naming a failing probe
    (it crashed) fails every feature it ran."""
    passed: dict[str, list[str]] = {feature: [] for feature in features}
    failed: dict[str, list[tuple[str, str]]] = {feature: [] for feature in features}
    last: list[tuple[str, str]] | None = None
    for line in output.splitlines():
        if line.startswith(("ok ", "not ok ")):
            name = line.split(" - ", 1)[1]
            if line.startswith("ok "):
                passed.setdefault(feature_of(name), []).append(name)
                last = None
            else:
                last = failed.setdefault(feature_of(name), [])
                last.append((name, ""))
        elif line.startswith("  error: ") and last:
            last[-1] = (last[-1][0], line.removeprefix("  error: "))
    if exit_code != 0 and not any(failed.values()):
        why = (stderr.strip().splitlines() or [f"exit {exit_code}"])[-1]
        for feature in features:
            failed[feature].append((f"{feature}.runner", why))
    return {
        feature: ProbeRun(feature, tuple(passed[feature]), tuple(failed[feature]), exit_code)
        for feature in features
    }


# The experiment --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    feature: str
    patch: Patch
    claimed: bool
    gate: GateResult | None = None  # the gate's verdict; None under the shallow check

    def broke(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """What the gate found broken: each new failing check, with the probes it names."""
        if self.gate is None:
            return ()
        return tuple((v.result.name, v.summary.failed_tests) for v in self.gate.new_failures)

    def broken_features(self) -> tuple[str, ...]:
        """The features whose probes the gate found failing, in the order named."""
        names = (probe for _, probes in self.broke() for probe in probes)
        return tuple(dict.fromkeys(feature_of(name) for name in names))


@dataclass(frozen=True)
class Outcome:
    """The script played under one check."""

    check: CheckName
    attempts: tuple[Attempt, ...]
    truth: Mapping[str, ProbeRun]  # each claimed feature's probes on the final service
    seconds: float  # spent checking claims

    @property
    def claimed(self) -> tuple[str, ...]:
        return tuple(a.feature for a in self.attempts if a.claimed)

    @property
    def working(self) -> tuple[str, ...]:
        return tuple(f for f in self.claimed if self.truth[f].working)

    @property
    def false_claims(self) -> tuple[str, ...]:
        return tuple(f for f in self.claimed if not self.truth[f].working)

    def claimed_patches(self) -> tuple[Patch, ...]:
        return tuple(a.patch for a in self.attempts if a.claimed)


@dataclass(frozen=True)
class Blame:
    """Why a claimed feature does not work."""

    feature: str
    own: Patch  # the patch claimed for it
    culprits: tuple[Patch, ...]  # the defective patches, each of which alone breaks it
    failures: tuple[tuple[str, str], ...]  # its failing probes on the final service

    @property
    def collateral(self) -> bool:
        """Its own patch is correct: another feature's defect broke it."""
        return not self.own.defective and bool(self.culprits)


@dataclass(frozen=True)
class Experiment:
    catalog: Catalog
    shallow: Outcome
    gate: Outcome
    blames: Mapping[CheckName, tuple[Blame, ...]]


def run_experiment(catalog: Catalog, work: Path, *, timeout: float = GATE_TIMEOUT) -> Experiment:
    """Play the catalog's script under the shallow check and under the gate, in folders under `work`."""
    work.mkdir(parents=True, exist_ok=True)
    probes_file = write_probes(catalog, work / "probes.json")
    shallow = play(catalog, "shallow", work, probes_file, timeout)
    gated = play(catalog, "gate", work, probes_file, timeout)
    blames = {o.check: blame(catalog, o, work / f"{o.check}-blame", probes_file) for o in (shallow, gated)}
    return Experiment(catalog, shallow, gated, blames)


def play(
    catalog: Catalog, check: CheckName, work: Path, probes_file: Path, timeout: float = GATE_TIMEOUT
) -> Outcome:
    """The script under one check, in a fresh repository `work/<check>`."""
    repo = new_workspace(work / check)
    project = Project(repo, work / f"{check}-state")
    service = repo / SERVICE_FILE
    done: list[str] = []
    attempts: list[Attempt] = []
    started = time.perf_counter()
    for feature, variants in catalog.script:
        for variant in variants:
            patch = catalog.patch(feature, variant)
            green = service.read_text()
            service.write_text(with_patch(green, patch))
            if check == "shallow":
                attempt = Attempt(feature, patch, shallow_check(service, patch))
            else:
                result = gate(project, done, feature, probes_file, timeout)
                attempt = Attempt(feature, patch, not result.refuted, result)
            attempts.append(attempt)
            if attempt.claimed:
                done.append(feature)
                # Only the tracked service changed: one git process, not commit_all's three.
                git(repo, "commit", "-q", "--no-verify", "-am", f"{feature} done ({variant}, {check} check)")
                break
            service.write_text(green)  # back to the last green point
    seconds = time.perf_counter() - started
    return Outcome(check, tuple(attempts), run_probes(repo, done, probes_file), seconds)


def blame(catalog: Catalog, outcome: Outcome, scratch: Path, probes_file: Path) -> tuple[Blame, ...]:
    """For each false claim, the defective patches that break it (module docstring)."""
    suspects = outcome.false_claims
    if not suspects:
        return ()
    claimed = outcome.claimed_patches()
    culprits: dict[str, list[Patch]] = {feature: [] for feature in suspects}
    defective = [p for p in claimed if p.defective]
    folders = [_alone_with(catalog, claimed, alone, scratch) for alone in defective]
    # Each scratch service is independent: one runner each, all at once.
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        runs = list(pool.map(lambda folder: run_probes(folder, suspects, probes_file), folders))
    for alone, found in zip(defective, runs, strict=True):
        for feature, run in found.items():
            if not run.working:
                culprits[feature].append(alone)
    own = {p.feature: p for p in claimed}
    return tuple(Blame(f, own[f], tuple(culprits[f]), outcome.truth[f].failed) for f in suspects)


def _alone_with(catalog: Catalog, claimed: Sequence[Patch], alone: Patch, scratch: Path) -> Path:
    """A scratch service with `alone` the only defective patch: every other claimed one correct."""
    chosen = [p if p is alone or not p.defective else catalog.patch(p.feature, CORRECT) for p in claimed]
    folder = scratch / f"{alone.feature}-{alone.variant}"
    folder.mkdir(parents=True, exist_ok=True)
    text = SKELETON.read_text()
    for patch in chosen:
        text = with_patch(text, patch)
    (folder / SERVICE_FILE).write_text(text)
    return folder


# Processes -------------------------------------------------------------------------------------------------


def processes_mentioning(text: str) -> list[int]:
    """The live processes (zombies aside) whose command line contains `text`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if text in command and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


# The report ------------------------------------------------------------------------------------------------


def table(experiment: Experiment) -> str:
    """The seed's table: claimed done, really working and false claims, per check."""
    labels = ("claimed done", "really working", "false claims")
    counts = zip(labels, _counts(experiment.shallow), _counts(experiment.gate), strict=True)
    rows = [("", "shallow check", "tiergate's gate"), *((label, str(s), str(g)) for label, s, g in counts)]
    return "\n".join(f"{a:<16}{b:>15}{c:>18}" for a, b, c in rows)


def _counts(outcome: Outcome) -> tuple[int, int, int]:
    return len(outcome.claimed), len(outcome.working), len(outcome.false_claims)


def report(experiment: Experiment) -> str:
    """The table, then what broke: each false claim and why, each claim the gate refuted and why."""
    catalog = experiment.catalog
    script = [catalog.patch(feature, variant) for feature, variants in catalog.script for variant in variants]
    lines = [
        f"The seed's experiment: {len(catalog.features)} features, {len(catalog.probes)} probes; the "
        f"scripted agent's {len(script)} patches, {sum(p.defective for p in script)} of them defective.",
        "",
        table(experiment),
    ]
    for outcome in (experiment.shallow, experiment.gate):
        lines += [
            "",
            f"{_title(outcome)}: false claims (claimed done, not working): {len(outcome.false_claims)}",
        ]
        lines += [f"  {line}" for b in experiment.blames[outcome.check] for line in _blame_lines(catalog, b)]
    lines += ["", "tiergate's gate: claims refuted"]
    for attempt in experiment.gate.attempts:
        if not attempt.claimed:
            lines += [f"  {line}" for line in _refuted_lines(catalog, attempt)]
            if attempt.feature in experiment.gate.claimed:
                lines.append(f"      (a later patch for {attempt.feature} passed the gate)")
    lines += [
        "",
        f"Time spent checking claims: shallow check {experiment.shallow.seconds:.1f} s, "
        f"tiergate's gate {experiment.gate.seconds:.1f} s ({len(experiment.gate.attempts)} gate runs).",
    ]
    return "\n".join(lines)


def _title(outcome: Outcome) -> str:
    return "Shallow check" if outcome.check == "shallow" else "tiergate's gate"


def _named(catalog: Catalog, patch: Patch) -> str:
    return f"{patch.feature} {catalog.feature(patch.feature).title} ({patch.variant})"


def _blame_lines(catalog: Catalog, b: Blame) -> list[str]:
    head = f"{b.feature} {catalog.feature(b.feature).title}: its own patch is "
    head += f"defective ({b.own.variant}: {b.own.defect})" if b.own.defective else "correct"
    others = [c for c in b.culprits if c.feature != b.feature]
    if others:
        head += "; broken by " + ", ".join(_named(catalog, c) for c in others)
    elif not b.culprits:
        head += "; no single defective patch breaks it"
    return [head, *(f"    {probe}: {why}" for probe, why in b.failures)]


def _refuted_lines(catalog: Catalog, attempt: Attempt) -> list[str]:
    lines = [f"{_named(catalog, attempt.patch)}: {attempt.patch.defect or 'a correct patch'}"]
    for check, probes in attempt.broke():
        lines.append(f"    {check} failed: {', '.join(probes) or 'no probe named'}")
    others = [f for f in attempt.broken_features() if f != attempt.feature]
    if others:
        lines.append(f"    features it broke: {', '.join(f'{f} {catalog.feature(f).title}' for f in others)}")
    own = f"probes-{attempt.feature}"
    if attempt.gate is not None and any(
        v.result.name == own and v.standing == "passed" for v in attempt.gate.verdicts
    ):
        lines.append(f"    ({own}, its own probes, passed)")
    return lines
