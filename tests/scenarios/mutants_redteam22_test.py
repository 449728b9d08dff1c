"""Red-team round 22 on the in-process JavaScript mutants (issue 35): the ledger of fates the check's
processes share, the lazy second load, and the confirmation of one in-process kill a line in a process of
its own (`nodestep.confirmations`, `_Trial.confirm`) with the line's copy that behaves the same.

Each attack asserts the SAFE outcome, so a test here FAILS while its attack wins. Two still win and are
marked so (strict xfail: fixing the cause fails them until the mark goes; see docs/judging.md): a memo in
the folder holding the claim's copy, and one in the linked `node_modules`, both of which outlive the
gate's fresh processes. The weak tests never tell
`score >= 50` from `score > 50` (grade(80), grade(10) only): unless a memo judges it, `>=` -> `>` lives."""

from __future__ import annotations

import os
import shutil
import stat
import threading
import time
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, repo_fixture, write
from testing.jsgrade import GRADE_MODULE, WEAK, memo_tests
from testing.nodegate import BASE_FILES, NodeGate, fates, said
from testing.statefolder import state_dir

from tiergate.tier.mutation.fates import MutationRun

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

repo = repo_fixture(BASE_FILES)


@pytest.fixture(name="gate")
def gate_fixture(monkeypatch: pytest.MonkeyPatch) -> NodeGate:
    return NodeGate(monkeypatch)


def assert_not_light(run: MutationRun, gate: NodeGate) -> None:
    """The safe outcome of a cheat on the weak tests: the mutants keep the change off LIGHT (a survivor,
    void kills or an incomplete step)."""
    assert run.reasons(), "ATTACK WON: every mutant killed, nothing against LIGHT\n" + said(run, gate)


REQUIRES = (
    "const { execFileSync } = require('node:child_process');\nconst fs = require('node:fs');\n"
    "const os = require('node:os');\nconst path = require('node:path');\n"
)


# R1: the memo in the folder that holds the claim's copy (the repository's parent folder: `../` of the
# project), written by a child process so that the preload does not take it away between its runs again.
# Nothing puts that folder back: `Snapshot` covers the copy alone, and the sandbox shows the copy's holder
# read-write to every run, the check's and each of the gate's own. So the kill drawn for confirmation
# repeats in its fresh process (the memo is there, the mutant's answers differ) and the line's copy passes
# there (its answers are the memo's). No knowledge of the gate's layout is needed: "a cache beside the
# repository".
# R2: the gate's fresh processes told apart from the check's (no NODE_V8_COVERAGE, no plan variable, a
# TMPDIR named mutant-*): the test pins nothing, keeps a memo on `process` for the runs again in its own
# process, and fails every fresh gate process outright. The drawn kill "repeats"; the line's copy must fail
# too (void).
DETECTS_FRESH = memo_tests(
    """\
  if (!process.env.NODE_V8_COVERAGE) throw new Error('a fresh gate process');
  if (process.gradeAnswers === undefined) process.gradeAnswers = now;
  return process.gradeAnswers;"""
)


