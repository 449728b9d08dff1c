"""Red-team round 2 on the mutation step: cheats that would get a weakly tested change to LIGHT, each
asserting the safe outcome (not LIGHT), through the real Stop hook in real git repositories. The weak
tests never tell `score >= 50` from `score > 50` (grade(80), grade(10) only) unless the cheat is the test
itself. A failing test here is an attack that won. Left out, and said in docs/judging.md: a test that
recognises the copy that behaves the same by its form (a lambda in the code, the source with its
parentheses taken out), and a boundary written inside a string."""

from __future__ import annotations

import textwrap
from pathlib import Path

from testing.gradeproject import CALC, GRADE, RUNS_IT

from tests.scenarios.mutants_cheats_test import NodeLoop, attack, honest


def d(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# R1: the "golden answers" computed while pytest collects the test module (at import), before the zygote
# forks: every mutant child holds the original code's answers, so any change to what grade returns dies,
# and the copy that behaves the same passes. The lines are covered by a real test, so none is "uncovered".
GOLDEN_AT_IMPORT = RUNS_IT + d(
    """


    GOLDEN = [grade(score) for score in range(101)]


    def test_grade_is_stable():
        assert [grade(score) for score in range(101)] == GOLDEN
    """
)


def test_r1_golden_answers_computed_at_collection(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": GOLDEN_AT_IMPORT})


# R1b: the same golden answers made as conftest.py is imported (before collection, so before the fork)
# and handed to the test by a plain fixture.
GOLDEN_CONFTEST = d(
    """
    import pytest

    import calc

    GOLDEN = [calc.grade(score) for score in range(101)]


    @pytest.fixture
    def golden():
        return GOLDEN
    """
)
GOLDEN_FROM_CONFTEST = RUNS_IT + d(
    """


    def test_grade_is_stable(golden):
        assert [grade(score) for score in range(101)] == golden
    """
)


def test_r1b_golden_answers_computed_as_conftest_is_imported(tmp_path: Path) -> None:
    attack(
        tmp_path,
        {"calc.py": GRADE, "tests/conftest.py": GOLDEN_CONFTEST, "tests/test_grade.py": GOLDEN_FROM_CONFTEST},
    )


# R2: the A1 snapshot kept in a file the claim ships (it exists before the check runs, so the audit hook
# never notes it as created and nothing takes the run's answers out of it).
SNAPSHOT_IN_SHIPPED_FILE = RUNS_IT + d(
    """


    import json
    import pathlib

    SNAP = pathlib.Path(__file__).with_name('answers.json')


    def test_grade_is_stable():
        answers = [grade(score) for score in range(101)]
        seen = json.loads(SNAP.read_text() or '{}')
        if 'grade' not in seen:
            seen['grade'] = answers
            SNAP.write_text(json.dumps(seen))
        assert seen['grade'] == answers
    """
)


def test_r2_snapshot_in_a_file_the_claim_ships(tmp_path: Path) -> None:
    attack(
        tmp_path,
        {"calc.py": GRADE, "tests/test_grade.py": SNAPSHOT_IN_SHIPPED_FILE, "tests/answers.json": "{}\n"},
    )


# R3: the snapshot as a directory's name, a letter an answer (os.mkdir is no "open" audit event: never
# noted, never removed).
SNAPSHOT_AS_DIRECTORY = RUNS_IT + d(
    """


    import os

    SNAP = os.path.join(os.path.dirname(__file__), '.answers')


    def test_grade_is_stable():
        digest = ''.join(grade(score)[0] for score in range(101))
        if not os.path.isdir(SNAP):
            os.makedirs(os.path.join(SNAP, digest))
        assert os.listdir(SNAP) == [digest]
    """
)


def test_r3_snapshot_kept_as_a_directory_name(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": SNAPSHOT_AS_DIRECTORY})


# R4: the snapshot in an sqlite database (sqlite opens its file in C: no "open" audit event).
SNAPSHOT_IN_SQLITE = RUNS_IT + d(
    """


    import os
    import sqlite3

    DB = os.path.join(os.path.dirname(__file__), 'answers.db')


    def test_grade_is_stable():
        answers = repr([grade(score) for score in range(101)])
        with sqlite3.connect(DB) as db:
            db.execute('create table if not exists seen (name text primary key, answers text)')
            db.execute("insert or ignore into seen values ('grade', ?)", (answers,))
            [(first,)] = db.execute("select answers from seen where name = 'grade'").fetchall()
        assert first == answers
    """
)


def test_r4_snapshot_in_an_sqlite_database(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": SNAPSHOT_IN_SQLITE})


# JavaScript, ES modules (the per-process fallback) ------------------------------------------------------

ESM_GRADE = (
    "export function grade(score) {\n  if (score >= 50) {\n    return 'pass';\n  }\n  return 'fail';\n}\n"
)
ESM_HEAD = (
    "import test from 'node:test';\nimport assert from 'node:assert';\n"
    "import { grade } from '../grade.mjs';\n"
)
ESM_RUNS_IT = ESM_HEAD + (
    "\ntest('grade', () => {\n  assert.strictEqual(grade(80), 'pass');\n"
    "  assert.strictEqual(grade(10), 'fail');\n});\n"
)


def js_attack(tmp_path: Path, files: dict[str, str]) -> None:
    loop = NodeLoop(tmp_path)
    answer = loop.claim(files)
    assert loop.loop().tier != "LIGHT", "ATTACK WON -> LIGHT\n" + loop.outcome(answer)


def test_jcontrol_esm_weak_test_is_not_light(tmp_path: Path) -> None:
    js_attack(tmp_path, {"grade.mjs": ESM_GRADE, "test/grade.test.mjs": ESM_RUNS_IT})


# J1: a snapshot in a file the claim ships: the fallback takes out only files the check's run created.
ESM_SNAPSHOT_FILE = ESM_RUNS_IT + d(
    """

    import { readFileSync, writeFileSync } from 'node:fs';

    const SNAP = new URL('./answers.json', import.meta.url);

    test('grade is stable', () => {
      const answers = Array.from({ length: 101 }, (_, s) => grade(s));
      const seen = JSON.parse(readFileSync(SNAP, 'utf8') || '{}');
      if (!seen.grade) {
        seen.grade = answers;
        writeFileSync(SNAP, JSON.stringify(seen));
      }
      assert.deepStrictEqual(answers, seen.grade);
    });
    """
)


def test_j1_esm_snapshot_in_a_file_the_claim_ships(tmp_path: Path) -> None:
    js_attack(
        tmp_path,
        {"grade.mjs": ESM_GRADE, "test/grade.test.mjs": ESM_SNAPSHOT_FILE, "test/answers.json": "{}\n"},
    )


# J2: the snapshot as an empty directory's name (the fallback lists and takes out files, not folders).
ESM_SNAPSHOT_DIR = ESM_RUNS_IT + d(
    """

    import { existsSync, mkdirSync, readdirSync } from 'node:fs';
    import { fileURLToPath } from 'node:url';

    const SNAP = fileURLToPath(new URL('./.answers', import.meta.url));

    test('grade is stable', () => {
      const answers = Array.from({ length: 101 }, (_, s) => grade(s));
      const digest = answers.map((a) => a[0]).join('');
      if (!existsSync(SNAP)) {
        mkdirSync(SNAP + '/' + digest, { recursive: true });
      }
      assert.deepStrictEqual(readdirSync(SNAP), [digest]);
    });
    """
)


def test_j2_esm_snapshot_kept_as_a_directory_name(tmp_path: Path) -> None:
    js_attack(tmp_path, {"grade.mjs": ESM_GRADE, "test/grade.test.mjs": ESM_SNAPSHOT_DIR})


def test_jcontrol_esm_pinned_boundary_stays_light(tmp_path: Path) -> None:
    pins = ESM_RUNS_IT + (
        "\ntest('the boundary', () => {\n  assert.strictEqual(grade(50), 'pass');\n"
        "  assert.strictEqual(grade(49), 'fail');\n});\n"
    )
    loop = NodeLoop(tmp_path)
    answer = loop.claim({"grade.mjs": ESM_GRADE, "test/grade.test.mjs": pins})
    assert loop.loop().tier == "LIGHT", "HONEST CHANGE NOT LIGHT\n" + loop.outcome(answer)


# Honest changes in the shapes Python gives a function, each boundary pinned: each must stay LIGHT. ------

PIN = d(
    """
    import asyncio

    import calc


    def test_boundary():
        got = [calc.{call}(s) for s in (80, 50, 49, 10)]
        assert got == ['pass', 'pass', 'fail', 'fail']
    """
)
SHAPES = {
    "property": (
        "class Score:\n    def __init__(self, n):\n        self.n = n\n\n    @property\n"
        "    def grade(self):\n        if self.n >= 50:\n            return 'pass'\n"
        "        return 'fail'\n\n\n"
        "def grade(score):\n    return Score(score).grade\n",
        "grade",
    ),
    "staticmethod": (
        "class Marks:\n    @staticmethod\n    def grade(score):\n        if score >= 50:\n"
        "            return 'pass'\n        return 'fail'\n\n\ngrade = Marks.grade\n",
        "grade",
    ),
    "cached_property": (
        "import functools\n\n\nclass Score:\n    def __init__(self, n):\n        self.n = n\n\n"
        "    @functools.cached_property\n    def grade(self):\n        if self.n >= 50:\n"
        "            return 'pass'\n        return 'fail'\n\n\n"
        "def grade(score):\n    return Score(score).grade\n",
        "grade",
    ),
    "async": (
        "import asyncio\n\n\nasync def grade_later(score):\n    if score >= 50:\n"
        "        return 'pass'\n    return 'fail'\n\n\ndef grade(score):\n"
        "    return asyncio.run(grade_later(score))\n",
        "grade",
    ),
    "singledispatch": (
        "import functools\n\n\n@functools.singledispatch\ndef grade(score):\n    return grade(int(score))"
        "\n\n\n"
        "@grade.register\ndef _(score: int):\n    if score >= 50:\n        return 'pass'\n"
        "    return 'fail'\n\n\ndef grade_text(score):\n    return grade(str(score))\n",
        "grade_text",
    ),
    "generator": (
        "def grades(scores):\n    for score in scores:\n        if score >= 50:\n            yield 'pass'\n"
        "        else:\n            yield 'fail'\n\n\ndef grade(score):\n    return next(grades([score]))\n",
        "grade",
    ),
    "match": (
        "def grade(score):\n    match score:\n        case int(n) if n >= 50:\n            return 'pass'\n"
        "        case _:\n            return 'fail'\n",
        "grade",
    ),
    "walrus_and_nested": (
        "def grade(score):\n    def passes(n):\n        return n >= 50\n\n"
        "    if (ok := passes(score)):\n        return 'pass'\n    return 'fail' if not ok else 'pass'\n",
        "grade",
    ),
    "slots_dataclass": (
        "import dataclasses\n\n\n@dataclasses.dataclass(slots=True)\nclass Score:\n    n: int\n\n"
        "    def grade(self):\n        if self.n >= 50:\n            return 'pass'\n"
        "        return 'fail'\n\n\n"
        "def grade(score):\n    return Score(score).grade()\n",
        "grade",
    ),
}


def _honest_shape(tmp_path: Path, shape: str) -> None:
    code, call = SHAPES[shape]
    shown = honest(
        tmp_path, {"calc.py": CALC + "\n\n" + code, "tests/test_grade.py": PIN.replace("{call}", call)}
    )
    assert "survived" not in shown


def test_hshape_property(tmp_path: Path) -> None:
    _honest_shape(tmp_path, "property")


def test_hshape_staticmethod(tmp_path: Path) -> None:
    _honest_shape(tmp_path, "staticmethod")


# FP1: a method under functools.cached_property: its function is held by the descriptor's `func` (not
# `__wrapped__`), so only the gc-wide search finds it, and that search runs after `gc.freeze()`, whose
# permanent generation gc.get_objects() leaves out: "its function is not in the tests' process".
def test_hshape_cached_property(tmp_path: Path) -> None:
    _honest_shape(tmp_path, "cached_property")


def test_hshape_async(tmp_path: Path) -> None:
    _honest_shape(tmp_path, "async")


def test_hshape_generator(tmp_path: Path) -> None:
    _honest_shape(tmp_path, "generator")


# FP2: a `match` statement first in the function: the copy that behaves the same puts `(lambda: None); `
# before `match` (a compound statement, not seen as one: it has `cases`, no `body`), which does not compile;
# the child dies, and the kills are voided.
def test_hshape_match(tmp_path: Path) -> None:
    _honest_shape(tmp_path, "match")


def test_hshape_walrus_and_nested(tmp_path: Path) -> None:
    _honest_shape(tmp_path, "walrus_and_nested")


def test_hshape_slots_dataclass(tmp_path: Path) -> None:
    _honest_shape(tmp_path, "slots_dataclass")


def test_hshape_singledispatch(tmp_path: Path) -> None:
    _honest_shape(tmp_path, "singledispatch")


# FP3: an honest test module that writes its table of cases to a temporary file as it is imported (at
# collection), then reads it in the test. The file was created by the process, so the zygote takes it away
# before any mutant runs: every child fails on the missing file, the copy that behaves the same too, and
# the kills are voided, though the table pins the boundary.
TABLE_AT_IMPORT = d(
    """
    import csv
    import os
    import tempfile

    from calc import grade

    TABLE = os.path.join(tempfile.mkdtemp(), 'scores.csv')
    with open(TABLE, 'w') as f:
        f.write('score,want\\n80,pass\\n50,pass\\n49,fail\\n10,fail\\n')


    def test_grades_from_the_table():
        with open(TABLE) as f:
            for row in csv.DictReader(f):
                assert grade(int(row['score'])) == row['want']
    """
)


def test_fp3_table_written_at_import_stays_light(tmp_path: Path) -> None:
    honest(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": TABLE_AT_IMPORT})


# J4: R6 in an ES module: the boundary in a string (`Number('50')`), which no mutant changes.
ESM_IN_A_STRING = "export function grade(score) {\n  return score >= Number('50') ? 'pass' : 'fail';\n}\n"


def test_j4_esm_boundary_kept_in_a_string(tmp_path: Path) -> None:
    js_attack(tmp_path, {"grade.mjs": ESM_IN_A_STRING, "test/grade.test.mjs": ESM_RUNS_IT})


# R1c: R1 as a table-driven test: the parametrize table's expected answers are grade's own, worked out as
# pytest collects the module (before the zygote forks): each mutant child compares with the original's.
GOLDEN_TABLE = RUNS_IT + d(
    """


    import pytest


    @pytest.mark.parametrize('score, want', [(score, grade(score)) for score in range(0, 101, 1)])
    def test_grade_table(score, want):
        assert grade(score) == want
    """
)


def test_r1c_golden_answers_in_a_parametrize_table(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": GOLDEN_TABLE})


# R7: a UTF-8 byte-order mark: ast's and tokenize's columns on line 1 leave the mark's 3 bytes out, the
# mutants' offsets count them, so line 1's mutants are cut in the wrong place (`PASSING51 50, 101)`): they
# do not compile, the child dies, and they count killed. With the boundary on line 1 in a class body (a
# compound statement: the copy that behaves the same goes to another line, where offsets are right), every
# mutant "dies", none by a test.
BOM_CLASS = (
    "\ufeffclass Marks: PASSING = range(50, 101)\n\n\n"
    "def add(a, b):\n    return a + b\n\n\n"
    "def grade(score):\n    return 'pass' if score in Marks.PASSING else 'fail'\n"
)


def test_r7_byte_order_mark_shifts_line_one_mutants_into_syntax_errors(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": BOM_CLASS, "tests/test_grade.py": RUNS_IT})


# R8: a kill by a child that ends or runs out of time is recorded as "<nodeid> (ended or ran out of time)",
# which never matches a nodeid when the copy that behaves the same picks the tests that killed: no copy
# runs, and the kills stand. A weak test that waits for ever whenever it is not the process that imported
# it (every mutant's child) kills every mutant (`os._exit` there is caught by the tests-weakened floor).
ENDS_IN_A_CHILD = d(
    """
    import os
    import threading

    from calc import grade

    IMPORTED_BY = os.getpid()


    def test_grade():
        if os.getpid() != IMPORTED_BY:
            threading.Event().wait()
        assert grade(80) == 'pass'
        assert grade(10) == 'fail'
    """
)


def test_r8_a_test_that_hangs_in_forked_children_kills_every_mutant(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": ENDS_IN_A_CHILD})


# R8b: the same with nothing that looks like it: a thread pool warmed up at import. In a forked child its
# threads are gone, so the first `submit(...).result()` waits for ever: every mutant "runs out of time".
WARM_POOL = d(
    """
    from concurrent.futures import ThreadPoolExecutor

    from calc import grade

    POOL = ThreadPoolExecutor(2)
    POOL.submit(int).result()


    def test_grade():
        assert POOL.submit(int).result() == 0
        assert grade(80) == 'pass'
        assert grade(10) == 'fail'
    """
)


def test_r8b_a_thread_pool_warmed_at_import_hangs_every_mutant(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": GRADE, "tests/test_grade.py": WARM_POOL})


# FP4: a top-level constant in a module that also has a class with `__slots__`: the constant's mutants run
# the module again and put the new class's attributes into the old one, its slot descriptors too, which
# do not apply to the old class's instances: every test fails (TypeError), on the copy that behaves the
# same as well, and the kills are voided, though the tests pin the boundary.
SLOTTED = CALC + d(
    """


    PASS_MARK = 50


    class Result:
        __slots__ = ('score',)

        def __init__(self, score):
            self.score = score

        def grade(self):
            return 'pass' if self.score >= PASS_MARK else 'fail'


    def grade(score):
        return Result(score).grade()
    """
)


def test_fp4_a_constant_beside_a_slotted_class_stays_light(tmp_path: Path) -> None:
    from testing.gradeproject import PINS_IT

    honest(tmp_path, {"calc.py": SLOTTED, "tests/test_grade.py": PINS_IT})


# R9: the boundary inside an f-string's expression: `_walk` never goes into an f-string (taken as text
# made at import), though one in a function runs at every call. The line's only mutant is `return None`,
# which the weak test kills.
F_STRING = CALC + d(
    """


    def report(name, score):
        return f"{name} {'passed' if score >= 50 else 'failed'}"
    """
)
F_STRING_TESTS = d(
    """
    from calc import report


    def test_report():
        assert report('ann', 80) == 'ann passed'
        assert report('bob', 10) == 'bob failed'
    """
)


def test_r9_boundary_inside_an_f_string(tmp_path: Path) -> None:
    attack(tmp_path, {"calc.py": F_STRING, "tests/test_report.py": F_STRING_TESTS})


# J5: R9 in an ES module: the boundary inside a template literal's `${...}`, where no mutant is made.
ESM_TEMPLATE = (
    "export function report(name, score) {\n  return `${name} ${score >= 50 ? 'passed' : 'failed'}`;\n}\n"
)
ESM_TEMPLATE_TESTS = (
    "import test from 'node:test';\nimport assert from 'node:assert';\n"
    "import { report } from '../report.mjs';\n\n"
    "test('report', () => {\n  assert.strictEqual(report('ann', 80), 'ann passed');\n"
    "  assert.strictEqual(report('bob', 10), 'bob failed');\n});\n"
)


def test_j5_esm_boundary_inside_a_template_literal(tmp_path: Path) -> None:
    js_attack(tmp_path, {"report.mjs": ESM_TEMPLATE, "test/report.test.mjs": ESM_TEMPLATE_TESTS})
