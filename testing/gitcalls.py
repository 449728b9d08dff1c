"""The git calls tiergate makes through `tiergate.git.runner.run`, counted by the `calls` fixture: what the
tests of a memo (an answer a git helper keeps for the process) compare."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiergate.git import runner


@pytest.fixture(name="calls")
def calls_fixture(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The arguments of each git call made through `runner.run` during the test."""
    made: list[tuple[str, ...]] = []
    real = runner.run

    def counted(cwd: Path, *args: str, **kwargs: object) -> object:
        made.append(args)
        return real(cwd, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "run", counted)
    return made
