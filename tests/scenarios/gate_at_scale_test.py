"""The gate at scale, through the real Stop hook entry point on real git repositories and real pytest
runs: the tests a change affects run first and refute a wrong change without the rest of the suite; an
honest change still runs the whole suite before a verifier is asked for; a suite longer than the Stop's
limit (read from the plugin's hooks.json) is verified across Stops, none held long and none refuted for
time; a workspace edited meanwhile gets a fresh run; a test the change makes hang is refuted against its
time at the base."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testing.procwatch import gone_within, running, wait_for_text
from testing.scaleproject import RUNNING, ScaleLoop, module_tests, plugin_root, scale_project

from tiergate.gate import background, sandbox
from tiergate.project import Project
from tiergate.text import duration

pytestmark = pytest.mark.long

WRONG_3 = "def value_3(x):\n    return x - 3\n"
HONEST_3 = "def value_3(x):\n    total = x\n    total += 3\n    return total\n"


def a_loop(tmp_path: Path, modules: int, seconds: float = 0.0, stop_timeout: int | None = None) -> ScaleLoop:
    (tmp_path / "marks").mkdir()
    loop = ScaleLoop(tmp_path, scale_project(tmp_path, modules, seconds, tmp_path / "marks"))
    if stop_timeout is not None:
        loop.env["CLAUDE_PLUGIN_ROOT"] = str(plugin_root(tmp_path, stop_timeout))
    loop.start()
    return loop


def ran_for_the_claim(loop: ScaleLoop, n: int) -> bool:
    """Whether test file `n` ran on the claim, in its copy (not at the base, in a worktree)."""
    marks = loop.root / "marks" / str(n)
    return marks.exists() and any("/tiergate-claim-" in place for place in marks.read_text().split())


def project(loop: ScaleLoop) -> Project:
    from testing.statefolder import state_dir

    return Project(loop.project, state_dir(loop.project, loop.env))


def started_job(loop: ScaleLoop, seconds: float = 30.0) -> background.Job:
    """The claim's job once its process runs: the Stop writes the record as "starting" (no process yet) and
    the job rewrites it with its own; on a loaded machine that can come after the Stop has answered."""
    deadline = time.monotonic() + seconds
    while True:
        job = background.status(project(loop))
        if job is not None and job.pid and running(job.pid):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.1)


def test_a_wrong_change_is_refuted_by_the_tests_it_affects_without_the_rest_of_the_suite(
    tmp_path: Path,
) -> None:
    # Each test file takes 2 s: the whole suite 16 s, the one file the change affects 2 s.
    loop = a_loop(tmp_path, modules=8, seconds=1.0)
    loop.settle()  # the agent's work: the loop's baseline, begun at its start, is done
    try:
        answer, took = loop.claim({"calc/mod_3.py": WRONG_3})

        reason = answer["reason"]
        assert answer["decision"] == "block" and "tiergate-spawn" not in reason
        assert "tests/test_mod_3.py::test_value_3_adds" in reason
        assert "the change affects" in reason and "the rest of the suite was not run" in reason
        assert ran_for_the_claim(loop, 3)
        assert not any(ran_for_the_claim(loop, n) for n in range(8) if n != 3)
        assert took < 8, took  # the affected file: not the 16 s suite
        assert loop.loop().attempts, "a refutation of the code counts as an attempt"
    finally:
        loop.cancel()


def test_a_wrong_change_claimed_before_the_baseline_is_done_is_still_refuted_first(tmp_path: Path) -> None:
    loop = a_loop(tmp_path, modules=8, seconds=1.0)
    try:
        answer, took = loop.claim({"calc/mod_3.py": WRONG_3})

        assert "tests/test_mod_3.py::test_value_3_adds" in answer["reason"]
        assert "the rest of the suite was not run" in answer["reason"]
        # Waited for the loop's baseline a while (15 s), ended it, then the file the change affects at the
        # base and at the claim, one after the other, in the claim's copy: never the suite's 16 s twice
        # (47 s with the wait), whatever the machine's load adds to the copy and the two runs.
        assert took < 40, took
        assert not any(ran_for_the_claim(loop, n) for n in range(8) if n != 3)
    finally:
        loop.cancel()


def test_an_honest_change_runs_the_whole_suite_before_its_verifier(tmp_path: Path) -> None:
    loop = a_loop(tmp_path, modules=4)
    try:
        answer, _ = loop.claim({"calc/mod_3.py": HONEST_3})

        assert "```tiergate-spawn" in answer["reason"]
        assert all(ran_for_the_claim(loop, n) for n in range(4))
        assert loop.ran_at_base()  # the loop's per-test outcomes at the base, recorded beside it
    finally:
        loop.cancel()


def test_a_suite_longer_than_the_stop_is_verified_across_stops_none_of_them_long(tmp_path: Path) -> None:
    # The Stop's limit is 70 s (its hooks.json): 10 s of it may be waited for. The suite takes 16 s.
    loop = a_loop(tmp_path, modules=4, seconds=2.0, stop_timeout=70)
    try:
        first, took = loop.claim({"calc/mod_3.py": HONEST_3})

        assert took < 25, took
        assert first["decision"] == "block" and RUNNING in first["reason"]
        assert "tiergate wait" in first["reason"] and "tiergate-spawn" not in first["reason"]
        assert loop.loop().phase == "working" and not loop.loop().attempts  # neither refuted nor passed
        assert loop.loop().refuted == ()
        waited = loop.wait()
        assert waited.returncode == 0 and "the checks are over" in waited.stdout

        second, took = loop.claim()

        assert "```tiergate-spawn" in second["reason"], second["reason"]
        assert took < 25, took
        assert all(ran_for_the_claim(loop, n) for n in range(4))
    finally:
        loop.cancel()


def test_a_wrong_change_to_a_suite_longer_than_the_stop_is_still_refuted(tmp_path: Path) -> None:
    loop = a_loop(tmp_path, modules=4, seconds=2.0, stop_timeout=70)
    try:
        answer, took = loop.claim({"calc/mod_3.py": WRONG_3})
        while RUNNING in answer.get("reason", ""):
            assert took < 25, took
            loop.wait()
            answer, took = loop.claim()

        assert "tests/test_mod_3.py::test_value_3_adds" in answer["reason"]
        assert "tiergate-spawn" not in answer["reason"]
        assert "timed out" not in answer["reason"]
    finally:
        loop.cancel()


def test_a_workspace_edited_while_the_checks_run_gets_a_fresh_run(tmp_path: Path) -> None:
    loop = a_loop(tmp_path, modules=4, seconds=2.0, stop_timeout=70)
    try:
        first, _ = loop.claim({"calc/mod_3.py": HONEST_3})
        assert RUNNING in first["reason"]
        old = started_job(loop)

        second, _ = loop.claim({"calc/mod_2.py": "def value_2(x):\n    return 2 + x\n"})

        assert RUNNING in second["reason"]
        new = background.status(project(loop))
        assert new is not None and new.key != old.key  # bound to the edited workspace, not the first
        assert not running(old.pid)  # the run for the workspace no longer there was ended
        loop.wait()
        third, _ = loop.claim()
        assert "```tiergate-spawn" in third["reason"]
    finally:
        loop.cancel()


def test_tiergate_cancel_ends_the_background_checks(tmp_path: Path) -> None:
    loop = a_loop(tmp_path, modules=4, seconds=2.0, stop_timeout=70)
    first, _ = loop.claim({"calc/mod_3.py": HONEST_3})
    assert RUNNING in first["reason"]
    job = started_job(loop)
    shown = loop.run("status").stdout
    assert "running your checks in the background" in shown, shown
    [listed] = json.loads(loop.run("status", "--json").stdout)
    assert listed["background_checks"]["session_id"] == loop.session_id

    cancelled = loop.run("cancel")

    assert "stopped the checks running in the background" in cancelled.stdout
    assert not running(job.pid)
    after = background.status(project(loop))
    assert after is not None and after.state == "cancelled" and not after.running
    [listed] = json.loads(loop.run("status", "--json").stdout)
    assert listed["background_checks"] is None


def test_a_test_the_change_makes_hang_is_refuted_naming_its_time_against_the_base(tmp_path: Path) -> None:
    loop = a_loop(tmp_path, modules=2)
    hang = module_tests(1).replace(
        "def test_value_1_of_zero():\n", "def test_value_1_of_zero():\n    time.sleep(600)\n"
    )
    try:
        began = time.monotonic()
        answer, _ = loop.claim({"tests/test_mod_1.py": hang})
        while RUNNING in answer.get("reason", ""):
            loop.wait()
            answer, _ = loop.claim()

        reason = answer["reason"]
        assert "tiergate-spawn" not in reason
        # Its limit, 30 s, or the time the run had left when that was a moment more (a loaded machine).
        assert (
            re.search(r"timed out after 30(\.\d+)? s", reason) or f"timed out after {duration(30)}" in reason
        ), reason
        assert "when the loop began" in reason
        assert time.monotonic() - began < 90  # the floor of 30 s, not the hour a suite without a base gets
    finally:
        loop.cancel()


HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
open(sys.argv[2], "w").write("locked")
time.sleep(600)
"""


