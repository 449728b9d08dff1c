"""`tiergate report` (commands/report.py) on a real night's decision log (testing/reportnight.py drives
the real hooks): where it writes the page and what it says; records that fail their seal left out, counted
on stderr and on the page; an output it cannot write and a bad --loops a one-line error; a project without
loops."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from testing import chromium
from testing.htmldom import parse
from testing.reportfixtures import Logged, logged_fixture  # noqa: F401  (the `logged` fixture)
from testing.statefolder import state_dir
from testing.tiergatecli import tiergate

# The night is logged once for the session (`logged`).
pytestmark = pytest.mark.long


def test_the_report_says_where_it_wrote_the_page_and_defaults_to_the_state_folder(
    logged: Logged, tmp_path: Path
) -> None:
    assert logged.printed == f"tiergate: report of 2 loops written to {logged.page}\n"
    env = logged.own_env(tmp_path)  # the page is written into the state folder: a copy of the night's
    default = _report(logged.night.project, env)
    assert default.returncode == 0, default.stderr
    where = state_dir(logged.night.project, env) / "report.html"
    assert where.is_relative_to(tmp_path)
    assert default.stdout == f"tiergate: report of 2 loops written to {where}\n"
    assert where.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.browser
def test_records_failing_their_seal_are_left_out_and_the_page_counts_them(
    logged: Logged, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    log = state / "log.jsonl"
    shutil.copy(logged.log, log)
    forged = dict(logged.decision("verdict")[-1], session_id="forged-session", task="FORGED loop")
    with log.open("a") as f:
        f.write(json.dumps({**forged, "seal": "0" * 64}) + "\n")  # an agent's line: no seal of tiergate's
        f.write('{"event": "Stop", "decision": "fin')  # a line cut short
    page = tmp_path / "page.html"
    env = {**logged.night.first.env, "TIERGATE_STATE_DIR": str(state)}

    made = _report(logged.night.project, env, "--output", str(page))

    assert made.returncode == 0, made.stderr
    assert made.stdout == f"tiergate: report of 2 loops written to {page}\n"
    assert "1 damaged line and 1 record not written by tiergate" in made.stderr
    text = parse(chromium.dump_dom(page)).text
    assert (
        "⚠ Left out: 1 record whose seal does not match (not written by tiergate, or edited since) and "
        "1 damaged line (not whole records)." in text
    )
    assert "FORGED" not in text and "forged-session" not in text


def test_an_output_in_a_missing_folder_is_a_one_line_error(logged: Logged, tmp_path: Path) -> None:
    target = tmp_path / "missing" / "page.html"

    made = _report(logged.night.project, logged.night.first.env, "--output", str(target))

    assert made.returncode == 2
    assert (
        made.stderr == f"tiergate: cannot write the report to {target}: there is no folder {target.parent}\n"
    )
    assert not target.parent.exists()


def test_loops_must_be_a_positive_number(git_project: Path, tmp_path: Path) -> None:
    made = _report(git_project, dict(os.environ), "--loops", "0", "--output", str(tmp_path / "page.html"))

    assert made.returncode == 2
    assert "argument --loops: not a positive number: '0'" in made.stderr
    assert not (tmp_path / "page.html").exists()


def test_a_project_without_loops_gets_a_page_that_says_so(git_project: Path, tmp_path: Path) -> None:
    page = tmp_path / "page.html"

    made = _report(git_project, dict(os.environ), "--output", str(page))

    assert made.returncode == 0, made.stderr
    assert made.stdout == f"tiergate: report of 0 loops written to {page}\n"
    assert "No loop in the decision log yet." in parse(page.read_text()).text


def _report(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return tiergate(cwd, "report", *args, environ=env)
