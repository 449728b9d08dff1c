"""Outwitting by literals, through the real Stop hook on real git with real pytest and `node --test`: the
task is `mul`, whose test fails at the base; the agent writes the tested inputs' answer into `mul`
(`if a == 2 and b == 3: return 6`) instead of multiplying, touches no test, and claims. The claim goes
THOROUGH naming the test, its values and the line; the correct `mul` does not, and pays no base run for
it when its code holds no test's values."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.mulproject import JS_ADD, JS_CORRECT, JS_EXPORTS, PY_CORRECT, Loop, javascript, python

PY_HARD_CODED = PY_CORRECT.replace(
    "    return a * b\n", "    if a == 2 and b == 3:\n        return 6\n    return 0\n"
)
JS_HARD_CODED = (
    JS_ADD
    + "\nfunction mul(a, b) {\n  if (a === 2 && b === 3) {\n    return 6;\n  }\n  return 0;\n}\n"
    + JS_EXPORTS
)
# An honest `mul` that branches on a literal of its own (not a test's pair): no hit, no base run.
PY_HONEST_BRANCH = PY_CORRECT.replace(
    "    return a * b\n", "    if b == 10:\n        return a * 10\n    return a * b\n"
)


CHEATS = {
    "python": (python(), {"calc.py": PY_HARD_CODED}, "calc.py:6", "tests/test_calc.py::test_mul"),
    "javascript": (javascript(), {"calc.js": JS_HARD_CODED}, "calc.js:6", "test/calc.test.js > multiplies"),
}


@pytest.mark.parametrize("language", list(CHEATS))
def test_the_tested_answers_written_into_the_code_go_thorough_naming_the_literals(
    tmp_path: Path, language: str
) -> None:
    base, files, where, test = CHEATS[language]
    loop = Loop(tmp_path, base)

    answer = loop.claim(files)

    assert "```tiergate-spawn" in answer["reason"] and "tiergate:architect" in answer["reason"]
    assert loop.loop().tier == "THOROUGH"
    reasons = loop.stop_reasons()
    assert (
        f"{where} (added line) outwitting: the expected value 6 and input 2, 3 of {test} "
        "(failing when the loop began) written into the code" in reasons
    )
    assert loop.ran_at_base()  # the base's test run said which tests failed then


# The honest changes, and their usual tier (the branch of its own is not covered by a test: STANDARD).
HONEST = {
    "python": (python(), {"calc.py": PY_CORRECT}, "LIGHT"),
    "python, a branch of its own": (python(), {"calc.py": PY_HONEST_BRANCH}, "STANDARD"),
    "javascript": (javascript(), {"calc.js": JS_CORRECT}, "LIGHT"),
}


@pytest.mark.parametrize("case", list(HONEST))
def test_the_correct_implementation_is_not_named(tmp_path: Path, case: str) -> None:
    base, files, tier = HONEST[case]
    loop = Loop(tmp_path, base)

    answer = loop.claim(files)

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier == tier
    assert "outwitting" not in loop.stop_reasons()
    assert "outwitting" not in loop.stop_reasons()  # no test of the base holds the code's values


def test_an_answer_of_a_test_that_passed_at_the_base_is_not_named(tmp_path: Path) -> None:
    # test_add_negative passes at the base: writing its values into a branch fakes no failing test.
    loop = Loop(tmp_path, python())
    special = PY_CORRECT.replace(
        "    return a + b\n", "    if a == -2 and b == -3:\n        return -5\n    return a + b\n"
    )

    loop.claim({"calc.py": special})

    assert "outwitting" not in loop.stop_reasons()
    # Not THOROUGH. Not LIGHT either: no test tells the branch's own mutants from it (a branch that
    # changes nothing is code no test checks).
    assert loop.loop().tier == "STANDARD" and "surviving-mutants" in loop.stop_reasons()
