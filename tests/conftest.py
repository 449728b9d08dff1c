"""Shared fixtures: a scripted Messages API, a throw-away HOME and git project, and the CLI bound to them."""

from __future__ import annotations

import gc
import itertools
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from testing.claude import cli
from testing.claude.cli import ClaudeRun, RunClaude
from testing.claude.scripted_api import ScriptedApi
from testing.gitrepo import init_repo

# Each test module is compiled once, its assertions rewritten, and kept in __pycache__: where
# PYTHONDONTWRITEBYTECODE is set (as on CI's machines), every worker of every run would rewrite all the
# test files again, 9 s of CPU each. Only this process: the ones the tests start still inherit it.
sys.dont_write_bytecode = False

# A test worker allocates by the million (hypothesis' examples, parsed reports, the hooks' JSON) and keeps
# little: with the default thresholds the cyclic collector runs every 700 allocations, 5 to 10% of the
# pure tests' CPU (measured on tests/tier, config, loop and the hook's inputs: 36-39 s, 34-35 s with these).
gc.set_threshold(50_000, 50, 100)

# Files with a test of these marks run for tens of seconds: scripts/test.sh gives each worker a contiguous
# share of the tests in the order collected (--dist worksteal), and an idle worker takes tests from the end
# of another's share; a long test collected last would keep its worker busy alone at the end.
LONG_MARKS = ("e2e", "install", "browser", "long")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files with a long test first, each file's tests in their own order."""
    long_files = {item.path for item in items if any(item.get_closest_marker(m) for m in LONG_MARKS)}
    items.sort(key=lambda item: item.path not in long_files)


BASELINE_AT_START = "TIERGATE_BASELINE_AT_START"


@pytest.fixture(autouse=True)
def state_home(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A state home of the test's own (XDG_STATE_HOME), so that no test touches ~/.local/state, and with
    it the test's own sealing key (`tiergate.seal`): set in the environment, so that the hooks, commands and
    CLI a test starts inherit it and the test reads back what they sealed. HOME is the test's `home` too,
    TMPDIR a folder of its own, and so are the other XDG folders (git reads its config from
    XDG_CONFIG_HOME): tests running side by side share no file outside their own folders. Settings of an
    enclosing Claude Code session that would point tiergate at another project are dropped."""
    from tiergate import seal
    from tiergate.git import indexcopy

    # Outside tmp_path (a test may make its project there), numbered by this worker, not by `mktemp`,
    # which lists the whole temporary root each time, a root that grows by the thousand in a worker.
    home = _numbered(tmp_path_factory, "xdg-state")
    # The processes a test starts keep their temporary files in a folder of the test's own: a pytest
    # that a test's project runs makes its numbered folders there, and prunes no other test's.
    monkeypatch.setenv("TMPDIR", str(_numbered(tmp_path_factory, "tmp")))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    # The loop's baseline is begun at a claim, not at every loop start: most tests start a loop for
    # something else, and a run of the project's checks behind each would load the suite's workers.
    # The tests of the loop-start baseline set it back (testing/scaleproject.py, its e2e test).
    monkeypatch.setenv(BASELINE_AT_START, "0")
    for name, folder in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_DATA_HOME", ".local/share"),
    ):
        monkeypatch.setenv(name, str(tmp_path / "home" / folder))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.delenv("TIERGATE_STATE_DIR", raising=False)
    monkeypatch.setattr(seal, "_key_cache", {})
    # A loop a handler judged in this process (`indexcopy.read_again_since`) is not the next test's.
    monkeypatch.setattr(indexcopy, "_since", [])
    return home


_folders = itertools.count()


def _numbered(factory: pytest.TempPathFactory, name: str) -> Path:
    """A new folder in the worker's temporary root, with a short name: a socket a test's process makes
    under TMPDIR (Chromium's, say) must fit in a socket address."""
    folder = factory.getbasetemp() / f"{name}{next(_folders)}"
    folder.mkdir()
    return folder


@pytest.fixture
def scripted_api(tmp_path: Path) -> Iterator[ScriptedApi]:
    """A fresh scripted API per test; every exchange is also written to requests.jsonl for post-mortems."""
    with ScriptedApi(log_path=tmp_path / "requests.jsonl") as api:
        yield api


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    """An empty HOME: the CLI needs nothing in it to run `-p` against an API key (no onboarding, no login)."""
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def git_project(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "project", {"README.md": "A project under test.\n"})


@pytest.fixture
def run_claude(scripted_api: ScriptedApi, claude_home: Path, git_project: Path) -> RunClaude:
    """`run_claude(prompt, plugin_dir=..., **options)` in the test's project, HOME and scripted API.

    Options are those of testing.claude.cli.run_claude (cwd, env, extra_args, session_id, resume, ...).
    """

    def run(prompt: str | Sequence[str], *, plugin_dir: Path | None = None, **options: Any) -> ClaudeRun:
        options.setdefault("cwd", git_project)
        return cli.run_claude(
            prompt, plugin_dir=plugin_dir, home=claude_home, api_url=scripted_api.url, **options
        )

    return run
