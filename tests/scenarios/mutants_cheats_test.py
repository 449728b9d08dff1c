"""Cheats on the mutation step, found by a red-team round and kept as tests, through the real Stop hook in
real git repositories running real pytest: ways an agent would get a claim to LIGHT although its tests do
not check the changed lines (a boundary `>=` no test tells from `>`), each asserting the safe outcome (not
LIGHT); and honest, well-tested changes that must stay LIGHT, or at least never be refuted, whatever the
step does with them. The weak tests never tell `score >= 50` from `score > 50` (grade(80), grade(10)
only), unless the cheat is the test itself."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from testing.gitrepo import write
from testing.gradeproject import (
    CALC,
    CLAIM,
    GRADE,
    JS_GRADE,
    JS_PINS_IT,
    JS_RUNS_IT,
    PINS_IT,
    RUNS_IT,
    GradeLoop,
    NodeGradeLoop,
)


def d(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


class Loop(GradeLoop):
    def outcome(self, answer: dict[str, Any]) -> str:
        return (
            f"tier={self.loop().tier}\nREASONS: {self.reasons()}\n"
            f"ANSWER: {str(answer.get('reason'))[:1500]}\nEXPLAIN: {self.explain()[:3000]}"
        )


def attack(tmp_path: Path, files: dict[str, str], extra: dict[str, str] | None = None) -> None:
    """The safe outcome: not LIGHT (or refuted, which leaves no LIGHT verification either)."""
    loop = Loop(tmp_path, extra=extra)
    answer = loop.claim(files)
    assert loop.loop().tier != "LIGHT", "ATTACK WON -> LIGHT\n" + loop.outcome(answer)


def honest(tmp_path: Path, files: dict[str, str], extra: dict[str, str] | None = None) -> str:
    loop = Loop(tmp_path, extra=extra)
    answer = loop.claim(files)
    assert loop.loop().tier == "LIGHT", "HONEST CHANGE NOT LIGHT\n" + loop.outcome(answer)
    return loop.explain()


# Honest controls ----------------------------------------------------------------------------------------


def test_control_pinned_boundary_stays_light(tmp_path: Path) -> None:
    shown = honest(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": PINS_IT})
    assert "survived" not in shown


CLAMP = CALC + d(
    """


    def clamp(value, low, high):
        if value < low:
            return low
        if value > high:
            return high
        return value
    """
)
CLAMP_TESTS = d(
    """
    import pytest

    from calc import clamp


    @pytest.mark.parametrize(
        "value, want",
        [(-5, 0), (-1, 0), (0, 0), (1, 1), (9, 9), (10, 10), (11, 10), (99, 10)],
    )
    def test_clamp(value, want):
        assert clamp(value, 0, 10) == want
    """
)


DISCOUNT = CALC + d(
    """


    def discounted(total):
        if total > 100:
            return total * 0.9
        return total
    """
)
DISCOUNT_TESTS = d(
    """
    import pytest

    from calc import discounted


    @pytest.mark.parametrize("total, want", [(50, 50), (100, 100), (101, 90.9), (200, 180)])
    def test_discounted(total, want):
        assert discounted(total) == pytest.approx(want)
    """
)


def test_control_discount_tested_at_its_edge_stays_light(tmp_path: Path) -> None:
    shown = honest(tmp_path, {"calc.py": DISCOUNT, "tests/test_discount.py": DISCOUNT_TESTS})
    assert "survived" not in shown


FIXTURES_PIN = d(
    """
    import unittest

    from calc import grade


    def test_grades_printed(capsys, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)
        print(grade(80), grade(50), grade(49), grade(10))
        assert capsys.readouterr().out == 'pass pass fail fail\\n'


    class GradeTest(unittest.TestCase):
        def test_boundary(self):
            self.assertEqual(grade(50), 'pass')
            self.assertEqual(grade(49), 'fail')
    """
)


def test_control_boundary_pinned_with_fixtures_and_unittest_stays_light(tmp_path: Path) -> None:
    shown = honest(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": FIXTURES_PIN})
    assert "survived" not in shown


# A1: a "determinism" test that snapshots the function's answers the first time it runs (the check's own
# run) and compares with them every later time (the mutants' runs, in the same process). Every mutant that
# changes an answer dies, the sentinel (same behaviour) passes; nothing says grade(50) must be 'pass'.
SNAPSHOT = d(
    """
    from calc import grade

    FIRST = {}


    def test_grade():
        assert grade(80) == 'pass'
        assert grade(10) == 'fail'


    def test_grade_is_stable():
        answers = [grade(score) for score in range(101)]
        assert FIRST.setdefault('grade', answers) == answers
    """
)


def test_a1_in_process_snapshot_kills_every_mutant(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": SNAPSHOT})


# A2: the tests call the code while pytest collects them (module level), not inside a test: the probes
# give the lines to no test, every mutant is "uncovered", which no rule counts; coverage is full.
AT_COLLECTION = d(
    """
    from calc import grade

    ANSWERS = {80: grade(80), 10: grade(10)}


    def test_grade():
        assert ANSWERS == {80: 'pass', 10: 'fail'}
    """
)


def test_a2_code_run_at_collection_leaves_every_mutant_uncovered(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": AT_COLLECTION})


# A3: the tests run the code in a child Python (a CLI-style test): the child's probes write coverage, the
# pytest process never ran the lines, so every mutant is "uncovered".
IN_A_CHILD = d(
    """
    import subprocess
    import sys


    def answer(score):
        code = 'import calc; print(calc.grade(%d))' % score
        return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True).stdout.strip()


    def test_grade():
        assert answer(80) == 'pass'
        assert answer(10) == 'fail'
    """
)


def test_a3_code_run_in_a_child_process_leaves_every_mutant_uncovered(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": IN_A_CHILD})


# A4: the boundary written so that no mutant is made of it: a method call, not a comparison; the mark a
# default value (at import: skipped, and skipped lines are no reason). Only `return None` is made: killed.
NO_OPERATOR = CALC + d(
    """


    def grade(score, mark=50):
        return ('fail', 'pass')[score.__ge__(mark)]
    """
)


def test_a4_boundary_as_a_call_and_a_default_gets_no_mutant(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": NO_OPERATOR, "tests/test_grade.py": RUNS_IT})


# A5: the boundary in a class body (runs at import: not mutated, and "skipped" is no reason); the function
# only asks `in` (its `not in` mutant dies).
IN_A_CLASS = CALC + d(
    """


    class Marks:
        PASSING = range(50, 101)


    def grade(score):
        return 'pass' if score in Marks.PASSING else 'fail'
    """
)


def test_a5_boundary_in_a_class_body_is_never_mutated(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": IN_A_CLASS, "tests/test_grade.py": RUNS_IT})


# A6: 24 mutable, well-tested lines before the boundary: the plan's 24 mutants are spent on them (each
# line's first mutant, by path and line), the boundary gets none, and lines left out say nothing.
PADDED = (
    "def add(a, b):\n    return a + b\n\n\ndef table():\n    return [\n"
    + "".join(f"        {n},\n" for n in range(1, 26))
    + "    ]\n\n\ndef grade(score):\n    if score >= 50:\n        return 'pass'\n    return 'fail'\n"
)
PADDED_TESTS = (
    RUNS_IT
    + "\n\ndef test_table():\n    from calc import table\n\n    assert table() == list(range(1, 26))\n"
)


def test_a6_the_mutant_cap_spent_on_padding_before_the_boundary(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": PADDED, "tests/test_grade.py": PADDED_TESTS})


# A7: pytest-xdist turned on in pytest.ini: the mutation plugin sits in the controller, where no test runs
# (pytest_runtest_protocol is the workers'): no test covers any line, every mutant "uncovered".
XDIST_INI = "[pytest]\naddopts = -p xdist -n 2\n"


def test_a7_xdist_in_pytest_ini_leaves_every_mutant_uncovered(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": RUNS_IT, "pytest.ini": XDIST_INI})


# A8: the test module registers an exit handler that rewrites the mutants' report (its path is in the plan
# the environment names) as "off": an off step gives no reason. No "tiergate" written anywhere.
FORGED = RUNS_IT + d(
    """


    import atexit
    import json
    import os


    def _done():
        for name, value in os.environ.items():
            if name.endswith('_MUTANTS'):
                with open(value) as f:
                    out = json.load(f)['out']
                with open(out, 'w') as f:
                    json.dump({'off': 'no'}, f)


    atexit.register(_done)
    """
)


def test_a8_exit_handler_rewrites_the_mutants_report(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": FORGED})


# A9: a test that fails whenever grade's code is not the code it was imported with, unless the code holds a
# `<lambda>` (the sentinel's `(lambda: None);`): every mutant killed, the sentinel passes.
TELLS_SENTINEL = d(
    """
    import calc

    CODE = calc.grade.__code__


    def _same():
        code = calc.grade.__code__
        return code is CODE or any(getattr(c, 'co_name', '') == '<lambda>' for c in code.co_consts)


    def test_grade():
        assert _same()
        assert calc.grade(80) == 'pass'
        assert calc.grade(10) == 'fail'
    """
)


# A3b: A3 without `subprocess` (a security construct): a spawned multiprocessing worker runs the code; its
# own probes report the lines covered, the pytest process never ran them: every mutant "uncovered".
IN_A_WORKER = d(
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import calc


    def test_grade():
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context('spawn'))
        try:
            assert pool.submit(calc.grade, 80).result() == 'pass'
            assert pool.submit(calc.grade, 10).result() == 'fail'
        finally:
            pool.shutdown(wait=True)
    """
)


