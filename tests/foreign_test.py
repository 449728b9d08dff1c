"""The decider of "another tool's state, and why" (tiergate.foreign): pure, no git."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tiergate import foreign
from tiergate.foreign import DEFAULT, Exclusions, Verdict


@pytest.mark.parametrize(
    ("path", "tool"),
    [
        (".omc/state/subagent-tracking.json", "oh-my-claudecode"),
        (".omc/state/sessions/abc/state.json", "oh-my-claudecode"),
        (".omc/notepad.md", "oh-my-claudecode"),
        (".omc/", "oh-my-claudecode"),  # the folder as one entry (a nested repository)
        ("packages/web/.omc/state/x.json", "oh-my-claudecode"),  # OMC started in a subfolder
        (".claude/ralph-loop.local.md", "a Claude Code plugin"),
        (".claude/ralph-loop.local.md.tmp", "a Claude Code plugin"),  # rewritten, then renamed over it
        (".claude/settings.local.json", "Claude Code"),
        (".claude/scheduled_tasks.json", "Claude Code"),
        (".claude/worktrees/feature-auth/", "Claude Code"),
        (".claude/agent-memory-local/reviewer/MEMORY.md", "Claude Code"),
        (".aider.chat.history.md", "Aider"),
        (".aider.tags.cache.v4/cache.db", "Aider"),
        (".crush/crush.db-wal", "Crush"),
        (".serena/cache/python/document_symbols.pkl", "Serena"),
    ],
)
def test_a_known_tools_state_is_excluded_with_the_tool_named(path: str, tool: str) -> None:
    verdict = DEFAULT.verdict(path)
    assert verdict is not None and verdict.excluded
    assert verdict.reason.startswith(f"{tool}'s ")


@pytest.mark.parametrize(
    "path",
    [
        "src/app.py",
        ".claude/settings.json",  # the project's settings: hooks and permissions, work and security
        ".claude/hooks/guard.sh",
        ".claude/agents/reviewer.md",
        ".claude/commands/ship.md",
        ".claude/skills/x/SKILL.md",
        ".claude/CLAUDE.local.md",  # instructions every session reads, verifiers included
        "CLAUDE.local.md",
        ".claude/plugins/ralph-loop.local.md",  # the plugin rule is `.claude/*.local.md`, one level
        ".claude/ralph-loop.local.md.bak",
        ".claude",
        ".omc",  # a file named like the folder is not the folder
        "omc/state/x.json",
        ".serena/project.yml",  # Serena's configuration, not its cache
        ".serena/memories/overview.md",
        ".crush/commands/x.md",
        ".claude/worktrees",  # a file, not the folder
    ],
)
def test_everything_else_is_work(path: str) -> None:
    assert DEFAULT.verdict(path) is None
    assert not DEFAULT.may_exclude(path)


@pytest.mark.parametrize(
    "path",
    [
        ".omc/run.py",
        ".omc/state/hook.sh",
        ".omc/lib/index.JS",
        ".claude/worktrees/x/app.ts",
        ".omc/native.so",
    ],
)
def test_code_under_a_tools_folder_stays_work_and_says_why(path: str) -> None:
    verdict = DEFAULT.verdict(path)
    assert verdict is not None and not verdict.excluded
    assert "but code, which it does not write" in verdict.reason


def test_an_executable_file_under_a_tools_folder_stays_work() -> None:
    assert DEFAULT.verdict(".omc/state/run", executable=False) == Verdict(
        ".omc/state/run", "oh-my-claudecode's state (.omc/)"
    )
    verdict = DEFAULT.verdict(".omc/state/run", executable=True)
    assert verdict is not None and not verdict.excluded


def test_the_users_patterns_are_gitignore_style_and_name_their_file() -> None:
    exclusions = Exclusions(("build/", "*.log", "!keep.log", "/top.txt"), ".tiergate.toml")
    assert exclusions.verdict("build/out/app.js") == Verdict(
        "build/out/app.js", "[workspace] ignore in .tiergate.toml (build/)"
    )
    assert exclusions.verdict("deep/build/x") is not None  # no leading slash: any depth
    assert exclusions.verdict("run.log") is not None
    assert exclusions.verdict("keep.log") is None  # re-included
    assert exclusions.verdict("top.txt") is not None and exclusions.verdict("src/top.txt") is None
    assert exclusions.verdict("src/app.py") is None
    assert exclusions.may_exclude("build/x") and not exclusions.may_exclude("src/app.py")


def test_the_users_patterns_exclude_code_too_and_take_over_under_a_tools_folder() -> None:
    # The user's configuration is trusted (and frozen for a loop): what it names is not work.
    exclusions = Exclusions((".omc/tools/",), "pyproject.toml [tool.tiergate]")
    verdict = exclusions.verdict(".omc/tools/gen.py")
    assert verdict == Verdict(
        ".omc/tools/gen.py", "[workspace] ignore in pyproject.toml [tool.tiergate] (.omc/tools/)"
    )


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("", "must be a list of non-empty gitignore-style patterns"),
        ("   ", "must be a list of non-empty gitignore-style patterns"),
        (3, "must be a list of non-empty gitignore-style patterns"),
        ("# notes", "'# notes' is a comment in gitignore syntax: it would match nothing"),
        ("a\\", "'a\\\\' is not a valid gitignore-style pattern"),
        ("!", "'!' is not a valid gitignore-style pattern"),
    ],
)
def test_a_broken_pattern_is_named(pattern: object, problem: str) -> None:
    found = foreign.pattern_error(pattern)
    assert found is not None and found.startswith(problem)


def test_valid_patterns_have_no_error() -> None:
    assert [foreign.pattern_error(p) for p in ("build/", "**/*.tmp", "!keep", "/x", "a/**/b")] == [None] * 5


@dataclass(frozen=True)
class _Loop:
    config: dict[str, Any] | None
    config_source: str | None


def test_a_loops_exclusions_come_from_the_configuration_it_kept() -> None:
    kept = {"workspace": {"ignore": ["build/"]}, "checks": {}}
    exclusions = foreign.of_loop(_Loop(kept, ".tiergate.toml"))
    assert exclusions == Exclusions(("build/",), ".tiergate.toml")
    assert exclusions.verdict("build/a") is not None


@pytest.mark.parametrize(
    "kept",
    [None, {}, {"workspace": {}}, {"workspace": {"ignore": "build/"}}, {"workspace": {"ignore": [1]}}],
)
def test_a_loop_without_a_kept_list_gets_the_built_in_rules_alone(kept: dict[str, Any] | None) -> None:
    exclusions = foreign.of_loop(_Loop(kept, ".tiergate.toml"))
    assert exclusions.ignore == ()
    assert exclusions.verdict(".omc/state/x.json") is not None
    assert exclusions.verdict("build/a") is None


def test_an_invalid_kept_pattern_is_left_out_not_fatal() -> None:
    exclusions = Exclusions(("a\\", "build/"), ".tiergate.toml")
    assert exclusions.verdict("build/x") is not None and exclusions.verdict("a") is None


def test_no_built_in_rule_is_a_broad_folder() -> None:
    # Narrow and named: never a whole tool folder that also holds the user's settings or code.
    broad = {".claude/", ".cursor/", ".serena/", ".crush/", ".swarm/", ".github/", ".vscode/"}
    assert not broad & {rule.pattern for rule in foreign.BUILT_IN}
    assert all(rule.tool and rule.what for rule in foreign.BUILT_IN)


@pytest.mark.parametrize(
    ("path", "tool"),
    [
        ("src/__pycache__/app.cpython-311.pyc", "Python"),
        ("__pycache__/", "Python"),
        (".pytest_cache/v/cache/lastfailed", "pytest"),
        (".pytest_cache/.gitignore", "pytest"),  # its self-ignoring .gitignore is its own, too
        ("pkg/.mypy_cache/3.11/pkg.data.json", "mypy"),
        (".ruff_cache/0.5.0/123", "Ruff"),
        (".hypothesis/examples/ab/cd", "Hypothesis"),
        ("toolz.egg-info/PKG-INFO", "setuptools"),
        (".coverage", "coverage.py"),
        (".coverage.host.123.456", "coverage.py"),
        ("htmlcov/index.html", "coverage.py"),
        ("htmlcov/coverage_html_cb_6fb7b396.js", "coverage.py"),  # the report's own script
        ("web/node_modules/left-pad/package.json", "npm"),
        ("coverage/lcov.info", "Istanbul"),
        ("tsconfig.tsbuildinfo", "TypeScript"),
        (".DS_Store", "macOS Finder"),
    ],
)
def test_what_running_tests_and_builds_leaves_behind_is_not_work(path: str, tool: str) -> None:
    verdict = DEFAULT.verdict(path)
    assert verdict is not None and verdict.excluded
    assert verdict.reason.startswith(f"{tool}'s ")


@pytest.mark.parametrize(
    "path",
    [
        "src/__pycache__/evil.py",  # source in a bytecode folder: Python can import it from there
        ".pytest_cache/conftest.py",
        "x.pyc",  # bytecode with no source beside it is imported as a module: code
        "web/node_modules/left-pad/index.js",  # installed code runs like the project's own
        ".hypothesis/run.sh",
    ],
)
def test_code_put_where_generated_output_goes_stays_work(path: str) -> None:
    assert DEFAULT.verdict(path) is None or not DEFAULT.verdict(path).excluded  # type: ignore[union-attr]


def test_an_executable_in_a_cache_folder_stays_work() -> None:
    verdict = DEFAULT.verdict("src/__pycache__/tool", executable=True)
    assert verdict is not None and not verdict.excluded
    bytecode = DEFAULT.verdict("src/__pycache__/app.cpython-311.pyc", executable=True)
    assert bytecode is not None and not bytecode.excluded


@pytest.mark.parametrize("path", ["docs/coverage.md", "coverage/report.py", "src/coverage.py", "egg-info"])
def test_names_like_generated_output_are_still_work(path: str) -> None:
    verdict = DEFAULT.verdict(path)
    assert verdict is None or not verdict.excluded


def test_every_file_the_content_rules_read_by_its_suffix_is_read_as_source() -> None:
    from tiergate.tier.content import DEFAULT as ECOSYSTEMS
    from tiergate.tier.content.checkconfig import CHECK_RUNS

    assert {suffix for eco in ECOSYSTEMS for suffix in eco.suffixes} <= foreign.SOURCE_SUFFIXES
    assert set(CHECK_RUNS.names) <= set(foreign.SOURCE_NAMES)


@pytest.mark.parametrize(
    ("path", "source"),
    [("calc.js", True), ("src/Calc.PY", True), ("Makefile", True), ("logo.png", False), ("x.pyc", False)],
)
def test_a_source_file_is_known_by_its_name(path: str, source: bool) -> None:
    assert foreign.is_source(path) is source
