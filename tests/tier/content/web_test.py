"""The rules several ecosystems share (`tiergate.tier.content.web`), run on real lines: header names only
when quoted as written or lower-cased, a URL's credentials cut at its '@', and nested quantifiers."""

from __future__ import annotations

import re

import pytest

from tiergate.tier.content.rule import ContentRule
from tiergate.tier.content.web import (
    COOKIE_HEADERS,
    CREDENTIAL_HEADERS,
    FORWARDED_HEADERS,
    NESTED_QUANTIFIERS,
    spellings,
    userinfo_splits,
)


def matches(rules: tuple[ContentRule, ...], line: str) -> bool:
    return any(re.search(rule.pattern, line) for rule in rules)


def test_a_header_name_is_spelt_as_written_and_lower_cased_once_each() -> None:
    assert len(spellings("Set-Cookie", "x-real-ip")) == 3
    assert all(re.search(p, "'x-real-ip'") is None for p in spellings("Set-Cookie"))


@pytest.mark.parametrize(
    ("rules", "line", "found"),
    [
        (CREDENTIAL_HEADERS, 'headers["Authorization"] = f"Bearer {token}"', True),
        (CREDENTIAL_HEADERS, "request.headers.get('cookie')", True),
        (CREDENTIAL_HEADERS, 'headers["AUTHORIZATION"] = token', False),  # neither as written nor lower
        (CREDENTIAL_HEADERS, "# the Authorization header is checked upstream", False),  # not quoted
        (CREDENTIAL_HEADERS, 'response.headers["Set-Cookie"] = value', False),  # another header
        (COOKIE_HEADERS, 'response.headers["Set-Cookie"] = value', True),
        (FORWARDED_HEADERS, "ip = request.headers.get('X-Forwarded-For', remote)", True),
        (FORWARDED_HEADERS, "ip = request.headers.get('X-Forwarded-Proto')", False),
    ],
)
def test_a_header_is_found_only_as_a_quoted_name(
    rules: tuple[ContentRule, ...], line: str, found: bool
) -> None:
    assert matches(rules, line) is found


def test_a_url_cut_at_its_at_sign_is_found_with_either_quote() -> None:
    splits = userinfo_splits("rpartition", "lastIndexOf")

    assert {rule.construct for rule in splits} == {"credentials in a URL (userinfo)"}
    assert matches(splits, 'userinfo, _, host = netloc.rpartition("@")')
    assert matches(splits, "const at = authority.lastIndexOf( '@');")
    assert not matches(splits, 'host, _, port = netloc.rpartition(":")')
    assert not matches(splits, 'name, _, domain = email.partition("@")')


@pytest.mark.parametrize(
    ("line", "found"),
    [
        (r'EMAIL = re.compile(r"^([a-z0-9]+)*@")', True),
        (r"const ws = /(\s*x*)*$/;", True),
        (r're.compile(r"(a+)+$")', True),
        (r're.compile(r"(ab)+c*")', False),
        (r're.compile(r"[a-z]+\d*")', False),
    ],
)
def test_a_repeated_group_holding_a_repeated_item_is_open_to_backtracking(line: str, found: bool) -> None:
    assert matches(NESTED_QUANTIFIERS, line) is found