def test_a_lock_another_process_holds_is_a_clear_error_never_a_pass_nor_a_wait_forever(
    tmp_path: Path,
) -> None:
    loop = a_loop(tmp_path, modules=2)
    gate = project(loop).state_dir / "gate"
    gate.mkdir(parents=True, exist_ok=True)
    flag = tmp_path / "locked"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(gate / "job.lock"), str(flag)])
    try:
        wait_for_text(flag)
        answer, took = loop.claim({"calc/mod_1.py": "def value_1(x):\n    return x - 1\n"})

        reason = answer["reason"]
        assert answer["decision"] == "block" and "tiergate-spawn" not in reason
        assert "another process holds gate/job.lock" in reason
        assert took < 60, took
        assert loop.loop().claim_errors == 1  # a second one in a row halts the loop, with this reason
    finally:
        holder.kill()
        holder.wait()


def test_the_sessions_end_ends_its_background_checks(tmp_path: Path) -> None:
    loop = a_loop(tmp_path, modules=4, seconds=2.0, stop_timeout=70)
    first, _ = loop.claim({"calc/mod_3.py": HONEST_3})
    assert RUNNING in first["reason"]
    job = started_job(loop)

    began = time.monotonic()
    loop.hook("SessionEnd", reason="prompt_input_exit")

    assert time.monotonic() - began < 1.5  # what Claude Code gives every SessionEnd hook together
    assert gone_within([job.pid]) == []
    after = background.status(project(loop))
    assert after is not None and after.state == "cancelled"


