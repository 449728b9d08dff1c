"""Output escaping and template safety rules (`tiergate.tier.content.escaping`), run on real lines: a
template filter only after its bar, a sink only when assigned what is not a constant, and each
ecosystem's escaping told from its raw output."""

from __future__ import annotations

import re

import pytest

from tiergate.tier.content.escaping import (
    ESCAPING,
    JAVASCRIPT_ESCAPING,
    PHP,
    PYTHON_ESCAPING,
    RAW_HTML,
    TEMPLATES,
)
from tiergate.tier.content.rule import ContentRule


def said(rules: tuple[ContentRule, ...], line: str) -> set[str]:
    return {rule.construct for rule in rules if re.search(rule.pattern, line)}


@pytest.mark.parametrize(
    ("line", "constructs"),
    [
        ("<p>{{ comment.body|safe }}</p>", {RAW_HTML}),
        ("<p>{{ comment.body | safe }}</p>", {RAW_HTML}),
        ("<p>{{ comment.body|e }}</p>", {ESCAPING}),
        ("<p>{{ comment.body|escapejs }}</p>", {ESCAPING}),
        ("<p>{{ comment.body|safest_guess }}</p>", set()),  # another filter, the word only begins it
        ("<p>{{ comment.body|e.upper }}</p>", set()),
        ("<script>show(a || e.message)</script>", set()),  # a script's or, not the filter
        ("<div>{{{ comment.body }}}</div>", {RAW_HTML}),
        ("{% autoescape false %}", {RAW_HTML}),
    ],
)
def test_a_template_filter_counts_only_after_its_bar_as_a_whole_word(line: str, constructs: set[str]) -> None:
    assert said(TEMPLATES.rules, line) == constructs


@pytest.mark.parametrize(
    ("line", "constructs"),
    [
        ("el.innerHTML = comment.body;", {RAW_HTML}),
        ("el.innerHTML += row;", {RAW_HTML}),
        ('el.innerHTML = "Loading";', set()),  # a constant writes no one's text
        ("if (el.innerHTML === before) return;", set()),  # a comparison
        ("el.textContent = escapeHtml(comment.body);", {ESCAPING}),
        ("<div dangerouslySetInnerHTML={{ __html: body }} />", {RAW_HTML}),
    ],
)
def test_a_javascript_sink_counts_when_assigned_what_is_not_a_constant(
    line: str, constructs: set[str]
) -> None:
    assert said(JAVASCRIPT_ESCAPING, line) == constructs


@pytest.mark.parametrize(
    ("rules", "line", "constructs"),
    [
        (PYTHON_ESCAPING, "return Markup(body)", {RAW_HTML}),
        (PYTHON_ESCAPING, "if value is Markup:", set()),
        (PYTHON_ESCAPING, "safe = escape(comment)", {ESCAPING}),
        (PYTHON_ESCAPING, "pattern = re.escape(term)", set()),
        (PHP.rules, "echo htmlspecialchars($name, ENT_QUOTES);", {ESCAPING}),
        (PHP.rules, "echo html_entity_decode($name);", {RAW_HTML}),
    ],
)
def test_escaping_and_raw_output_are_told_apart_per_ecosystem(
    rules: tuple[ContentRule, ...], line: str, constructs: set[str]
) -> None:
    assert said(rules, line) == constructs


def test_template_files_are_read_by_suffix_outside_built_trees() -> None:
    assert {".html", ".jinja2", ".vue", ".erb"} <= set(TEMPLATES.suffixes)
    assert ".py" not in TEMPLATES.suffixes
    assert "node_modules" in TEMPLATES.ignore_dirs
