"""Which files opened in the folders the gate wrote are the gate's, a check's, or git's (pure)."""

from __future__ import annotations

import pytest

from tiergate.gate.trusted import foreign, git_owns

LOOSE = "/w/.git/objects/ab/" + "c" * 38


@pytest.mark.parametrize(
    "path",
    [
        "/w/.git/HEAD",
        "/w/.git/index",
        "/w/.git/config",
        LOOSE,
        "/w/.git/objects/pack/pack-" + "a" * 40 + ".idx",
        "/w/.git/refs/heads/main",
        "/w/.git/logs/HEAD",
        "/w/.git/worktrees/tiergate-claim-1/HEAD",
        "/w/.git/modules/sub/refs/tags/v1",
        "/h/tree/.git",
    ],
)
def test_gits_own_files_are_gits(path: str) -> None:
    assert git_owns(path)


@pytest.mark.parametrize(
    "path",
    [
        "/w/.git/answers.json",
        "/w/.git/hooks/pre-commit",  # code git runs: the agent's to write
        "/w/.git/objects/answers.json",
        "/w/.git/worktrees/x/answers.json",
        "/w/calc.py",
        "/w/.github/workflows/ci.yml",
    ],
)
def test_other_files_in_or_out_of_git_are_not(path: str) -> None:
    assert not git_owns(path)


def test_a_file_is_trusted_only_as_the_gate_or_a_check_left_it() -> None:
    read = {"/h/tree/calc.py": (1, 10), "/h/tree/new.json": (2, 20), "/h/tree/build.out": (3, 30)}
    read |= {"/h/tree/moved.py": (4, 41), "/w/.git/HEAD": (5, 50)}
    known = {"/h/tree/calc.py": (1, 10), "/h/tree/moved.py": (4, 40)}  # rewritten since: its time moved
    made = {"/h/tree/build.out": (3, 30)}

    assert foreign(read, known, made) == ["/h/tree/moved.py", "/h/tree/new.json"]