# Red team of issue 33: the claim's own conftest rewrote the base's worktree while a run at the base
# went on beside the claim's, and the wrong change's failures were excused as the base's own.
REWRITES_THE_BASE = r"""import glob, os, tempfile, time
_me = os.path.abspath(__file__)
if "tiergate-baseline-" not in _me:
    _src = open(os.path.join(os.path.dirname(_me), "calc", "mod_2.py")).read()
    _end = time.time() + 3
    while time.time() < _end:
        pattern = os.path.join(tempfile.gettempdir(), "tiergate-baseline-*", "*", "calc", "mod_2.py")
        for t in glob.glob(pattern):
            try:
                if open(t).read() != _src:
                    open(t, "w").write(_src)
                    open(%r, "a").write(t + "\n")
            except OSError:
                pass
        time.sleep(0.002)
"""


def test_the_claims_own_code_never_runs_beside_a_run_at_the_base(tmp_path: Path) -> None:
    loop = a_loop(tmp_path, modules=3)
    patched = tmp_path / "patched.log"
    wrong = {
        "calc/mod_2.py": "def value_2(x):\n    return x - 2\n",
        "conftest.py": REWRITES_THE_BASE % str(patched),
    }
    try:
        answer, _ = loop.claim(wrong)
        while RUNNING in answer.get("reason", ""):
            loop.wait()
            answer, _ = loop.claim()

        assert "tiergate-spawn" not in answer["reason"]
        assert "tests/test_mod_2.py::test_value_2_adds" in answer["reason"]
        assert not patched.exists()  # no run at the base was there to reach
    finally:
        loop.cancel()


