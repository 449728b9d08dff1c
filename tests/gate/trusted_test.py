"""Which files opened in the folders the gate wrote are the gate's, a check's, or git's (pure)."""

from __future__ import annotations

import pytest

from tiergate.gate.trusted import foreign, git_owns

SHA = "c" * 40
GITS = ("/w/.git",)
TEXTS = {
    "/w/.git/refs/heads/main": SHA + "\n",
    "/w/.git/HEAD": "ref: refs/heads/main\n",
    "/w/.git/logs/HEAD": f"{'0' * 40} {SHA} A U Thor <a@example.invalid> 1700000000 +0000\tcommit: add\n",
    "/w/.git/worktrees/tiergate-claim-1/HEAD": SHA,
    "/w/.git/refs/answers": '{"6/3": 2}',
    "/w/.git/logs/answers": '{"6/3": 2}\n',
}


def text(path: str) -> str | None:
    return TEXTS.get(path)


@pytest.mark.parametrize(
    "path",
    [
        "/w/.git/HEAD",
        "/w/.git/index",
        "/w/.git/config",
        "/w/.git/objects/ab/" + "c" * 38,
        "/w/.git/objects/pack/pack-" + "a" * 40 + ".idx",
        "/w/.git/refs/heads/main",
        "/w/.git/logs/HEAD",
        "/w/.git/worktrees/tiergate-claim-1/HEAD",
    ],
)
def test_gits_own_files_holding_what_git_writes_are_gits(path: str) -> None:
    assert git_owns(path, GITS, text)


@pytest.mark.parametrize(
    "path",
    [
        "/w/.git/answers.json",
        "/w/.git/hooks/pre-commit",  # code git runs: the agent's to write
        "/w/.git/objects/answers.json",
        "/w/.git/worktrees/x/answers.json",
        "/w/.git/description",  # no git command reads it
        "/w/.git/refs/answers",  # a ref's name, not a ref's content
        "/w/.git/logs/answers",
        "/h/tree/sub/.git/HEAD",  # a `.git` folder that is not the repository's
        "/w/calc.py",
    ],
)
def test_other_files_are_not(path: str) -> None:
    assert not git_owns(path, GITS, text)


def test_a_file_is_trusted_only_as_the_gate_or_a_check_left_it() -> None:
    read = {"/h/tree/calc.py": (1, 10), "/h/tree/new.json": (2, 20), "/h/tree/build.out": (3, 30)}
    read |= {"/h/tree/moved.py": (4, 41), "/w/.git/HEAD": (5, 50), "/w/.git/refs/answers": (6, 60)}
    known = {"/h/tree/calc.py": (1, 10), "/h/tree/moved.py": (4, 40)}  # rewritten since: its time moved
    made = {"/h/tree/build.out": (3, 30)}

    found = foreign(read, known, made, gits=GITS, text=text)

    assert found == ["/h/tree/moved.py", "/h/tree/new.json", "/w/.git/refs/answers"]
