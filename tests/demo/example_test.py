"""The demo's example project (`tiergate.demo.example`): a committed git repository whose tests really fail
on the bug, and fixes that fail them exactly the way the story says."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tiergate.demo import example


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def _failed_tests(output: str) -> set[str]:
    return {line.split(" ")[0] for line in output.splitlines() if line.endswith(("... FAIL", "... ERROR"))}


def test_the_example_is_created_as_one_clean_commit_with_its_check(tmp_path: Path) -> None:
    root = example.create(tmp_path)

    assert root == tmp_path / example.NAME
    assert _git(root, "status", "--porcelain") == ""
    assert _git(root, "rev-list", "--count", "HEAD").strip() == "1"
    committed = set(_git(root, "ls-files").split())
    assert committed == {*example.FILES, ".tiergate.toml"}
    assert "-m unittest -v" in (root / ".tiergate.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("fix", "failed"),
    [
        (None, {"test_even_count_sorted", "test_even_count_unsorted"}),
        (example.BREAKING_FIX, {"test_input_is_left_unchanged"}),
        (example.WRONG_FIX, {"test_even_count_unsorted"}),
        (example.RIGHT_FIX, set()),
    ],
)
def test_the_example_tests_fail_exactly_where_each_version_of_median_is_wrong(
    tmp_path: Path, fix: str | None, failed: set[str]
) -> None:
    root = example.create(tmp_path)
    if fix is not None:
        example.write(root, {example.MODULE: fix})

    run = example.run_tests(root)

    assert run.command == "python -m unittest -v"
    assert _failed_tests(run.output) == failed
    assert run.ok is (not failed)


def test_the_build_names_a_module_that_does_not_compile_relative_to_the_example(tmp_path: Path) -> None:
    assert example.compile_all(example.create(tmp_path / "good")).ok
    root = example.create(tmp_path / "broken")
    example.write(root, {example.MODULE: "def median(values:\n"})
    run = example.compile_all(root)

    assert run.exit_code == 1
    assert "statkit/median.py" in run.output
    assert str(tmp_path) not in run.output