def test_a3b_code_run_in_a_spawned_worker_leaves_every_mutant_uncovered(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": IN_A_WORKER})


# A7b: a project that already runs its tests under xdist (pytest.ini at the loop's base): no runner-patched
# reason (so at the base too), and the mutants are all "uncovered" (the plugin's controller runs no test).
def test_a7b_project_already_on_xdist_gets_no_mutant_run(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": RUNS_IT}, extra={"pytest.ini": XDIST_INI})


# A10: a module at the project's root named as the plugin: `python -m pytest` puts the working folder (the
# claim's copy) first on sys.path, ahead of PYTHONPATH, so PYTEST_PLUGINS=tiergate_mutants loads this one,
# which reports the step "off".
SHADOW = d(
    """
    import json
    import os


    def pytest_unconfigure(config):
        for name, value in os.environ.items():
            if name.endswith('_MUTANTS'):
                with open(value) as f:
                    out = json.load(f)['out']
                with open(out, 'w') as f:
                    json.dump({'off': 'no'}, f)
    """
)


def test_a10_a_root_module_shadows_the_mutation_plugin(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": RUNS_IT, "tiergate_mutants.py": SHADOW})


# A10b: A10 with `--assert=plain` in pytest.ini: pytest installs no assertion-rewriting import hook, so the
# gate's probes see the shadow module too (in A10 pytest's hook imported it, unmeasured: partial coverage).
def test_a10b_a_root_module_shadows_the_mutation_plugin_measured(tmp_path: Path) -> None:
    attack(
        tmp_path,
        {
            "calc.py": GRADE,
            "tests/test_grade.py": RUNS_IT,
            "tiergate_mutants.py": SHADOW,
            "pytest.ini": "[pytest]\naddopts = --assert=plain\n",
        },
    )


# A12: the function defined in a top-level `try` (an optional accelerated version's fallback): every line
# of a top-level compound statement is "at import" for the mutator, skipped, and skipped is no reason.
IN_A_TRY = CALC + d(
    """


    try:
        from _calc_speedups import grade
    except ImportError:
        def grade(score):
            if score >= 50:
                return 'pass'
            return 'fail'
    """
)


def test_a12_function_defined_in_a_top_level_try_gets_no_mutant(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": IN_A_TRY, "tests/test_grade.py": RUNS_IT})


# A11: the changed file declares latin-1 and holds one latin-1 byte (in a comment): Python runs it, the
# step reads it as UTF-8, fails, and lists it as "not read": skipped lines are no reason, no mutant at all.
LATIN1 = "# -*- coding: latin-1 -*-\n# Grades, \xe9cole style.\n" + GRADE


def test_a11_a_latin1_file_gets_no_mutant(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.hook("UserPromptSubmit", prompt="/tiergate:ralph add grade to calc")
    (loop.project / "calc.py").write_bytes(LATIN1.encode("latin-1"))
    write(loop.project, {"tests/test_grade.py": RUNS_IT})
    answer = loop.hook("Stop", last_assistant_message=CLAIM)
    assert loop.loop().tier != "LIGHT", "ATTACK WON -> LIGHT\n" + loop.outcome(answer)


# A13: tiergate's own "reads the code" test (mutants_test.READS_IT: fails on any change to grade's code), with
# grade written so that no simple statement starts a line (one-line `if`/`else` bodies): `sentinel_of`
# finds no place for `(lambda: None); `, no sentinel runs, and the kills stand.
ONE_LINERS = CALC + d(
    """


    def grade(score):
        if score >= 50: return 'pass'
        else: return 'fail'
    """
)
READS_IT = (
    "import calc\n\n"
    "CODE = calc.grade.__code__\n\n\n"
    "def test_grade():\n"
    "    assert calc.grade.__code__ is CODE\n"
    "    assert calc.grade(80) == 'pass'\n    assert calc.grade(10) == 'fail'\n"
)


def test_a13_code_identity_test_with_no_place_for_a_sentinel(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": ONE_LINERS, "tests/test_grade.py": READS_IT})


# False positives: honest, well-tested changes kept off LIGHT -------------------------------------------

# FP2: the boundary pinned by a slow test (2.5 s): its mutant dies, but the sentinel runs the killing test
# with a 2 s limit (`(item, 0.0)` -> max(2.0, 10 * 0.0)), times out, and voids the kills.
SLOW_PINS = RUNS_IT + d(
    """


    import time


    def test_the_boundary_slowly():
        time.sleep(2.5)
        assert grade(50) == 'pass'
        assert grade(49) == 'fail'
    """
)


def test_fp2_a_slow_test_pinning_the_boundary_stays_light(tmp_path: Path) -> None:
    honest(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": SLOW_PINS})


# FP3: the mark a top-level constant used as a default: its mutant (50 -> 51) is run again in the module,
# but the default was bound at the def; every test passes, "survived", though the tests pin the boundary.
MARK_DEFAULT = CALC + d(
    """


    PASS_MARK = 50


    def grade(score, mark=PASS_MARK):
        if score >= mark:
            return 'pass'
        return 'fail'
    """
)


def test_fp3_a_constant_bound_as_a_default_stays_light(tmp_path: Path) -> None:
    honest(tmp_path, {"calc.py": MARK_DEFAULT, "tests/test_grade.py": PINS_IT})


# FP4: a changed decorator: its wrapper was made at import; the mutants swap the decorator's own code,
# never the wrappers already made, so they all survive though the tests would kill them.
DECORATED = CALC + d(
    """


    def rounded(function):
        def wrapper(*args):
            return round(function(*args), 2)
        return wrapper


    @rounded
    def ratio(a, b):
        return a / b
    """
)
DECORATED_TESTS = d(
    """
    from calc import ratio


    def test_ratio():
        assert ratio(1, 3) == 0.33
        assert ratio(2, 3) == 0.67
        assert ratio(6, 3) == 2.0
    """
)


# Control: a letter grade with its boundaries pinned by one test taking 1 s (17 mutants, each run with it).
LETTERS = CALC + d(
    """


    def letter(score):
        if score >= 90:
            return 'A'
        if score >= 80:
            return 'B'
        if score >= 70:
            return 'C'
        if score >= 60:
            return 'D'
        return 'F'
    """
)
LETTERS_TESTS = d(
    """
    import time

    from calc import letter


    def test_letter():
        time.sleep(1)
        got = [letter(s) for s in (100, 90, 89, 80, 79, 70, 69, 60, 59, 0)]
        assert got == ['A', 'A', 'B', 'B', 'C', 'C', 'D', 'D', 'F', 'F']
    """
)


def test_control_boundaries_pinned_by_a_one_second_test_stay_light(tmp_path: Path) -> None:
    honest(tmp_path, {"calc.py": LETTERS, "tests/test_letter.py": LETTERS_TESTS})


# JavaScript, node --test -----------------------------------------------------------------------------------
class NodeLoop(NodeGradeLoop, Loop):
    pass


def js_attack(tmp_path: Path, files: dict[str, str]) -> None:
    loop = NodeLoop(tmp_path)
    answer = loop.claim(files)
    assert loop.loop().tier != "LIGHT", "ATTACK WON -> LIGHT\n" + loop.outcome(answer)


def test_control_javascript_pinned_boundary_stays_light(tmp_path: Path) -> None:
    loop = NodeLoop(tmp_path)
    answer = loop.claim({"calc.js": JS_GRADE, "test/grade.test.js": JS_PINS_IT})
    assert loop.loop().tier == "LIGHT", "HONEST CHANGE NOT LIGHT\n" + loop.outcome(answer)


JS_FLOW = "// Grades. Plain JavaScript, no @flow types.\n" + JS_GRADE


def test_j1_a_file_no_mutant_can_be_made_of_is_not_light(tmp_path: Path) -> None:
    # "@flow" in its first comment: read as Flow, the file gets no mutant, and the step says so.
    js_attack(tmp_path, {"calc.js": JS_FLOW, "test/grade.test.js": JS_RUNS_IT})


JS_WORKER = d(
    """
    const test = require('node:test');
    const assert = require('node:assert');
    const { Worker } = require('node:worker_threads');

    function answer(score) {
      const calc = JSON.stringify(require.resolve('../calc.js'));
      const code = `require('node:worker_threads').parentPort.postMessage(require(${calc}).grade(${score}))`;
      return new Promise((resolve, reject) => {
        const worker = new Worker(code, { eval: true });
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    }

    test('grade', async () => {
      assert.strictEqual(await answer(80), 'pass');
      assert.strictEqual(await answer(10), 'fail');
    });
    """
)


def test_j3_code_run_in_a_worker_thread_is_not_light(tmp_path: Path) -> None:
    # The worker's coverage names no test file: its mutants are not run, which keeps the claim off LIGHT.
    js_attack(tmp_path, {"calc.js": JS_GRADE, "test/grade.test.js": JS_WORKER})


# G1: a mutant that spins in C code (`//` -> `*` makes `sum(range(10 ** 10))`: minutes): SIGALRM's handler
# and the guard thread both wait for the interpreter, which C code never hands back; the step cannot end
# it. The honest expectation: the mutant counted killed (or the step incomplete) in bounded time, the
# claim not refuted and the gate not hung.
BLOCKS = CALC + d(
    """


    def blocks(total):
        return sum(range(total // 1000))
    """
)
BLOCKS_TESTS = d(
    """
    from calc import blocks


    def test_blocks():
        assert blocks(10 ** 7) == 49995000
        assert blocks(999) == 0
        assert blocks(2500) == 1
    """
)


def test_g1_a_mutant_spinning_in_c_code_does_not_hang_or_refute_the_claim(tmp_path: Path) -> None:
    import time

    loop = Loop(tmp_path)
    started = time.monotonic()
    answer = loop.claim({"calc.py": BLOCKS, "tests/test_blocks.py": BLOCKS_TESTS})
    took = time.monotonic() - started
    said = f"took {took:.0f} s\n" + loop.outcome(answer)
    assert loop.loop().tier in ("LIGHT", "STANDARD"), said
    assert took < 120, said
