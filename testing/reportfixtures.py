"""The report tests' night (testing/reportnight.py), logged once for a test session through the real
hooks, and its report written by the real `tiergate report`: the `logged` fixture
(`from testing.reportfixtures import Logged, logged_fixture`). The night is shared: a test must not write
into it, and one that has tiergate write to the state folder does so in its own copy (`Logged.own_env`)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from testing import reportnight as tonight
from testing.statefolder import state_dir
from tiergate import seal
from tiergate.log import read_records


@dataclass(frozen=True)
class Logged:
    night: tonight.Night
    log: Path
    page: Path
    printed: str
    records: list[dict[str, Any]]

    def decision(self, name: str, session: str = tonight.FIRST) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("decision") == name and r.get("session_id") == session]

    def own_env(self, folder: Path) -> dict[str, str]:
        """The first session's environment with the night's state home copied into `folder`: the same
        project, its state folder and sealing key found where tiergate looks, but the copy's, so that what a
        test has tiergate write there no other test sees."""
        home = self.night.first.env["XDG_STATE_HOME"]
        copy = shutil.copytree(home, folder / "state-home")
        return {**self.night.first.env, "XDG_STATE_HOME": str(copy)}


# Each test module that imports the fixture holds a definition of its own, each session-scoped; the night
# is kept in the session's stash so that the first to run logs it (2-3 s of hooks) and the others reuse it.
_NIGHT = pytest.StashKey[Logged]()


@pytest.fixture(name="logged", scope="session")
def logged_fixture(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Logged:
    """The night, logged once for the session (per xdist worker), in a state home of its own; and its
    report."""
    stash = request.config.stash
    if _NIGHT not in stash:
        stash[_NIGHT] = _log_the_night(tmp_path_factory)
    return stash[_NIGHT]


def _log_the_night(tmp_path_factory: pytest.TempPathFactory) -> Logged:
    root = tmp_path_factory.mktemp("night")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(root / "state-home"))
        patch.setenv("HOME", str(root / "home"))
        patch.delenv("CLAUDE_PROJECT_DIR", raising=False)
        patch.delenv("TIERGATE_STATE_DIR", raising=False)
        patch.setattr(seal, "_key_cache", {})
        night = tonight.night(root)
        log = state_dir(night.project, night.first.env) / "log.jsonl"
        records = list(read_records(log, night.first.env))
    page = root / "report.html"
    made = night.first.run("report", "--output", str(page))
    assert made.returncode == 0, made.stderr
    return Logged(night, log, page, made.stdout, records)


def long_night(records: list[dict[str, Any]], times: int = 50) -> list[dict[str, Any]]:
    """The night's records again and again, `times` over, under new session ids: a night of many loops."""
    return [
        dict(record, session_id=f"{n:04d}-{record['session_id']}") for n in range(times) for record in records
    ]
