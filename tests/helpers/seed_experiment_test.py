"""The seed's experiment through tiergate's real gate: a small service, its probes, and defective patches
that a shallow check passes (testing/seed_experiment.py, tests/fixtures/seed_service/)."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git
from testing.seed_experiment import (
    PROBE_RUNNER,
    REGRESSION,
    SERVICE_FILE,
    SKELETON,
    Catalog,
    Experiment,
    Feature,
    Patch,
    ProbeRun,
    gate,
    load_catalog,
    new_workspace,
    play,
    processes_mentioning,
    report,
    run_experiment,
    run_probes,
    shallow_check,
    table,
    with_patch,
    write_probes,
)

from tiergate.project import Project

# The experiment runs once for the module (`experiment`).
pytestmark = pytest.mark.long

COLLATERAL = ("F01", "F03", "F04", "F05", "F06", "F08")  # correct patches that F07's defect breaks


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("seed")


@pytest.fixture(scope="module")
def experiment(catalog: Catalog, work: Path) -> Experiment:
    return run_experiment(catalog, work)


def text_with(patches: list[Patch]) -> str:
    text = SKELETON.read_text()
    for patch in patches:
        text = with_patch(text, patch)
    return text


def service_with(catalog: Catalog, folder: Path, patches: list[Patch]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SERVICE_FILE).write_text(text_with(patches))
    return folder


def correct(catalog: Catalog, *features: str) -> list[Patch]:
    return [catalog.patch(feature, "correct") for feature in features]


# The table --------------------------------------------------------------------------------------------------


def test_the_gate_makes_no_false_claim_and_the_shallow_check_makes_several(experiment: Experiment) -> None:
    shallow, gated = experiment.shallow, experiment.gate
    assert gated.false_claims == ()
    assert gated.working == gated.claimed
    assert (len(shallow.claimed), len(shallow.working), len(shallow.false_claims)) == (15, 6, 9)
    assert (len(gated.claimed), len(gated.working), len(gated.false_claims)) == (12, 12, 0)
    # The shallow check's list looks better, and the service is worse.
    assert len(shallow.claimed) > len(gated.claimed)
    assert len(shallow.working) < len(gated.working)
    assert set(shallow.false_claims) == {*COLLATERAL, "F09", "F11", "F12"}
    rows = table(experiment).splitlines()
    assert rows[1].split() == ["claimed", "done", "15", "12"]
    assert rows[3].split() == ["false", "claims", "9", "0"]


def test_what_the_gate_claims_is_what_the_final_service_does(experiment: Experiment, work: Path) -> None:
    service = (work / "gate" / SERVICE_FILE).read_text()
    for attempt in experiment.gate.attempts:
        assert (attempt.patch.code in service) is attempt.claimed, attempt.patch
    # One commit per claim: the last green point moves only when the gate passes.
    assert int(git(work / "gate", "rev-list", "--count", "HEAD")) == 1 + len(experiment.gate.claimed)
    assert git(work / "gate", "status", "--porcelain") == ""


# Each defect ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("feature", "variant", "check", "probes"),
    [
        (
            "F07",
            "missing-guard",
            REGRESSION,
            (
                "F01.lists-active-items",
                "F03.search-title",
                "F03.search-ignores-case",
                "F04.page",
                "F04.offset-only",
                "F05.sort-by-price",
                "F05.sort-by-title-descending",
                "F06.count-active",
            ),
        ),
        ("F09", "no-op", "probes-F09", ("F09.archive-sticks",)),
        ("F11", "accepts-all", "probes-F11", ("F11.rejects-empty-title", "F11.rejects-negative-price")),
        ("F12", "wrong-field", "probes-F12", ("F12.filter-ann",)),
    ],
)
def test_each_defect_passes_the_shallow_check_and_the_gate_refutes_it_naming_what_broke(
    experiment: Experiment, feature: str, variant: str, check: str, probes: tuple[str, ...]
) -> None:
    shallow = next(
        a for a in experiment.shallow.attempts if (a.feature, a.patch.variant) == (feature, variant)
    )
    gated = next(a for a in experiment.gate.attempts if (a.feature, a.patch.variant) == (feature, variant))
    assert shallow.patch.defective
    assert shallow.claimed
    assert not gated.claimed
    assert gated.gate is not None
    assert gated.gate.refuted
    assert gated.broke() == ((check, probes),)
    # The Stop's block reason, as the model would read it, names the check and every failing probe.
    text = gated.gate.report_text()
    assert f"FAILED: {check} [tests failure]" in text
    for probe in probes:
        assert probe in text


def test_a_missing_guard_passes_its_own_probe_and_the_regression_suite_catches_what_it_broke(
    experiment: Experiment,
) -> None:
    refuted = next(a for a in experiment.gate.attempts if a.feature == "F07")
    assert refuted.gate is not None
    standing = {v.result.name: v.standing for v in refuted.gate.verdicts}
    assert standing == {"syntax": "passed", "probes-F07": "passed", REGRESSION: "new"}
    assert refuted.broken_features() == ("F01", "F03", "F04", "F05", "F06")
    # Under the shallow check the same patch is claimed, still passes its own probes at the end, and
    # breaks features done before it and after it.
    assert "F07" in experiment.shallow.working
    blames = {b.feature: b for b in experiment.blames["shallow"]}
    for feature in COLLATERAL:
        assert blames[feature].collateral
        assert [(c.feature, c.variant) for c in blames[feature].culprits] == [("F07", "missing-guard")]
    assert [(c.feature, c.variant) for c in blames["F12"].culprits] == [
        ("F07", "missing-guard"),
        ("F12", "wrong-field"),
    ]
    assert not blames["F12"].collateral
    assert experiment.blames["gate"] == ()


def test_a_refuted_patch_is_rolled_back_and_a_later_correct_one_passes(experiment: Experiment) -> None:
    tries = [(a.patch.variant, a.claimed) for a in experiment.gate.attempts if a.feature == "F09"]
    assert tries == [("no-op", False), ("correct", True)]
    assert "F09" in experiment.gate.working


def test_the_report_names_what_broke(experiment: Experiment) -> None:
    text = report(experiment)
    assert "F01 list items: its own patch is correct; broken by F07 filter by tag (missing-guard)" in text
    assert "F11 validate new items: its own patch is defective (accepts-all:" in text
    assert "F09.archive-sticks: GET /items/2: expected archived = true, got false" in text
    assert (
        "features it broke: F01 list items, F03 search by title, F04 pagination, F05 sort, F06 count" in text
    )
    assert "(probes-F07, its own probes, passed)" in text


# No evidence, no pass; syntax first -------------------------------------------------------------------------


def test_a_feature_that_no_probe_covers_is_not_passed(catalog: Catalog, tmp_path: Path) -> None:
    stats = Feature("F16", "request stats", "GET /stats answers how many items there are.")
    code = (
        '@route("GET", r"/stats")\n'
        "def stats(request: Request) -> Reply:\n"
        '    return 200, {"items": len(ITEMS)}'
    )
    small = dataclasses.replace(
        catalog,
        features=(catalog.feature("F01"), stats),
        probes=catalog.probes_of("F01"),
        patches=(catalog.patch("F01", "correct"), Patch("F16", "correct", code)),
        script=(("F01", ("correct",)), ("F16", ("correct",))),
    )
    probes_file = write_probes(small, tmp_path / "probes.json")
    gated = play(small, "gate", tmp_path, probes_file)
    assert gated.claimed == ("F01",)
    refused = gated.attempts[-1]
    assert refused.broke() == (("probes-F16", ("F16.no-probe",)),)
    assert refused.gate is not None
    assert "no probe covers F16; without evidence it is not a pass" in refused.gate.report_text()
    shallow = play(small, "shallow", tmp_path, probes_file)
    assert shallow.claimed == ("F01", "F16")
    assert shallow.false_claims == ("F16",)


def test_a_patch_that_does_not_parse_fails_the_compile_stage_and_no_probe_runs(
    catalog: Catalog, tmp_path: Path
) -> None:
    probes_file = write_probes(catalog, tmp_path / "probes.json")
    repo = new_workspace(tmp_path / "repo")
    service = repo / SERVICE_FILE
    service.write_text(text_with(correct(catalog, "F01", "F02")))
    commit_all(repo, "F01 and F02 done")
    broken = catalog.patch("F13", "unparsable")
    service.write_text(with_patch(service.read_text(), broken))
    assert shallow_check(service, broken)
    result = gate(Project(repo, tmp_path / "state"), ["F01", "F02"], "F13", probes_file)
    assert result.refuted
    standing = {v.result.name: (v.standing, v.compile_stage) for v in result.verdicts}
    assert standing == {
        "syntax": ("new", True),
        "probes-F13": ("skipped", False),
        REGRESSION: ("skipped", False),
    }
    text = result.report_text()
    assert "FAILED: syntax [syntax/compile failure]" in text
    assert "SyntaxError: expected ':'" in text
    assert "Not run, because the compile stage failed first: probes-F13, regression" in text


# The probes themselves --------------------------------------------------------------------------------------


def test_every_probe_passes_on_the_correct_service_and_fails_without_its_feature(
    catalog: Catalog, tmp_path: Path
) -> None:
    probes_file = write_probes(catalog, tmp_path / "probes.json")
    features = [f.id for f in catalog.features]
    whole = service_with(catalog, tmp_path / "whole", correct(catalog, *features))
    runs = run_probes(whole, features, probes_file)
    assert {f: run.failed for f, run in runs.items()} == dict.fromkeys(features, ())
    assert sorted(p for run in runs.values() for p in run.passed) == sorted(p.name for p in catalog.probes)

    def without(feature: str) -> ProbeRun:
        others = correct(catalog, *(f for f in features if f != feature))
        folder = service_with(catalog, tmp_path / f"without-{feature}", others)
        return run_probes(folder, [feature], probes_file)[feature]

    # The services are independent, so their runners go at once: the same runners, less wall time.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        without_runs = dict(zip(features, pool.map(without, features), strict=True))
    for feature, run in without_runs.items():
        assert run.passed == (), f"{feature}'s probes pass without {feature}: {run.passed}"
        assert {name for name, _ in run.failed} == {p.name for p in catalog.probes_of(feature)}


# The service's processes ------------------------------------------------------------------------------------

_ANNOUNCED = re.compile(r"^# (\S+): service at http://([\d.]+):(\d+) \(pid (\d+)\)$", re.MULTILINE)


def test_each_probe_gets_a_service_on_loopback_with_a_port_of_its_own_and_stops_it(
    catalog: Catalog, tmp_path: Path
) -> None:
    probes_file = write_probes(catalog, tmp_path / "probes.json")
    folder = service_with(catalog, tmp_path / "service", correct(catalog, "F01", "F02", "F13"))
    command = [sys.executable, "-I", str(PROBE_RUNNER), "--probes", str(probes_file)]
    done = subprocess.run(
        [*command, "--feature", "F02", "--feature", "F13", SERVICE_FILE],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    announced = _ANNOUNCED.findall(done.stdout)
    assert [name for name, *_ in announced] == ["F02.gets-one", "F02.unknown-is-404", "F13.delete-then-gone"]
    assert {host for _, host, _, _ in announced} == {"127.0.0.1"}
    ports = [int(port) for _, _, port, _ in announced]
    assert all(port > 0 for port in ports)
    pids = [int(pid) for *_, pid in announced]
    assert len(set(pids)) == 3
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert processes_mentioning(str(tmp_path)) == []


def test_a_service_that_hangs_is_ended_with_its_check_when_the_gate_times_out(
    catalog: Catalog, tmp_path: Path
) -> None:
    probes_file = write_probes(catalog, tmp_path / "probes.json")
    repo = new_workspace(tmp_path / "repo")
    hangs = Patch("F01", "hangs", "import time\n\ntime.sleep(60)", "never starts listening")
    (repo / SERVICE_FILE).write_text(text_with([catalog.patch("F01", "correct"), hangs]))
    result = gate(Project(repo, tmp_path / "state"), [], "F01", probes_file, timeout=3.0)
    assert result.refuted
    (timed_out,) = result.new_failures
    assert (timed_out.result.name, timed_out.result.status) == ("probes-F01", "timed_out")
    assert processes_mentioning(str(tmp_path)) == []


def test_no_service_outlives_the_experiment(experiment: Experiment, work: Path) -> None:
    assert experiment.gate.claimed
    assert processes_mentioning(str(work)) == []
