"""The report tests' night (testing/reportnight.py), logged once for a test module through the real
hooks, and its report written by the real `tiergate report`: the `logged` fixture
(`from testing.reportfixtures import Logged, logged_fixture`)."""

from __future__ import annotations

from collections.abc import Iterator
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


@pytest.fixture(name="logged", scope="module")
def logged_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Logged]:
    """The night, logged once for the module, in a state home of its own; and its report."""
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
    yield Logged(night, log, page, made.stdout, records)


def long_night(records: list[dict[str, Any]], times: int = 50) -> list[dict[str, Any]]:
    """The night's records again and again, `times` over, under new session ids: a night of many loops."""
    return [
        dict(record, session_id=f"{n:04d}-{record['session_id']}") for n in range(times) for record in records
    ]