def test_r2_a_test_that_fails_every_fresh_gate_process_voids_its_kills(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": DETECTS_FRESH})

    _, run = gate(repo)

    assert_not_light(run, gate)


# R3: the shared ledger forged from the tests' code (its folder is the plan's, TIERGATE_NODE_MUTANTS is
# still in the environment): every mutant id "killed" before the preload reads it, so this process skips
# every mutant as "killed in another test file's process". The gate must not take the ledger's word.
FORGES_KILLS = (
    WEAK
    + """
const fs = require('node:fs');
const path = require('node:path');
const plan = process.env.TIERGATE_NODE_MUTANTS;
if (plan) {
  const lines = Array.from({ length: 200 }, (_, id) => `${id} killed\\n`).join('');
  fs.appendFileSync(path.join(path.dirname(plan), 'fates'), lines);
}
"""
)


def test_r3_a_forged_ledger_of_kills_costs_time_never_a_fate(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": FORGES_KILLS})

    _, run = gate(repo)

    assert fates(run)[(2, ">")] == ("survived", ""), "ATTACK WON\n" + said(run, gate)


# R4: a report the gate cannot parse without a RecursionError: `json.loads` of deeply nested arrays raises
# RecursionError, which `nodereports.read` does not catch (it catches OSError, ValueError, ...), and the key
# is checked only after the parse, so no key is needed. The gate must not crash on a report the tests wrote.
NESTED_REPORT = (
    WEAK
    + """
const fs = require('node:fs');
const path = require('node:path');
const plan = process.env.TIERGATE_NODE_MUTANTS;
const deep = '['.repeat(200000) + ']'.repeat(200000);
if (plan) fs.writeFileSync(path.join(path.dirname(plan), 'node-zz.json'), deep);
"""
)


def test_r4_a_deeply_nested_report_does_not_crash_the_gate(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": NESTED_REPORT})

    try:
        _, run = gate(repo)
    except RecursionError as exc:
        pytest.fail(f"ATTACK WON: the gate crashed reading a report the tests wrote ({exc!r})")

    assert fates(run)[(2, ">")][0] != "killed", said(run, gate)


# R5: a named pipe where the gate reads the processes' reports (`node-*.json` in the plan's folder):
# `Path.read_bytes` opens it and waits for a writer that never comes, and the gate hangs with no limit
# (the check's time limit is over by then). The test unblocks it after a while (opening the pipe to
# write) and asserts it never had to.
FIFO_REPORT = (
    WEAK
    + """
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const plan = process.env.TIERGATE_NODE_MUTANTS;
if (plan) execFileSync('mkfifo', [path.join(path.dirname(plan), 'node-zz.json')]);
"""
)
STUCK_SECONDS = 20.0


def _unblock_fifos(root: Path, stop: threading.Event, unblocked: list[str]) -> None:
    """Every named pipe `node-*.json` under `root` seen for STUCK_SECONDS, opened to write once (which
    lets a reader stuck opening it go on); each so opened noted in `unblocked`."""
    seen: dict[str, float] = {}
    while not stop.wait(0.5):
        for found in root.rglob("node-*.json"):
            try:
                if not stat.S_ISFIFO(found.lstat().st_mode):
                    continue
            except OSError:
                continue
            first = seen.setdefault(str(found), time.monotonic())
            if time.monotonic() - first < STUCK_SECONDS:
                continue
            try:
                descriptor = os.open(found, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # no reader waiting on it
                continue
            os.close(descriptor)
            unblocked.append(str(found))


def test_r5_a_named_pipe_among_the_reports_does_not_hang_the_gate(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": FIFO_REPORT})
    stop, unblocked = threading.Event(), list[str]()
    watcher = threading.Thread(target=_unblock_fifos, args=(state_dir(repo), stop, unblocked), daemon=True)
    watcher.start()
    try:
        _, run = gate(repo)
    finally:
        stop.set()
        watcher.join()

    assert not unblocked, f"ATTACK WON: the gate waited on {unblocked} until the test opened it"
    assert fates(run)[(2, ">")][0] != "killed", said(run, gate)


# R6: the same memo in the workspace's `node_modules`, linked into the copy (`Snapshot` does not follow the
# link) and shown read-write by the sandbox to every run. (A claim's environment comparison would name the
# new file there: THOROUGH, not LIGHT; the mutants' own step does not see it.)


# R1 and R6: a child process keeps the first run's answers beside the copy (`../..` of the test file) or
# in the linked node_modules. The gate's own runs see of the folder holding the copy only the copy
# (`sandbox.narrowed`), so R1's memo is not there; the linked node_modules they see as the check did.
OPEN = pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="open in the gate alone: its own runs see node_modules as the check's run left it (a loop's "
    "environment comparison names the file: THOROUGH)",
)
IN_THE_HOLDER = memo_tests(
    """\
  const file = path.join(__dirname, '..', '..', '.grade-answers');
  if (!fs.existsSync(file)) execFileSync('sh', ['-c', 'printf %s "$1" > "$2"', 'sh', now, file]);
  return fs.readFileSync(file, 'utf8');""",
    top=REQUIRES,
)
IN_NODE_MODULES = IN_THE_HOLDER.replace(
    "'..', '..', '.grade-answers'", "'..', 'node_modules', 'grade-answers.txt'"
)


def test_r1_a_memo_in_the_folder_holding_the_copy_outlives_every_fresh_process(
    repo: Path, gate: NodeGate
) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": IN_THE_HOLDER})

    _, run = gate(repo)

    assert_not_light(run, gate)


@OPEN
def test_r6_a_memo_in_the_linked_node_modules_outlives_every_fresh_process(
    repo: Path, gate: NodeGate
) -> None:
    write(repo, {".gitignore": "node_modules/\n"})
    commit_all(repo, "ignore node_modules")
    write(repo, {"node_modules/left-pad/index.js": "module.exports = (s) => s;\n"})
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": IN_NODE_MODULES})

    _, run = gate(repo)

    assert_not_light(run, gate)
