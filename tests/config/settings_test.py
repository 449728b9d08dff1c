from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tiergate.config import schema
from tiergate.config.settings import (
    SECTIONS,
    Config,
    from_values,
    kept_config,
    load_config,
    read_plain,
    validate_table,
)
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


# The configuration read by hand and by its schema ------------------------------------------------------


def test_every_section_mirrors_its_schema_model_field_for_field_with_the_same_defaults() -> None:
    assert from_values(schema.ConfigSchema().model_dump(), None) == Config()
    for name, model in schema.ConfigSchema.model_fields.items():
        if name in SECTIONS:
            section = SECTIONS[name]
            assert model.annotation is not None
            schema_fields = model.annotation.model_fields
            assert {f.name for f in dataclasses.fields(section)} == set(schema_fields), name
    assert {f.name for f in dataclasses.fields(Config)} == set(schema.ConfigSchema.model_fields)


_ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", " ", "pytest -q", "verify", "ignore", "tiny", "build/", "tmp\\", "# old"]),
    st.lists(st.sampled_from(["", " x ", "billing/**", "quick", 3]), max_size=3),
    st.dictionaries(st.sampled_from(["tests", "lint"]), st.sampled_from(["pytest", "", 1]), max_size=2),
)


def _plain_values(field: dataclasses.Field[Any]) -> st.SearchStrategy[Any]:
    """Values near a field's plain form, besides the odd ones every field gets."""
    kind = str(field.metadata.get("kind", ""))
    numbers = st.one_of(st.integers(-1, 40), st.floats(-1, 400))
    near = {
        "int": numbers,
        "float": numbers,
        "bool": st.booleans(),
        "text": st.sampled_from([None, "notify-send x"]),
        "choice": st.sampled_from(["verify", "ignore", "Verify"]),
        "words": st.lists(st.sampled_from(["tiny", " spaced ", ""]), max_size=3),
        "globs": st.lists(st.sampled_from(["billing/**", " x ", ""]), max_size=3),
        "schema": st.sampled_from([[], ["build/"], [{"construct": "c", "pattern": "x"}]]),
    }
    return st.one_of(near.get(kind, st.nothing()), _ODD)


@st.composite
def _tables(draw: st.DrawFn) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from([*SECTIONS, "checks", "surprise"]), unique=True, max_size=4)):
        if name == "checks":
            table[name] = draw(st.one_of(_ODD, st.just({"tests": "pytest -q"})))
        elif name == "surprise":
            table[name] = draw(_ODD)
        else:
            fields = dataclasses.fields(SECTIONS[name])
            chosen = draw(st.lists(st.sampled_from(fields), unique=True, max_size=3))
            table[name] = {f.name: draw(_plain_values(f)) for f in chosen}
            if draw(st.integers(0, 9)) == 0:
                table[name]["unknown_key"] = 1
    return table


def _outcome(read: Callable[[], Config]) -> object:
    try:
        return read()
    except UserError as exc:
        return str(exc)


@settings(max_examples=500, deadline=None)
@given(_tables())
def test_a_table_read_by_hand_is_what_the_schema_makes_of_it(table: dict[str, Any]) -> None:
    source = ".tiergate.toml"
    by_schema = _outcome(lambda: from_values(schema.read_table(source, table), source))
    by_hand = read_plain(table, ".tiergate.toml")

    assert _outcome(lambda: validate_table(".tiergate.toml", table)) == by_schema
    if by_hand is not None:
        assert by_hand == by_schema
    if isinstance(by_schema, Config):  # what a loop keeps reads back as it was, either way
        kept = by_schema.kept()
        assert kept_config(".tiergate.toml", kept) == by_schema
        assert from_values(schema.read_kept(source, kept), source) == by_schema


def test_an_ordinary_configuration_is_read_without_importing_pydantic(tmp_path: Path) -> None:
    (tmp_path / ".tiergate.toml").write_text(
        '[checks]\ntests = "pytest -q"\n[loop]\nmax_iterations = 7\n[keywords]\nlight = ["tiny"]\n'
    )
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tiergate.config.settings import kept_config, load_config\n"
        f"config = load_config(Path({str(tmp_path)!r}))\n"
        "assert config.loop.max_iterations == 7 and config.checks == {'tests': 'pytest -q'}\n"
        "assert kept_config(config.source, config.kept()) == config\n"
        "assert 'pydantic' not in sys.modules, 'imported for an ordinary configuration'\n"
    )

    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)

    assert result.returncode == 0, result.stderr
