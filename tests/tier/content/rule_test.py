"""The content rules' vocabulary (tier/content/rule.py): which changed lines a rule reads, which files an
ecosystem holds, a hit's reason, and the pattern builders: whole words, calls, quoted names, and the
literal needle every match holds. Pure."""

from __future__ import annotations

import re

import pytest

from tiergate.tier.content.rule import (
    ContentHit,
    ContentRule,
    Ecosystem,
    call,
    literal,
    needle,
    prefix,
    quoted,
    rules,
    suffix_of,
    whole_word_needle,
    word,
)


def test_a_rule_reads_the_sides_it_names() -> None:
    assert [ContentRule("c", "x", sides=s).reads("added") for s in ("added", "removed", "both")] == [
        True,
        False,
        True,
    ]
    assert [ContentRule("c", "x", sides=s).reads("removed") for s in ("added", "removed", "both")] == [
        False,
        True,
        True,
    ]


def test_an_ecosystem_holds_its_files_by_suffix_or_name() -> None:
    eco = Ecosystem("x", rules=(), suffixes=(".py",), names=("Dockerfile", "*.env", "settings?.ini"))

    held = ["a.py", "src/A.PY", "deploy/Dockerfile", "prod.env", "conf/settings1.ini"]
    assert [p for p in held if not eco.holds(p)] == []
    other = ["a.pyc", "py", "Dockerfile.dev", "env", "conf/settings10.ini", "src/.py/readme.md"]
    assert [p for p in other if eco.holds(p)] == []


def test_an_ecosystem_leaves_out_what_it_ignores_and_reads_only_within_and_what_it_accepts() -> None:
    eco = Ecosystem(
        "x",
        rules=(),
        suffixes=(".js",),
        ignore_dirs=("dist",),
        ignore_names=("*.min.js",),
        within=("web/app",),
        accepts=lambda path: "skip" not in path,
    )

    assert eco.holds("web/app/main.js") and eco.holds("pkg/web/app/lib/main.js")
    assert not eco.holds("web/app/main.min.js")
    assert not eco.holds("web/app/dist/main.js")
    assert not eco.holds("web/app/skip.js")
    assert not eco.holds("web/main.js") and not eco.holds("main.js") and not eco.holds("web/apps/main.js")
    assert eco.places("web/app/dist.js")  # a file named like an ignored folder is not in one


@pytest.mark.parametrize(
    ("name", "suffix"),
    [("a.PY", ".py"), ("archive.tar.GZ", ".gz"), (".bashrc", ""), ("Makefile", ""), ("a.", ".")],
)
def test_a_suffix_is_the_last_dot_on_lowercased_and_a_leading_dot_is_none(name: str, suffix: str) -> None:
    assert suffix_of(name) == suffix


def test_a_reason_names_file_line_and_construct_and_quotes_the_untrusted_excerpt() -> None:
    hit = ContentHit("a\nb.py", 7, "added", "process execution", "security", "os.system(x)```")
    reason = hit.describe()
    assert "\n" not in reason and "```" not in reason
    assert reason.startswith('"a\\nb.py":7 (added line) process execution: "os.system(x)')


def _matches(pattern: str, *lines: str) -> list[str]:
    return [line for line in lines if re.search(pattern, line)]


def test_a_word_is_a_whole_identifier_and_with_after_dot_false_not_an_attribute() -> None:
    lines = ("os.system(x)", "myos.system(x)", "os.systems", "run(os.system)", "self.os.system()")
    assert _matches(word("os.system"), *lines) == ["os.system(x)", "run(os.system)", "self.os.system()"]
    evals = ("eval(x)", "model.eval()", "evaluate(x)", "x = eval")
    assert _matches(word("eval"), *evals) == ["eval(x)", "model.eval()", "x = eval"]
    assert _matches(word("eval", after_dot=False), *evals) == ["eval(x)", "x = eval"]


def test_a_prefix_starts_an_identifier_that_may_go_on() -> None:
    lines = ("SESSION_COOKIE_SECURE = False", "MY_SESSION_COOKIE_X = 1", "SESSION_COOKIE_ = 2")
    assert _matches(prefix("SESSION_COOKIE_"), *lines) == [lines[0], lines[2]]


def test_a_call_is_the_word_then_a_parenthesis() -> None:
    lines = ("os.system (cmd)", "os.system\t(cmd)", "f = os.system", "os.system_x(cmd)")
    assert _matches(call("os.system"), *lines) == ["os.system (cmd)", "os.system\t(cmd)"]


def test_a_quoted_name_is_in_quotes_and_not_in_backticks_or_bare() -> None:
    lines = (
        "h['Authorization']",
        'h["Authorization"] = t',
        "``Authorization``",
        "Authorization: x",
        "'Authorizations'",
    )
    assert _matches(quoted("Authorization"), *lines) == ["h['Authorization']", 'h["Authorization"] = t']


def test_a_literal_means_each_of_its_characters() -> None:
    assert _matches(literal("a.b(c)"), "a.b(c)", "axb(c)", "a.bc") == ["a.b(c)"]


def test_rules_write_one_construct_several_ways() -> None:
    made = rules("shell", "os.system", "subprocess.call", sides="added", near="cmd")

    assert made == (
        ContentRule("shell", "os.system", sides="added", near="cmd"),
        ContentRule("shell", "subprocess.call", sides="added", near="cmd"),
    )


@pytest.mark.parametrize(
    ("pattern", "found"),
    [
        (word("os.system"), "system"),  # the longest run of the literal start
        (r"verify\s*=", "verify"),  # a class escape ends the literal
        (r"ab\.cdef", "cdef"),  # an escaped character is literal
        ("abc?d", "ab"),  # the quantified character is optional
        (r"x[|]yzw", "x"),  # a class ends it
        ("(a|b)c", ""),  # nothing literal first
        ("foo|bar", ""),  # an alternation at the top: neither side is required
    ],
)
def test_a_needle_is_the_longest_word_run_every_match_holds(pattern: str, found: str) -> None:
    assert needle(pattern) == found
    if found:
        assert all(found in m.group() for m in re.finditer(pattern, f"abd verify = x ab.cdef x|yzw {found}"))


def test_a_whole_word_needle_is_known_for_the_builders_patterns_alone() -> None:
    assert whole_word_needle(word("zz_rule_test_name"))
    assert whole_word_needle(call("zz_rule_test_call"))
    assert whole_word_needle(quoted("Zz-Rule-Test-Header"))
    assert not whole_word_needle(literal("zz_rule_test_literal"))
    assert not whole_word_needle(prefix("zz_rule_test_prefix"))
