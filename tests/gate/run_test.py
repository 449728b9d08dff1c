"""The gate on real git repositories running real pytest: fresh evidence reused and invalidated, the compile
stage stopping the behaviour stage, and the baseline telling pre-existing failures from new ones."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testing import pytestcheck
from testing.gaterun import gate_run
from testing.gitrepo import commit_all, git, head, init_repo, repo_fixture, write
from testing.pytestcheck import PYTEST
from testing.statefolder import state_dir

from tiergate.config.settings import load_config
from tiergate.foreign import Exclusions
from tiergate.gate import cache as evidencecache
from tiergate.gate import sandbox, stagedrun
from tiergate.gate.baseline import base_commit, ensure_baseline
from tiergate.gate.checks import Check, make_check
from tiergate.gate.detection.projectchecks import project_checks
from tiergate.gate.processes import Progress, ProgressEvent
from tiergate.gate.ruling import GateResult
from tiergate.gate.stagedrun import NOT_RUN
from tiergate.project import Project
from tiergate.tier.change import measure_change
from tiergate.workspace.fingerprint import fingerprint

SYNTAX = f"{shlex.quote(sys.executable)} -m compileall -q app.py"
APP = "def total(items):\n    return sum(items)\n"
TESTS_OK = (
    "from app import total\n\n"
    "def test_total():\n    assert total([1, 2]) == 3\n\n"
    "def test_empty():\n    assert total([]) == 0\n"
)


# Where a test is about the gate and not about pytest, its check runs the same tests under unittest, from a
# file pytest does not collect: a nested pytest costs five times the CPU of unittest.
UNITTEST = f"{pytestcheck.UNITTEST} app_checks"
UNITS_OK = (
    "import unittest\n"
    "from app import total\n\n"
    "class Total(unittest.TestCase):\n"
    "    def test_total(self):\n        self.assertEqual(total([1, 2]), 3)\n\n"
    "    def test_empty(self):\n        self.assertEqual(total([]), 0)\n"
)
UNITS_FAILING_BEFORE = UNITS_OK + "\n    def test_legacy(self):\n        self.assertEqual(total([1]), 2)\n"


repo = repo_fixture({"app.py": APP, "test_app.py": TESTS_OK, "app_checks.py": UNITS_OK})


def project(repo: Path) -> Project:
    return Project(repo, state_dir(repo))


def counted(name: str, command: str, counter: Path) -> Check:
    """A check that leaves a mark outside the repository each time it runs (and where it ran)."""
    return make_check(name, f"pwd >> {counter}; {command}", "test")


def runs(counter: Path) -> list[str]:
    return counter.read_text().splitlines() if counter.exists() else []


def in_copy(place: str, inside: str = "") -> bool:
    """Whether a check ran in a claim's copy (`tiergate.gate.cleancopy`), in its folder `inside`."""
    return "/tiergate-claim-" in place and place.endswith(f"/tree{inside}")


def gate(repo: Path, checks: list[Check], base: str | None = None) -> GateResult:
    return gate_run(project(repo), base, checks)


# Fresh evidence ---------------------------------------------------------------------------------------------


def test_a_claim_on_the_same_workspace_reuses_the_results(repo: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    checks = [counted("tests", UNITTEST, counter)]
    base = head(repo)
    write(repo, {"app.py": APP + "\n# edited\n"})
    first = gate(repo, checks, base)
    assert not first.refuted
    assert not first.reused
    second = gate(repo, checks, base)
    assert second.reused
    assert second.fingerprint == first.fingerprint
    assert [v.result for v in second.verdicts] == [v.result for v in first.verdicts]
    assert len(runs(counter)) == 1  # nothing ran the second time
    assert "reused from an earlier run" in second.packet_lines()[0]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda r: write(r, {"app.py": APP + "\n# edited again\n"}), id="tracked edit"),
        pytest.param(lambda r: write(r, {"notes.txt": "new\n"}), id="untracked file"),
        pytest.param(lambda r: commit_all(r, "commit the edit"), id="commit"),
        pytest.param(lambda r: (r / "app_checks.py").unlink(), id="deletion"),
    ],
)
def test_any_change_to_the_workspace_runs_the_checks_again(
    repo: Path, tmp_path: Path, change: object
) -> None:
    counter = tmp_path / "runs"
    checks = [counted("tests", UNITTEST, counter)]
    base = head(repo)
    write(repo, {"app.py": APP + "\n# edited\n"})
    gate(repo, checks, base)
    change(repo)  # type: ignore[operator]
    assert not gate(repo, checks, base).reused
    # In the claim's copy each time (deleting the tests also runs them at the base).
    assert sum(in_copy(place) for place in runs(counter)) == 2


