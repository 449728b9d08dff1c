"""Shared fixtures: a scripted Messages API, a throw-away HOME and git project, and the CLI bound to them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from testing.claude import cli
from testing.claude.cli import ClaudeRun, RunClaude
from testing.claude.scripted_api import ScriptedApi
from testing.gitrepo import init_repo


@pytest.fixture(autouse=True)
def _sealing_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's own sealing key (`tiergate.seal`: `~/.local/state/tiergate/key`), never the developer's:
    HOME is the test's `home`, the one the hook sandboxes and the CLI runs give their processes too, so
    that the test reads what they sealed."""
    from tiergate import seal

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setattr(seal, "_key_cache", {})


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
