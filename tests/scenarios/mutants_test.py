"""Mutants of the changed lines, through the real Stop hook in real git repositories running real pytest:
a boundary that no test tells from its neighbour keeps a small, fully covered change off LIGHT and is named
in the reasons, the verifier's packet and `tiergate tier --explain`; the same change with a test that pins
the boundary stays LIGHT; tests that fail on any change to the code (not on what it does) void the kills;
and `[mutation] enabled = false` turns the step off."""

from __future__ import annotations

import json
from pathlib import Path

from testing.gradeproject import (
    GRADE,
    JS_GRADE,
    JS_PINS_IT,
    JS_RUNS_IT,
    PINS_IT,
    RUNS_IT,
    GradeLoop,
    NodeGradeLoop,
)

# Fails whenever calc.grade is not the code it was written with: a check of the code, not of what it does.
READS_IT = (
    "import calc\n\n"
    "CODE = calc.grade.__code__\n\n\n"
    "def test_grade():\n"
    "    assert calc.grade.__code__ is CODE\n"
    "    assert calc.grade(80) == 'pass'\n    assert calc.grade(10) == 'fail'\n"
)


def test_a_boundary_no_test_tells_apart_keeps_a_covered_change_off_light_and_is_named(tmp_path: Path) -> None:
    loop = GradeLoop(tmp_path)

    answer = loop.claim({"calc.py": GRADE, "tests/test_grade.py": RUNS_IT})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier == "STANDARD"
    reasons = loop.reasons()
    # Covered all the same: the mutant, not the coverage, keeps it off LIGHT.
    assert "covers 4/4 changed executable lines" in reasons
    said = "surviving-mutants: every test that runs its line passes with 1 mutant in (line 6 of calc.py: "
    assert said + "`>=` -> `>`)" in reasons
    packet = loop.packet()
    assert "MUTANTS: " in packet and "- line 6 of calc.py: `>=` -> `>` leaves every test passing" in packet
    shown = loop.run("tier", "--explain").stdout
    assert shown.startswith("Tier: STANDARD")
    assert "Mutants: " in shown and "survived: line 6 of calc.py: `>=` -> `>`" in shown
    assert json.loads(loop.run("tier", "--json").stdout)["mutation"]["survivors"] == [
        "line 6 of calc.py: `>=` -> `>`"
    ]


def test_the_same_change_with_a_test_that_pins_the_boundary_stays_light(tmp_path: Path) -> None:
    loop = GradeLoop(tmp_path)

    loop.claim({"calc.py": GRADE, "tests/test_grade.py": PINS_IT})

    assert loop.loop().tier == "LIGHT"
    shown = loop.run("tier", "--explain").stdout
    assert "survived" not in shown
    [score] = [line for line in shown.splitlines() if line.startswith("Mutants: ")]
    killed, tried = score.removeprefix("Mutants: ").split(" mutants")[0].split(" of ")
    assert killed == tried and int(tried) >= 4


def test_tests_that_fail_on_any_change_to_the_code_say_nothing_by_their_kills(tmp_path: Path) -> None:
    loop = GradeLoop(tmp_path)

    loop.claim({"calc.py": GRADE, "tests/test_grade.py": READS_IT})

    # Every mutant is "killed", the boundary's too: by a test that would fail on code that behaves the same.
    assert loop.loop().tier == "STANDARD"
    reasons = loop.reasons()
    assert "surviving-mutants" not in reasons
    assert (
        "mutants-void: tests/test_grade.py::test_grade failed on a copy of grade that behaves the same"
        in (reasons)
    )


def test_the_step_turned_off_leaves_the_tier_to_coverage(tmp_path: Path) -> None:
    loop = GradeLoop(tmp_path, "[mutation]\nenabled = false\n")

    loop.claim({"calc.py": GRADE, "tests/test_grade.py": RUNS_IT})

    assert loop.loop().tier == "LIGHT"
    assert "Mutants: none run" in loop.run("tier", "--explain").stdout


# JavaScript, run by node --test ----------------------------------------------------------------------------
def test_javascript_a_boundary_no_test_tells_apart_is_named_and_keeps_it_off_light(tmp_path: Path) -> None:
    loop = NodeGradeLoop(tmp_path)

    loop.claim({"calc.js": JS_GRADE, "test/grade.test.js": JS_RUNS_IT})

    assert loop.loop().tier == "STANDARD"
    reasons = loop.reasons()
    assert "Node V8 coverage" in reasons and "coverage partial" not in reasons
    assert "surviving-mutants: every test that runs its line passes with" in reasons
    # Either boundary mutant names the question (`>` and `51` both survive): once one did, the rest of
    # the line's may not be needed.
    boundary = ("line 6 of calc.js: `>=` -> `>`", "line 6 of calc.js: `50` -> `51`")
    assert any(named in reasons for named in boundary)
    assert any(f"- {named} leaves every test passing" in loop.packet() for named in boundary)


def test_javascript_the_same_change_pinned_by_a_test_stays_light(tmp_path: Path) -> None:
    loop = NodeGradeLoop(tmp_path)

    loop.claim({"calc.js": JS_GRADE, "test/grade.test.js": JS_PINS_IT})

    assert loop.loop().tier == "LIGHT"
    shown = loop.run("tier", "--explain").stdout
    assert "Mutants: " in shown and "survived" not in shown