def test_changed_checks_or_timeout_never_reuse(repo: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    checks = [counted("tests", UNITTEST, counter)]
    gate(repo, checks)
    assert not gate(repo, [counted("tests", UNITTEST + " -f", counter)]).reused
    assert not gate_run(project(repo), None, checks, timeout=60).reused
    assert gate(repo, checks).reused


def test_returning_to_an_earlier_state_finds_its_results_again(repo: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    checks = [counted("tests", UNITTEST, counter)]
    base = head(repo)
    gate(repo, checks, base)
    write(repo, {"app.py": "def total(items):\n    return 0\n"})
    assert gate(repo, checks, base).refuted
    write(repo, {"app.py": APP})
    assert gate(repo, checks, base).reused


def test_rerun_on_request(repo: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    checks = [counted("tests", UNITTEST, counter)]
    gate(repo, checks)
    assert not gate_run(project(repo), None, checks, reuse=False).reused
    assert len(runs(counter)) == 2


def test_results_of_checks_that_changed_the_workspace_are_not_kept(repo: Path) -> None:
    # The checks run in the claim's copy: one that reaches the workspace itself (a daemon would too).
    formatter = make_check("format", f"echo '# formatted' >> {repo}/app.py", "test")
    before = (repo / "app.py").read_text()
    first = gate(repo, [formatter])
    if sandbox.unavailable() is None:
        # Its sandbox covers the workspace: what it wrote there went nowhere, and its result is kept.
        assert (repo / "app.py").read_text() == before and not first.workspace_changed
        assert gate(repo, [formatter]).reused
        return
    assert first.workspace_changed
    assert not gate(repo, [formatter]).reused
    assert not list((state_dir(repo) / "evidence").glob("*.json"))


def test_unreadable_evidence_counts_as_absent(repo: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    checks = [counted("tests", UNITTEST, counter)]
    gate(repo, checks)
    for path in (state_dir(repo) / "evidence").glob("*.json"):
        path.write_text("{not json")
    assert not gate(repo, checks).reused
    assert len(runs(counter)) == 2


def test_only_the_newest_evidence_files_are_kept(repo: Path) -> None:
    checks = [make_check("tests", "true", "test")]
    older_states(repo, evidencecache.KEEP_EVIDENCE + 3)
    for i in range(2):
        write(repo, {"scratch.txt": f"{i}\n"})
        gate(repo, checks)
    assert len(list((state_dir(repo) / "evidence").glob("*.json"))) == evidencecache.KEEP_EVIDENCE
    assert gate(repo, checks).reused  # the newest state is still there


def older_states(repo: Path, count: int) -> None:
    """The evidence of `count` workspace states of an hour ago, kept as the gate keeps it (and pruned as it
    prunes), but written here: a gate run each was a dozen git processes and a check, seconds in all, and
    the test is about the runs after them."""
    kept = project(repo)
    for n in range(count):
        evidencecache.store_evidence(kept, f"{n:064x}", [])
    # An hour old, so that the gate's own files are the newest however coarse the file clock.
    hour_ago = time.time() - 3600
    for path in (state_dir(repo) / "evidence").glob("*.json"):
        os.utime(path, (hour_ago, hour_ago))


# Stages ----------------------------------------------------------------------------------------------------


def test_a_syntax_failure_stops_the_behaviour_stage(repo: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    checks = [counted("tests", PYTEST, counter), make_check("syntax", SYNTAX, "test")]
    base = head(repo)
    write(repo, {"app.py": "def total(items:\n    return sum(items)\n"})
    result = gate(repo, checks, base)
    assert result.refuted
    assert runs(counter) == []  # the tests never ran against code that does not parse
    tests, syntax = result.verdicts
    assert (syntax.standing, syntax.compile_stage) == ("new", True)
    assert (tests.standing, tests.result.reason) == ("skipped", NOT_RUN)
    text = result.report_text()
    assert "FAILED: syntax [syntax/compile failure]" in text
    assert "SyntaxError" in text
    assert "Not run, because the compile stage failed first: tests" in text


def test_a_compile_failure_that_already_existed_does_not_stop_the_behaviour_stage(
    repo: Path, tmp_path: Path
) -> None:
    counter = tmp_path / "runs"
    write(repo, {"legacy.py": "print 'python 2'\n"})
    commit_all(repo, "a file that never compiled")
    base = head(repo)
    syntax = make_check("syntax", f"{shlex.quote(sys.executable)} -m compileall -q .", "test")
    checks = [syntax, counted("tests", UNITTEST, counter)]
    write(repo, {"app.py": APP + "\n# edited\n"})
    result = gate(repo, checks, base)
    assert not result.refuted
    assert [v.standing for v in result.verdicts] == ["pre-existing", "passed"]
    assert len(runs(counter)) == 1


def test_the_stages_keep_the_checks_order_and_each_stage_runs_concurrently(
    repo: Path, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    behaviour = ("one", "two", "three")
    everyone = " && ".join(f"test -e {marks}/{name}" for name in behaviour)
    # The build finds none of the others started, and ends a moment later; each of the others finds the
    # build ended, then waits until all three have started (one at a time, none would get past the first).
    build = f"! ls {marks}/* >/dev/null 2>&1 && sleep 0.2 && touch {marks}/build"
    checks = [
        make_check(
            name,
            f"test -e {marks}/build && touch {marks}/{name} && until {everyone}; do sleep 0.01; done",
            "test",
        )
        for name in behaviour
    ]
    checks.insert(1, make_check("build", build, "test"))
    result = gate_run(project(repo), None, checks, timeout=60)
    assert [v.result.name for v in result.verdicts] == ["one", "build", "two", "three"]
    assert [v.standing for v in result.verdicts] == ["passed"] * 4, [v.result.reason for v in result.verdicts]


# Baseline --------------------------------------------------------------------------------------------------

FAILING_BEFORE = TESTS_OK + "\ndef test_legacy():\n    assert total([1]) == 2\n"


def test_a_failure_that_existed_at_the_base_is_pre_existing(repo: Path, tmp_path: Path) -> None:
    write(repo, {"test_app.py": FAILING_BEFORE})
    commit_all(repo, "a known failing test")
    base = head(repo)
    write(repo, {"app.py": APP + "\ndef unrelated():\n    return 1\n"})
    result = gate(repo, [make_check("tests", PYTEST, "test")], base)
    assert not result.refuted
    (verdict,) = result.pre_existing
    assert verdict.summary.failed_tests == ("test_app.py::test_legacy",)
    assert "worktree" in verdict.reason


def test_a_new_failing_test_refutes_even_beside_an_old_one(repo: Path) -> None:
    write(repo, {"test_app.py": FAILING_BEFORE})
    commit_all(repo, "a known failing test")
    base = head(repo)
    write(repo, {"app.py": "def total(items):\n    return sum(items) if items else None\n"})
    result = gate(repo, [make_check("tests", PYTEST, "test")], base)
    assert result.refuted
    (verdict,) = result.new_failures
    assert verdict.new_tests == ("test_app.py::test_empty",)
    assert "test_app.py::test_legacy" in verdict.summary.failed_tests
    text = result.report_text()
    assert "new failing tests: test_app.py::test_empty" in text
    assert "failing at the baseline too: test_app.py::test_legacy" in text


def test_the_baseline_runs_only_failing_checks_in_a_removed_worktree_of_the_base(
    repo: Path, tmp_path: Path
) -> None:
    passing, failing = tmp_path / "passing", tmp_path / "failing"
    base = head(repo)
    checks = [counted("lint", "true", passing), counted("tests", UNITTEST, failing)]
    write(repo, {"app.py": "def total(items):\n    return 0\n"})
    result = gate(repo, checks, base)
    assert result.refuted
    [ran] = runs(passing)  # a passing check needs no baseline
    assert in_copy(ran) and not Path(ran).exists()  # the claim's copy, removed
    here, there = runs(failing)
    assert in_copy(here)
    assert "tiergate-baseline-" in there
    assert not Path(there).exists()
    assert git(repo, "worktree", "list").count("\n") == 1
    entries = evidencecache.load_baseline(project(repo), base)
    assert [e.where for e in entries.values()] == ["worktree"]
    assert entries[checks[1].key].result.status == "passed"
    gate(repo, checks, base)  # reused, and the baseline is kept: nothing runs at the base again
    write(repo, {"app.py": "def total(items):\n    return -1\n"})
    gate(repo, checks, base)
    assert len(runs(failing)) == 3


def test_the_baseline_worktree_runs_none_of_the_repository_hooks(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    base = head(repo)
    write(repo, {"app.py": "def total(items):\n    return 0\n"})
    result = gate(repo, [make_check("tests", UNITTEST, "test")], base)
    assert result.refuted
    assert "passed at the baseline" in result.verdicts[0].reason  # the baseline did run, in a worktree
    assert not marker.exists()


def test_a_workspace_at_the_base_is_never_its_own_baseline(repo: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    write(repo, {"app_checks.py": UNITS_FAILING_BEFORE})
    commit_all(repo, "a known failing test")
    checks = [counted("tests", UNITTEST, counter)]
    result = gate(repo, checks, head(repo))
    assert not result.refuted
    assert "baseline run in a worktree of the base" in result.pre_existing[0].reason
    # The check ran in the claim's copy, then at the base in a worktree: what git ignores in the workspace
    # (bytecode, a planted build) may change what runs there while it reads as the base.
    [here, there] = runs(counter)
    assert in_copy(here)
    assert "tiergate-baseline-" in there


def test_bytecode_planted_in_a_workspace_at_the_base_does_not_become_the_baseline(repo: Path) -> None:
    app = "def total(items):\n    return sum(items)\n"
    write(repo, {"app.py": app, ".gitignore": "__pycache__/\n"})
    commit_all(repo, "total")
    base = head(repo)
    # The agent compiles a broken total() into app.py's cached bytecode, stamped as app.py is: while the
    # workspace reads as the base, its tests fail, and would look like failures the loop began with.
    broken = "def total(items):\n    return -1\n"
    write(repo, {"app.py": broken})
    subprocess.run([sys.executable, "-m", "py_compile", "app.py"], cwd=repo, check=True)
    write(repo, {"app.py": app})
    stat = (repo / "app.py").stat()
    [pyc] = (repo / "__pycache__").glob("app.*.pyc")
    data = bytearray(pyc.read_bytes())
    data[8:12] = int(stat.st_mtime).to_bytes(4, "little")
    data[12:16] = (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    pyc.write_bytes(bytes(data))
    checks = [make_check("tests", UNITTEST, "test")]
    at_base = gate(repo, checks, base)
    assert not at_base.refuted  # the planted bytecode runs neither in the claim's copy...
    kept = evidencecache.load_baseline(project(repo), base)
    assert all(entry.result.status == "passed" for entry in kept.values())  # ...nor in the baseline
    pyc.unlink()
    write(repo, {"app.py": broken})
    claim = gate(repo, checks, base)
    assert claim.refuted
    assert "passed at the baseline" in claim.verdicts[0].reason


def test_a_change_measured_just_before_gives_the_fingerprint_git_would(repo: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    checks = [counted("tests", UNITTEST, counter)]
    base = head(repo)
    write(repo, {"app.py": "def total(items):\n    return 0\n", "notes.txt": "new\n"})
    change = measure_change(repo, base)
    first = gate_run(project(repo), base, checks, change=change)
    assert first.fingerprint == fingerprint(repo, base)
    assert first.refuted
    assert [e.where for e in evidencecache.load_baseline(project(repo), base).values()] == ["worktree"]
    second = gate(repo, checks, base)  # git's fingerprint finds the results the change's was given
    assert second.reused
    assert len(runs(counter)) == 2  # the claim, and the baseline in a worktree


def test_a_change_measured_from_another_base_or_with_other_exclusions_is_not_used(repo: Path) -> None:
    base = head(repo)
    write(repo, {"app.py": APP + "\n# edited\n"})
    from_head = measure_change(repo, "HEAD")  # the same commit, named otherwise: git is asked
    ignoring = measure_change(repo, base, Exclusions(("app.py",)))
    write(repo, {"later.txt": "written since\n"})  # not in the stale changes' paths
    checks = [make_check("tests", UNITTEST, "test")]
    for stale in (from_head, ignoring):
        assert gate_run(project(repo), base, checks, change=stale).fingerprint == fingerprint(repo, base)


def test_a_change_from_head_that_is_empty_still_takes_its_baseline_from_a_worktree(
    repo: Path, tmp_path: Path
) -> None:
    counter = tmp_path / "runs"
    write(repo, {"app_checks.py": UNITS_FAILING_BEFORE})
    commit_all(repo, "a known failing test")
    checks = [counted("tests", UNITTEST, counter)]
    result = gate_run(project(repo), None, checks, change=measure_change(repo, "HEAD"))
    assert not result.refuted
    assert "baseline run in a worktree of the base" in result.pre_existing[0].reason
    assert in_copy(runs(counter)[0])
    assert len(runs(counter)) == 2


def test_a_baseline_kept_for_the_base_serves_later_claims(repo: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    write(repo, {"app_checks.py": UNITS_FAILING_BEFORE})
    commit_all(repo, "a known failing test")
    base = head(repo)
    checks = [counted("tests", UNITTEST, counter)]
    entries = ensure_baseline(project(repo), base, checks)
    assert [e.where for e in entries.values()] == ["worktree"]
    write(repo, {"app.py": APP + "\n# edited\n"})
    result = gate(repo, checks, base)
    assert not result.refuted
    [at_start, claim] = runs(counter)  # once at the start, in a worktree; once for the claim
    assert "tiergate-baseline-" in at_start and in_copy(claim)


def test_a_loop_begun_before_the_first_commit_has_no_baseline(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "fresh")
    empty_tree = git(repo, "hash-object", "-t", "tree", "--stdin").strip()
    write(repo, {"app.py": "x = 1\n"})
    result = gate(repo, [make_check("tests", "exit 1", "test")], empty_tree)
    assert result.refuted
    assert result.verdicts[0].reason == "no baseline result to compare with"
    assert base_commit(repo, empty_tree) is None


def test_outside_git_the_checks_run_and_every_failure_is_new(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    checks = [make_check("tests", "exit 1", "test"), make_check("lint", "true", "test")]
    result = gate_run(Project(folder, state_dir(folder)), None, checks)
    assert result.refuted
    assert result.fingerprint is None
    assert not gate_run(Project(folder, state_dir(folder)), None, checks).reused


def test_a_missing_tool_refutes_runs_no_baseline_and_keeps_nothing_so_installing_it_counts_at_once(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = head(repo)
    write(repo, {"app.py": APP + "\n# edited\n"})
    lint = make_check("lint", "no-such-linter-tiergate --check", "test")
    result = gate(repo, [lint], base)
    assert result.refuted
    assert (result.verdicts[0].result.status, result.verdicts[0].standing) == ("not_found", "new")
    assert lint.key not in evidencecache.load_baseline(project(repo), base)  # never excused: not run there
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "no-such-linter-tiergate").write_text("#!/bin/sh\nexit 0\n")
    (tools / "no-such-linter-tiergate").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:/usr/bin:/bin")
    again = gate(repo, [lint], base)
    assert (again.refuted, again.reused, again.verdicts[0].standing) == (False, False, "passed")


def test_a_project_in_a_subfolder_runs_its_baseline_in_the_same_subfolder(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "mono", {"svc/app.py": APP, "svc/app_checks.py": UNITS_FAILING_BEFORE})
    base = head(repo)
    write(repo, {"svc/app.py": APP + "\n# edited\n"})
    counter = tmp_path / "runs"
    svc = Project(repo / "svc", repo / "svc" / ".tiergate")
    result = gate_run(svc, base, [counted("tests", UNITTEST, counter)])
    assert not result.refuted
    here, there = runs(counter)
    assert in_copy(here, "/svc") and Path(there).name == "svc"


def test_no_checks_is_a_gate_that_says_so(repo: Path) -> None:
    result = gate(repo, [])
    assert not result.refuted
    assert result.verdicts == ()


def test_the_project_gate_runs_the_configured_checks(repo: Path) -> None:
    write(repo, {".tiergate.toml": f'[checks]\ntests = "{PYTEST}"\nsyntax = "{SYNTAX}"\n'})
    commit_all(repo, "configure the checks")
    base = head(repo)
    write(repo, {"app.py": "def total(items):\n    return 0\n"})
    result = gate_run(project(repo), base, project_checks(repo, load_config(repo)))
    assert [(v.result.name, v.result.kind, v.standing) for v in result.verdicts] == [
        ("tests", "tests", "new"),
        ("syntax", "syntax", "passed"),
    ]
    assert result.new_failures[0].new_tests == ("test_app.py::test_total",)


# Budget ----------------------------------------------------------------------------------------------------


class Clock:
    """The gate's clock, which measures its budget: it moves only when the test moves it, so that the
    budget is spent where the test says, however slowly a loaded machine runs the checks."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def spends_at_the_end_of(self, name: str, seconds: float) -> Progress:
        """Progress that moves the clock `seconds` on when the check `name` ends."""

        def move(event: ProgressEvent) -> None:
            if event.event == "end" and event.check.name == name:
                self.now += seconds

        return move


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(stagedrun, "time", clock)
    return clock


def test_the_budget_cuts_the_last_stage_short_and_nothing_is_kept(repo: Path, clock: Clock) -> None:
    checks = [make_check("build", "true", "test"), make_check("tests", "sleep 600", "test")]
    # The build stage spends all but 1.5 s of the budget: the tests get those 1.5 s, not their timeout.
    spend = clock.spends_at_the_end_of("build", 28.5)
    result = gate_run(project(repo), None, checks, timeout=60, budget=30, progress=spend)
    assert result.refuted
    build, tests = result.verdicts
    assert build.standing == "passed"
    assert (tests.result.status, tests.standing) == ("timed_out", "new")
    assert tests.result.reason.endswith("s: the gate's time budget ran out")
    assert not gate_run(project(repo), None, checks[:1], timeout=60).reused  # nothing was kept
    assert evidencecache.load_baseline(project(repo), head(repo)) == {}  # nothing failed at the base


def test_a_stage_the_budget_has_no_time_for_is_not_run_and_refutes(
    repo: Path, tmp_path: Path, clock: Clock
) -> None:
    counter = tmp_path / "runs"
    checks = [make_check("build", "true", "test"), counted("tests", "true", counter)]
    # The build stage leaves 0.5 s of the budget: less than a stage is started with.
    spend = clock.spends_at_the_end_of("build", 29.5)
    result = gate_run(project(repo), None, checks, timeout=60, budget=30, progress=spend)
    assert result.refuted
    assert result.verdicts[1].result.reason == "not run: the gate's time budget ran out"
    assert runs(counter) == []


def test_no_baseline_run_starts_without_a_whole_timeout_left(repo: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    base = head(repo)
    write(repo, {"app.py": "def total(items):\n    return 0\n"})
    checks = [counted("tests", UNITTEST, counter)]
    result = gate_run(project(repo), base, checks, timeout=60, budget=30)
    assert result.refuted
    assert result.verdicts[0].reason == "no baseline result to compare with"
    assert [in_copy(place) for place in runs(counter)] == [True]
    # The next claim on the same workspace reuses the results at once, and has the time for the baseline.
    again = gate_run(project(repo), base, checks, timeout=60, budget=120)
    assert again.reused
    assert again.verdicts[0].reason == "passed at the baseline"
    assert len(runs(counter)) == 2
