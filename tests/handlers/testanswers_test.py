"""Outwitting by literals at a claim, the adapter (handlers/testanswers.py): a runner's test id as (file,
test), the tests that failed at the base by the kept baseline, and on real git with real pytest the tests'
answers written into the code named from the base's test files as committed, only for tests failing when
the loop began, with no base run for a change whose code holds no test's values."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.gitrepo import git, init_repo, write
from testing.loopproject import a_project
from testing.mulproject import PY_CORRECT, PY_TESTS, python

from tiergate.config.settings import load_config
from tiergate.gate import cache
from tiergate.gate.checks import Check, CheckResult
from tiergate.gate.pertest.record import TestOutcome, TestRun
from tiergate.gate.standing import BaselineEntry
from tiergate.gate.timeouts import FLOOR
from tiergate.handlers.testanswers import (
    FAILING_NOTE,
    UNKNOWN_NOTE,
    failing_tests,
    hard_coded_answers,
    runner_key,
)
from tiergate.project import Project
from tiergate.tier.assess import measure_for

HARD_CODED = PY_CORRECT.replace(
    "    return a * b\n", "    if a == 2 and b == 3:\n        return 6\n    return 0\n"
)


@pytest.mark.parametrize(
    ("test", "key"),
    [
        ("tests/test_calc.py::test_mul", ("tests/test_calc.py", "test_mul")),
        ("tests/t.py::MulTest::test_x[2-3]", ("tests/t.py", "test_x")),
        ("test/calc.test.js > mul > multiplies", ("test/calc.test.js", "multiplies")),
        ("test/calc.test.js", ("test/calc.test.js", "test/calc.test.js")),
    ],
)
def test_a_runners_test_id_is_its_file_and_test_name(test: str, key: tuple[str, str]) -> None:
    assert runner_key(test) == key


def _check(name: str) -> Check:
    return Check(name, f"pytest {name}", "tests", "configured in .tiergate.toml")


def _entry(check: Check, outcomes: tuple[tuple[str, TestOutcome], ...] | None) -> BaselineEntry:
    tests = None if outcomes is None else TestRun("pytest report", "pytest", outcomes, complete=True)
    result = CheckResult(check.name, check.command, "tests", 2, "failed", 1, 0.5, "", 0, "exit 1", tests)
    return BaselineEntry(result, "worktree")


def test_the_tests_failing_at_the_base_are_those_every_test_check_failed_or_errored() -> None:
    unit, more, untold = _check("unit"), _check("more"), _check("untold")
    entries = {
        unit.key: _entry(unit, (("t/a.py::test_a", "failed"), ("t/a.py::test_b", "passed"))),
        more.key: _entry(more, (("t/b.py::C::test_c[1]", "error"), ("t/b.py::test_d", "skipped"))),
        untold.key: _entry(untold, None),  # no test-by-test record: nothing to name
    }

    assert failing_tests(entries, [unit, more, untold]) == frozenset(
        {("t/a.py", "test_a"), ("t/b.py", "test_c")}
    )
    # A test check with no baseline result yet: what failed cannot be told.
    assert failing_tests({unit.key: entries[unit.key]}, [unit, more]) is None
    assert failing_tests({}, []) == frozenset()


def _claim(project: Project, change: dict[str, str]) -> tuple[str, ...]:
    """The hits of `change`, written into the project's workspace, against HEAD."""
    write(project.root, change)
    config = load_config(project.root)
    return tuple(
        h.describe()
        for h in hard_coded_answers(project, config, "HEAD", measure_for(project.root, "HEAD", config))
    )


def _ran_at_base(project: Project) -> bool:
    head = git(project.root, "rev-parse", "HEAD").strip()
    return bool(cache.load_baseline(project, head))


@pytest.mark.parametrize("inside", ["", "app/"])
def test_a_failing_tests_answer_in_the_code_is_named_from_the_base_tests_as_committed(
    tmp_path: Path, inside: str
) -> None:
    root = init_repo(tmp_path / "repo", {f"{inside}{k}": v for k, v in python().items()})
    project = a_project(root / inside)
    # The agent also rewrites the test's values in the workspace: the base's, from git, are the ones read.
    edited = PY_TESTS.replace("calc.mul(2, 3) == 6", "calc.mul(4, 5) == 20")

    [hit] = _claim(project, {"calc.py": HARD_CODED, "tests/test_calc.py": edited})

    assert hit == (
        f"{inside}calc.py:6 (added line) outwitting: the expected value 6 and input 2, 3 of "
        f'tests/test_calc.py::test_mul ({FAILING_NOTE}) written into the code: "if a == 2 and b == 3:"'
    )
    assert _ran_at_base(project)  # no baseline kept: the base's tests ran once to say which failed


def test_with_no_time_left_for_the_base_run_every_test_whose_answer_is_in_the_code_is_named(
    tmp_path: Path,
) -> None:
    # The correct mul at the base: its test passed then, so with time the hit would not be named.
    project = a_project(init_repo(tmp_path / "repo", {**python(), "calc.py": PY_CORRECT}))
    write(project.root, {"calc.py": HARD_CODED})
    config = load_config(project.root)
    change = measure_for(project.root, "HEAD", config)

    hits = hard_coded_answers(project, config, "HEAD", change, time_left=FLOOR - 1)

    named = [h.describe() for h in hits]
    assert any(f"tests/test_calc.py::test_mul ({UNKNOWN_NOTE})" in hit for hit in named), named
    assert not _ran_at_base(project)  # tiergate's lack of time lowers no tier, and runs nothing


def test_a_test_passing_at_the_base_is_not_named(tmp_path: Path) -> None:
    project = a_project(init_repo(tmp_path / "repo", {**python(), "calc.py": PY_CORRECT}))

    assert _claim(project, {"calc.py": HARD_CODED}) == ()
    assert _ran_at_base(project)


@pytest.mark.parametrize(
    ("config", "change"),
    [
        ("", {"calc.py": PY_CORRECT}),  # no branching line with a test's literal
        ("", {"tests/test_calc.py": PY_TESTS + "\n\ndef test_six():\n    if 6 == 6:\n        return\n"}),
        ("\n[risk]\ncontent = false\n", {"calc.py": HARD_CODED}),  # the content rules off
    ],
)
def test_nothing_is_named_nor_run_at_the_base_without_a_suspect_line_or_the_rules(
    tmp_path: Path, config: str, change: dict[str, str]
) -> None:
    files = python()
    project = a_project(
        init_repo(tmp_path / "repo", {**files, ".tiergate.toml": files[".tiergate.toml"] + config})
    )

    assert _claim(project, change) == ()
    assert not _ran_at_base(project)
