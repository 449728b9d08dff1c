"""Pre-existing means failing the same way, through the real hook entry point in a real git repository.

A ralph loop "implement the todo features in app.py" begins with every test failing: the suite's
fixture calls `reset()`, which raises NotImplementedError at the base. Each of the seed's four defective
implementations leaves tests failing that failed at the base too, but with an AssertionError now where
there was a NotImplementedError at setup then: the gate alone refutes the claim, naming the test and its
new failure, and no verifier is spawned. The correct implementation goes on to verification, and a
claim that leaves the failures exactly as at the base is still excused."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from testing import todoapp
from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession

SESSION = "33333333-2222-3333-4444-555555555555"
CLAIM = "All the todo features are implemented.\n\n<promise>DONE</promise>"
SPAWN = "```tiergate-spawn"
AT_BASE = "at the baseline: NotImplementedError: reset is not implemented yet (error at setup)"
# What each defect's first failing test fails with now (pytest's assertion line, uncut).
NOW = {
    "wrong-field-filter": "AssertionError: assert [] == ['milk']",
    "create-stores-nothing": "AssertionError: assert [] == [{'id': 1, 't...done': False}]",
    "validator-accepts-all": "Failed: DID NOT RAISE ValueError",
    "tag-filter-no-guard": (
        "AssertionError: assert [{'id': 2, 't...done': False}] == [{'id': 1, 't...done': False}]"
    ),
}


class TodoLoop(HookSession):
    def __init__(self, root: Path) -> None:
        super().__init__(root, init_repo(root / "project", todoapp.project_files()), SESSION)
        answer = self.hook("UserPromptSubmit", prompt=f"/tiergate:ralph {todoapp.TASK} --max-iterations 8")
        assert "loop started" in answer["systemMessage"]

    def claim(self, app: str) -> dict[str, Any]:
        write(self.project, {"app.py": app})
        answer = self.hook("Stop", last_assistant_message=CLAIM)
        assert answer["decision"] == "block"
        return answer


@pytest.mark.parametrize("defect", todoapp.DEFECTS)
def test_a_defect_whose_tests_failed_otherwise_at_the_base_is_refuted_by_the_gate_alone(
    tmp_path: Path, defect: todoapp.Defect
) -> None:
    loop = TodoLoop(tmp_path)

    reason = loop.claim(todoapp.implementation(defect))["reason"]

    assert SPAWN not in reason and "no verifier was spawned" in reason
    assert loop.loop().verifications == 0 and loop.loop().attempts[-1].by == "gate"
    first, *others = todoapp.FAILS[defect]
    # The new failure comes first in the check's block, with what it is now and what it was at the base.
    block = reason[reason.index("FAILED: tests") :]
    expected = f"  - tests/test_app.py::{first}: {NOW[defect]} now; {AT_BASE}"
    assert block.splitlines()[2] == expected, block
    for test in others:
        assert f"  - tests/test_app.py::{test}: " in block
    count = len(todoapp.FAILS[defect])
    verb = "fails" if count == 1 else "fail"
    noun = "failing test" if count == 1 else "failing tests"
    assert f"({count} {noun} that {verb} otherwise than at the baseline)" in block
    passing = [test for test in todoapp.TESTS if test not in todoapp.FAILS[defect]]
    assert passing and not any(f"::{test}" in block for test in passing)
    [record] = [r for r in loop.decisions() if r["decision"] == "gate-refuted"]
    assert record["gate"]["refuted"] is True

    # The correct implementation passes the checks and goes on to a verifier.
    fixed = loop.claim(todoapp.implementation())["reason"]
    assert SPAWN in fixed
    assert loop.loop().phase == "verifying"


def test_failures_left_exactly_as_at_the_base_are_still_excused(tmp_path: Path) -> None:
    loop = TodoLoop(tmp_path)
    # A change that leaves reset() unimplemented: every test still errors at setup, the same way.
    untouched = todoapp.BASE_APP.replace('"""Todos kept in memory."""', '"""Todos, kept in memory."""')

    reason = loop.claim(untouched)["reason"]

    assert SPAWN in reason
    [record] = [r for r in loop.decisions() if r["decision"] == "spawn"]
    [check] = record["gate"]["checks"]
    assert check["standing"] == "pre-existing" and len(check["failed_tests"]) == len(todoapp.TESTS)
    assert check["why"].startswith(
        "failed at the baseline too (the same failing tests or fewer, failing the same way"
    )


def test_a_new_assertion_comes_before_the_old_setup_errors_which_are_trimmed(tmp_path: Path) -> None:
    loop = TodoLoop(tmp_path)
    # reset() still unimplemented (every test still errors at setup, as at the base), and one new test
    # in a file of its own, without the fixture, failing with an assertion.
    write(loop.project, {"tests/test_new.py": "def test_sum():\n    assert sum([1, 2]) == 4\n"})

    reason = loop.claim(todoapp.BASE_APP)["reason"]

    block = reason[reason.index("FAILED: tests") :].splitlines()
    assert "  new failing tests: tests/test_new.py::test_sum" in block
    start = block.index("  output of the new failure:")
    rest = block.index("  the rest of the output (failures the baseline had too, totals):")
    new_output = block[start + 1 : rest]
    assert new_output[0].startswith("  | ") and "test_sum" in new_output[0]
    assert "  | E       assert 3 == 4" in new_output
    assert not any("NotImplementedError" in line or "ERROR" in line for line in new_output)
    # The old setup errors follow, trimmed, and the totals are kept.
    old_output = list(itertools.takewhile(lambda line: line.startswith("  | "), block[rest + 1 :]))
    assert any("ERROR at setup of test_create_returns_the_item" in line for line in old_output)
    assert len(old_output) <= 12 and any("more lines]" in line for line in old_output)
    assert any(line.startswith("  | 1 failed, 6 errors") for line in old_output)
