"""The built-in path rules (`tiergate.tier.riskrules`) hold together as the table compiled from them needs:
one rule per key and kind, keys in the case they are looked up in, placeholders backed by data, and the
workflow directories a content judge decides named by their own rule."""

from __future__ import annotations

from collections import Counter

from tiergate.tier.riskrules import (
    CODE_EXTS,
    CONTENT_JUDGED_DIRPATHS,
    INERT_DIRS,
    INERT_EXTS,
    RULES,
    RUNTIME_REQUIREMENTS,
    TEST_DIRS,
)

# Kinds whose keys are the file's own name, spelt as projects spell it (CODEOWNERS, Dockerfile).
_NAMED_AS_SPELT = {"name", "name-case", "prefix", "suffix"}


def test_no_key_is_given_twice_for_the_same_kind_and_extensions() -> None:
    counted = Counter((rule.kind, key.lower(), rule.exts) for rule in RULES for key in rule.keys)

    assert [entry for entry, times in counted.items() if times > 1] == []


def test_keys_looked_up_lowercased_are_written_lowercase() -> None:
    upper = [
        key for rule in RULES if rule.kind not in _NAMED_AS_SPELT for key in rule.keys if key != key.lower()
    ]

    assert upper == []


def test_a_pattern_that_shows_extensions_or_stems_has_them_and_only_parent_rules_have_stems() -> None:
    for rule in RULES:
        assert "{exts}" not in rule.pattern or rule.exts, rule
        assert ("{stems}" in rule.pattern) == (rule.stems is not None), rule
        assert rule.stems is None or rule.kind == "parent", rule


def test_the_workflow_directories_a_content_judge_decides_are_one_security_rules_keys() -> None:
    [judged] = [rule for rule in RULES if set(CONTENT_JUDGED_DIRPATHS) & set(rule.keys)]

    assert (judged.category, judged.kind) == ("security", "dirpath")
    assert judged.keys == CONTENT_JUDGED_DIRPATHS


def test_runtime_requirements_are_named_in_either_order_separator_and_extension() -> None:
    names = {key for rule in RULES if rule.kind == "name" for key in rule.keys}

    for word in RUNTIME_REQUIREMENTS:
        assert {f"requirements-{word}.txt", f"{word}_requirements.in"} <= names
    assert "requirements-dev.txt" not in names
    assert "requirements.txt" in names


def test_inert_files_are_never_code_and_test_folders_never_inert() -> None:
    assert INERT_EXTS.isdisjoint(CODE_EXTS)
    assert TEST_DIRS.isdisjoint(INERT_DIRS)
