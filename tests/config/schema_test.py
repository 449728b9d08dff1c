"""The configuration's schema read directly: what it makes of a table, and the one line it says when a key
is wrong (which file, which key, why, and the value it got)."""

from __future__ import annotations

import dataclasses
import types
from typing import Any, Literal, get_args, get_origin, get_type_hints

import pytest
from testing.classfields import declared_fields

from tiergate.config import schema
from tiergate.config.keys import keys
from tiergate.config.settings import SECTIONS, Config, RiskRuleConfig
from tiergate.errors import UserError


def _refusal(table: dict[str, Any], source: str = "proj/.tiergate.toml") -> str:
    with pytest.raises(UserError) as caught:
        schema.read_table(source, table)
    return str(caught.value)


def test_an_empty_table_gives_every_default_and_leaves_the_source_out() -> None:
    values = schema.read_table(".tiergate.toml", {})
    assert "source" not in values
    assert values["tiers"] == {"light_files_below": 5, "light_lines_below": 100, "thorough_files_above": 20}
    assert values["loop"] == {"max_iterations": 20, "max_minutes": 240.0}
    assert values["checks"] == {}
    assert values["risk"] == {"content": True, "rules": ()}


def test_whole_numbers_are_taken_where_a_number_of_seconds_or_a_cost_is_meant() -> None:
    values = schema.read_table(
        "t.toml", {"costs": {"light": 2}, "loop": {"max_minutes": 30}, "gate": {"timeout_seconds": 60}}
    )
    assert values["costs"]["light"] == 2.0 and isinstance(values["costs"]["light"], float)
    assert values["loop"]["max_minutes"] == 30.0
    assert values["gate"]["timeout_seconds"] == 60.0


def test_keywords_are_stripped_and_a_rule_s_construct_becomes_its_name() -> None:
    values = schema.read_table(
        "t.toml",
        {
            "keywords": {"light": ["  typo ", "docs"]},
            "risk": {"rules": [{"construct": " eval ", "pattern": r"\beval\(", "ecosystems": ["python"]}]},
        },
    )
    assert values["keywords"]["light"] == ("typo", "docs")
    (rule,) = values["risk"]["rules"]
    assert rule["name"] == "eval"
    assert rule["ecosystems"] == ("python",)
    assert (rule["category"], rule["sides"]) == ("security", "both")


def test_an_unknown_key_is_named_with_its_file() -> None:
    assert _refusal({"loop": {"max_iteration": 3}}) == "proj/.tiergate.toml: loop.max_iteration: unknown key"


def test_a_value_out_of_range_is_named_with_the_value_it_got() -> None:
    message = _refusal({"loop": {"max_iterations": 0}})
    assert message.startswith("proj/.tiergate.toml: loop.max_iterations: ")
    assert message.endswith("(got 0)")


def test_a_string_is_not_taken_for_a_number() -> None:
    assert "tiers.light_files_below" in _refusal({"tiers": {"light_files_below": "5"}})


def test_a_check_is_named_whole_even_with_dots_and_must_run_something() -> None:
    assert (
        _refusal({"checks": {"unit.fast": "  "}})
        == "proj/.tiergate.toml: [checks] unit.fast: the command is empty (got '  ')"
    )


def test_a_keyword_list_with_an_empty_word_is_refused() -> None:
    assert "keywords.light: must be a list of non-empty strings" in _refusal(
        {"keywords": {"light": ["ok", " "]}}
    )


@pytest.mark.parametrize(
    ("rule", "why"),
    [
        ({"construct": "x", "pattern": "("}, "not a regular expression"),
        ({"construct": "x", "pattern": "a*"}, "matches an empty line, so every line"),
        ({"construct": " ", "pattern": "x"}, "must name the construct"),
        (
            {"construct": "x", "pattern": "x", "ecosystems": ["cobol-on-mars"]},
            "unknown ecosystem 'cobol-on-mars'",
        ),
    ],
)
def test_a_risk_rule_that_could_not_work_is_refused(rule: dict[str, Any], why: str) -> None:
    assert why in _refusal({"risk": {"rules": [rule]}})


def test_a_kept_configuration_reads_back_as_it_was_kept() -> None:
    values = schema.read_table("t.toml", {"loop": {"max_iterations": 7}, "checks": {"unit": "make test"}})
    kept = {**values, "risk": {**values["risk"], "rules": list(values["risk"]["rules"])}}
    assert schema.read_kept("t.toml", kept) == values


def test_a_kept_configuration_gone_wrong_is_named_as_the_loop_s() -> None:
    with pytest.raises(UserError) as caught:
        schema.read_kept(None, {"loop": {"max_iterations": -1}})
    message = str(caught.value)
    assert message.startswith("the loop's kept configuration (from the defaults): loop.max_iterations: ")
    assert message.endswith("(got -1)")


def test_the_schema_declares_no_key_of_its_own_each_model_has_its_settings_class_s_keys() -> None:
    assert declared_fields(schema.__file__) == []
    classes: tuple[type[Any], ...] = (Config, *SECTIONS.values(), RiskRuleConfig)
    for cls in classes:
        model = schema.model_of(cls)
        assert list(model.model_fields) == [f.name for f in dataclasses.fields(cls)], cls.__name__
        defaults = {
            name: info.get_default(call_default_factory=True) for name, info in model.model_fields.items()
        }
        assert all(not isinstance(v, type(...)) for v in defaults.values())
    assert schema.model_of(Config) is schema.ConfigSchema


@pytest.mark.parametrize("section", SECTIONS)
def test_an_unknown_key_is_refused_in_every_section(section: str) -> None:
    assert (
        _refusal({section: {"no_such_key": 1}}) == f"proj/.tiergate.toml: {section}.no_such_key: unknown key"
    )


def test_each_key_s_kind_read_from_its_annotation_s_text_agrees_with_its_type() -> None:
    classes: tuple[type[Any], ...] = (Config, *SECTIONS.values(), RiskRuleConfig)
    for cls in classes:
        hints = get_type_hints(cls)
        for key in keys(cls):
            hint = hints[key.field.name]
            args = get_args(hint)
            assert key.nullable == (type(None) in args and get_origin(hint) is types.UnionType), key
            base = next((a for a in args if a is not type(None)), hint) if key.nullable else hint
            assert key.choices == (get_args(base) if get_origin(base) is Literal else ()), key
            if key.kind in {"int", "float", "bool"}:
                assert base is {"int": int, "float": float, "bool": bool}[key.kind], key
            if key.kind in {"text", "construct", "regex"}:
                assert base is str, key
            if key.kind == "section":
                assert base is type(key.field.default), key
