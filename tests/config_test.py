from __future__ import annotations

from pathlib import Path

import pytest

from tiergate.config import Config, load_config
from tiergate.errors import UserError
from tiergate.tier.policy import Tier


def test_no_config_gives_the_seed_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == Config()
    policy = config.tier_policy
    assert (policy.light_files_below, policy.light_lines_below, policy.thorough_files_above) == (5, 100, 20)
    assert policy.relative_costs == {Tier.LIGHT: 1.0, Tier.STANDARD: 5.0, Tier.THOROUGH: 20.0}
    assert config.loop.max_iterations == 20
    assert config.checks == {}


def test_dedicated_file(tmp_path: Path) -> None:
    (tmp_path / ".tiergate.toml").write_text(
        '[tiers]\nlight_files_below = 3\n[costs]\nthorough = 12.5\n[keywords]\nlight = ["tiny"]\n'
        '[patterns]\nsecurity = ["billing/**"]\n[checks]\ntests = "pytest -q"\n'
    )
    config = load_config(tmp_path)
    assert config.source == ".tiergate.toml"
    assert config.tier_policy.light_files_below == 3
    assert config.tier_policy.relative_costs[Tier.THOROUGH] == 12.5
    assert config.keywords.light == ("tiny",)
    assert config.keywords.thorough == ("thorough", "careful", "important", "critical")
    assert config.patterns.security == ("billing/**",)
    assert config.checks == {"tests": "pytest -q"}


def test_pyproject_section(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.tiergate.loop]\nmax_iterations = 7\n'
    )
    config = load_config(tmp_path)
    assert config.loop.max_iterations == 7
    assert config.source == "pyproject.toml [tool.tiergate]"


def test_pyproject_without_section_is_defaults(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert load_config(tmp_path) == Config()


def test_dedicated_file_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.tiergate.loop]\nmax_iterations = 7\n")
    (tmp_path / ".tiergate.toml").write_text("[loop]\nmax_iterations = 3\n")
    assert load_config(tmp_path).loop.max_iterations == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[tiers]\nlight_files_below = "five"\n', ".tiergate.toml: tiers.light_files_below: "),
        ("[tiers]\nlight_file_below = 5\n", ".tiergate.toml: tiers.light_file_below: unknown key"),
        ("[tiers\n", ".tiergate.toml: invalid TOML: "),
        ("[loop]\nmax_iterations = 0\n", ".tiergate.toml: loop.max_iterations: "),
        ("[costs]\nlight = -1\n", ".tiergate.toml: costs.light: "),
        ("[keywords]\nlight = [1]\n", ".tiergate.toml: keywords.light: must be a list of non-empty strings"),
        ('[patterns]\nsecurity = [""]\n', ".tiergate.toml: patterns.security: "),
        ("checks = 3\n", ".tiergate.toml: checks: "),
        ("[checks]\ntests = 3\n", ".tiergate.toml: [checks] tests: "),
        ('[checks]\ntests = ""\n', ".tiergate.toml: [checks] tests: the command is empty"),
        ('[checks]\n"unit.fast" = "  \\t "\n', ".tiergate.toml: [checks] unit.fast: the command is empty"),
        ("[tiers]\nlight_files_below = true\n", ".tiergate.toml: tiers.light_files_below: "),
        ("surprise = 1\n", ".tiergate.toml: surprise: unknown key"),
        (
            '[workspace]\nignore = ["build/", "tmp\\\\"]\n',
            ".tiergate.toml: workspace.ignore: 'tmp\\\\' is not a valid gitignore-style pattern",
        ),
        ('[workspace]\nignore = ["# old"]\n', ".tiergate.toml: workspace.ignore: '# old' is a comment"),
        ('[workspace]\nignore = [""]\n', ".tiergate.toml: workspace.ignore: must be a list of non-empty"),
        ('[workspace]\nignore = "build/"\n', ".tiergate.toml: workspace.ignore: must be a list of"),
        ("[workspace]\nignored = []\n", ".tiergate.toml: workspace.ignored: unknown key"),
    ],
)
def test_broken_config_is_one_line_naming_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / ".tiergate.toml").write_text(text)
    with pytest.raises(UserError) as caught:
        load_config(tmp_path)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_an_empty_check_command_in_pyproject_names_that_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.tiergate.checks]\nlint = "ruff check ."\ntests = " "\n')
    with pytest.raises(UserError) as caught:
        load_config(tmp_path)
    expected = "pyproject.toml [tool.tiergate]: [checks] tests: the command is empty (got ' ')"
    assert str(caught.value) == expected


def test_broken_pyproject_section(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool]\ntiergate = "yes"\n')
    with pytest.raises(UserError, match=r"^pyproject.toml: tool.tiergate: must be a table$"):
        load_config(tmp_path)


def test_unreadable_config(tmp_path: Path) -> None:
    (tmp_path / ".tiergate.toml").write_bytes(b"\xff\xfe[tiers]")
    with pytest.raises(UserError, match=r"^\.tiergate\.toml: cannot read"):
        load_config(tmp_path)


def test_gate_interventions_stalls_alerts_sections(tmp_path: Path) -> None:
    (tmp_path / ".tiergate.toml").write_text(
        "[gate]\ntimeout_seconds = 60\n[interventions]\nattempt_limit = 2\nskip_limit = 4\n"
        'rollback_on_retry = true\n[stalls]\nsame_failure = 3\n[alerts]\ncommand = "notify-send x"\n'
    )
    config = load_config(tmp_path)
    assert config.gate.timeout_seconds == 60.0
    assert (config.interventions.attempt_limit, config.interventions.skip_limit) == (2, 4)
    assert config.interventions.rollback_on_retry is True
    assert config.interventions.failure_limit is None
    assert config.stalls.same_failure == 3
    assert config.stalls.empty_turns == 3
    assert config.alerts.command == "notify-send x"
    assert config.alerts.timeout_seconds == 10.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[gate]\ntimeout_seconds = 0\n", ".tiergate.toml: gate.timeout_seconds: "),
        ("[stalls]\nsame_failure = 1\n", ".tiergate.toml: stalls.same_failure: "),
        ("[alerts]\ncommand = 5\n", ".tiergate.toml: alerts.command: "),
        ("[interventions]\nrollback_on_retry = 'yes'\n", ".tiergate.toml: interventions.rollback_on_retry: "),
    ],
)
def test_broken_new_sections(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / ".tiergate.toml").write_text(text)
    with pytest.raises(UserError) as caught:
        load_config(tmp_path)
    assert str(caught.value).startswith(message)


def test_workspace_ignore_is_kept_with_the_file_it_came_from(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tiergate.workspace]\nignore = ["build/", "!build/keep"]\n'
    )
    config = load_config(tmp_path)
    assert config.workspace.ignore == ("build/", "!build/keep")
    verdict = config.exclusions.verdict("build/x")
    assert verdict is not None
    assert verdict.reason == "[workspace] ignore in pyproject.toml [tool.tiergate] (build/)"
    assert config.kept()["workspace"] == {"ignore": ["build/", "!build/keep"]}
    assert Config().exclusions.ignore == ()