# Red team of issue 33: the change's own code killed the job running its tests, and every Stop said the
# checks were still running: a claim never judged, no attempt counted.
KILLS_THE_GATE = r"""import json, os, signal

# The job's record names its process: the state folder is the user's, readable by the agent's code.
_record = %r
if "tiergate-baseline-" not in __file__ and os.path.exists(_record):
    os.kill(json.loads(open(_record).readline())["pid"], signal.SIGKILL)


def value_2(x):
    return x - 2
"""


def test_code_that_kills_the_gate_is_a_claim_that_could_not_be_checked_then_a_halt(tmp_path: Path) -> None:
    loop = a_loop(tmp_path, modules=3)
    loop.settle()  # the loop's baseline: the base's code kills nothing
    try:
        record = project(loop).state_dir / "gate" / "job.json"
        first, _ = loop.claim({"calc/mod_2.py": KILLS_THE_GATE % str(record)})
        assert "tiergate-spawn" not in first["reason"] and RUNNING not in first["reason"]
        if sandbox.unavailable() is None:
            # Its sandbox hides tiergate's state, where the job's record is, and has a process namespace of
            # its own, where the job's pid names no process: the gate lives on, and the wrong code is
            # refuted like any.
            assert "tests/test_mod_2.py" in first["reason"] and "refute" in first["reason"]
            return
        assert "its process ended before its checks did" in first["reason"]

        second, _ = loop.claim()

        assert loop.loop().phase == "halted"
        assert "could not check the claim 2 times in a row" in (loop.loop().end_reason or "")
        assert "tiergate-spawn" not in second.get("reason", "")
    finally:
        loop.cancel()


# Red team of issue 33, second round: a process of the agent's own (its shell's, or a daemon its code left
# behind) finds the base's worktree through .git/worktrees and rewrites a module there while the base runs.
WATCHER = r"""import glob, os, sys, time
project, module, source = sys.argv[1], sys.argv[2], sys.argv[3]
end = time.time() + 60
while time.time() < end:
    for link in glob.glob(os.path.join(project, ".git", "worktrees", "*", "gitdir")):
        try:
            tree = os.path.dirname(open(link).read().strip())
            target = os.path.join(tree, module)
            if os.path.exists(target) and open(target).read() != source:
                open(target, "w").write(source)
        except OSError:
            pass
    time.sleep(0.003)
"""


def test_a_base_worktree_written_while_its_checks_run_is_no_baseline(tmp_path: Path) -> None:
    wrong = "def value_2(x):\n    return x - 2\n"
    (tmp_path / "marks").mkdir()
    loop = ScaleLoop(tmp_path, scale_project(tmp_path, 3, 1.0, tmp_path / "marks"))
    watcher = subprocess.Popen(
        [sys.executable, "-c", WATCHER, str(loop.project), "calc/mod_2.py", wrong],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        loop.start()  # the loop's baseline begins, and the watcher rewrites its worktree
        loop.settle()
        answer, _ = loop.claim({"calc/mod_2.py": wrong})
        while RUNNING in answer.get("reason", ""):
            loop.wait()
            answer, _ = loop.claim()

        assert "tiergate-spawn" not in answer["reason"]
        assert "tests/test_mod_2.py::test_value_2_adds" in answer["reason"]
        assert "still failing as when the loop began" not in answer["reason"]
        errors = [r for r in loop.log() if r.get("event") == "baseline_tampered"]
        assert errors and "calc/mod_2.py" in errors[0]["error"]
    finally:
        watcher.kill()
        watcher.wait()
        loop.cancel()
