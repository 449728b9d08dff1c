"""The built-in path rules compiled into lookups (tier/risktable.py): each key in the lookup of its kind,
with the rule's place (lower wins), category, pattern as shown and filter; the cheap gates; the table of
the built-in rules. Pure."""

from __future__ import annotations

from tiergate.tier.riskrules import CONTENT_JUDGED_DIRPATHS, RULES, Rule
from tiergate.tier.risktable import JUDGED, TABLE, compile_rules

SMALL = (
    Rule("security", "name", (".netrc", "CODEOWNERS"), "**/{key}"),
    Rule("security", "ext", ("pem", "key"), "**/*.{key}"),
    Rule("architecture", "name-case", ("Makefile",), "**/{key}"),
    Rule("security", "prefix", ("id_rsa", "id"), "**/{key}*"),
    Rule("security", "dirpath", (".github/Workflows",), "**/{key}/**"),
    Rule("architecture", "stem", ("settings",), "**/{key}.{exts}", exts=("py", "toml")),
    Rule("architecture", "parent", ("config",), "**/{key}/{stems}.*", exts=("yml",), stems=("app", "db")),
    Rule("architecture", "suffix", (".tfstate.backup",), "**/*{key}"),
    Rule("architecture", "last-word", ("auth",), "**/*_{key}.*"),
    Rule("security", "word", ("secret",), "**/*{key}*"),
    Rule("security", "name", (".netrc",), "**/{key} again"),
)


def test_each_key_is_looked_up_by_its_kind_lowercased_with_its_place_category_and_pattern() -> None:
    table = compile_rules(SMALL)

    assert table.hits("name", ".netrc") == (
        (0, "security", "**/.netrc", None),
        (10, "security", "**/.netrc again", None),  # a later rule: a higher place, it loses
    )
    assert table.hits("name", "codeowners") == ((0, "security", "**/CODEOWNERS", None),)
    assert table.hits("name", "CODEOWNERS") == ()
    assert table.hits("ext", "key") == ((1, "security", "**/*.key", None),)
    assert table.hits("ext", "txt") == ()


def test_a_case_sensitive_name_keeps_its_case() -> None:
    table = compile_rules(SMALL)

    assert table.hits("name-case", "Makefile") == ((2, "architecture", "**/Makefile", None),)
    assert table.hits("name-case", "makefile") == ()


def test_extensions_filter_a_rule_and_show_in_braces_and_stems_make_file_names() -> None:
    table = compile_rules(SMALL)

    assert table.hits("stem", "settings") == (
        (5, "architecture", "**/settings.{py,toml}", frozenset({"py", "toml"})),
    )
    assert table.hits("parent", "config") == (
        (6, "architecture", "**/config/{app,db}.*", frozenset({"app.yml", "db.yml"})),
    )


def test_a_directory_path_is_keyed_by_its_two_folders_lowercased() -> None:
    table = compile_rules(SMALL)

    assert table.dirpaths == {(".github", "workflows"): ((4, "security", "**/.github/Workflows/**", None),)}


def test_the_cheap_gates_say_which_names_a_kind_could_match() -> None:
    table = compile_rules(SMALL)

    # The longest prefix first, then a separator or the end.
    assert [m[1] for m in map(table.prefix.match, ("id_rsa.pub", "id_rsa", "id-x", "idx")) if m] == [
        "id_rsa",
        "id_rsa",
        "id",
    ]
    assert table.suffixes == (".tfstate.backup",)
    assert table.last_words == ("auth",)
    assert table.words == frozenset({"secret"})
    assert table.word_rank == len(SMALL)  # security words rank after every table rule


def test_the_built_in_table_holds_every_rule_and_the_judged_patterns_are_workflow_directories() -> None:
    assert TABLE.word_rank == len(RULES)
    assert TABLE.hits("name", ".netrc") and TABLE.hits("ext", "pem")
    assert TABLE.hits("name", "readme.md") == ()
    assert (".github", "workflows") in TABLE.dirpaths
    assert {f"**/{path}/**" for path in CONTENT_JUDGED_DIRPATHS} == JUDGED
    shown = {hit[2] for hits in TABLE.dirpaths.values() for hit in hits}
    assert shown >= JUDGED  # each is a pattern the table shows, so that a reason can be matched to it
