"""Dependency-line rules (`tiergate.tier.content.dependencies`), built for one manifest shape and run on
real lines: a family word found only as a whole word of the package's name, on a line of the manifest's
dependency shape, and named by its construct."""

from __future__ import annotations

import re

import pytest

from tiergate.tier.content.dependencies import ASIDE_DIRS, dependency_rules, manifest

# requirements.txt's shape: the name from the start of the line, then a version specifier.
SHAPE = (r"A-Za-z0-9._-", r"^", r"[ \t]*(?:==|>=|~=|<)")
RULES = dependency_rules(*SHAPE)


def constructs(line: str) -> set[str]:
    return {r.construct for r in RULES if re.search(r.pattern, line) and re.search(r.near, line)}


@pytest.mark.parametrize(
    ("line", "construct"),
    [
        ("cryptography==42.0.5", "crypto or TLS library"),
        ("tough-cookie>=4.1.3", "cookie, session or CSRF library"),
        ("toughCookie>=4.1.3", "cookie, session or CSRF library"),
        ("COOKIE_JAR==1.0", "cookie, session or CSRF library"),
        ("python-jose~=3.3", "token or authentication library"),
        ("h11<0.15", "network or HTTP protocol library"),
        ("requests-redirect==0.2", "redirect-following library"),
    ],
)
def test_a_package_named_for_a_security_construct_is_that_constructs_dependency(
    line: str, construct: str
) -> None:
    assert constructs(line) == {f"dependency on a {construct}"}


@pytest.mark.parametrize(
    "line",
    [
        "cookiecutter==2.6.0",  # the word inside a longer one
        "xcookie==1.0",
        "netaddr==1.3",
        "Sslyze==6.0",  # a capital followed by more lower case is one word
        "requests==2.32  # for the auth service",  # the word outside the package's name
        "cookie",  # no version: not the shape of a dependency line
    ],
)
def test_a_word_that_is_not_a_whole_word_of_the_package_name_is_no_dependency(line: str) -> None:
    assert constructs(line) == set()


def test_a_manifest_reads_only_its_named_files_outside_fixtures_and_built_trees() -> None:
    shape = (r"A-Za-z0-9._-", r"^", r"[ \t]*==")
    ecosystem = manifest("pip-requirements", ("requirements.txt",), SHAPE, shape)

    assert ecosystem.names == ("requirements.txt",)
    assert {"fixtures", "testdata", "examples", "node_modules"} <= set(ecosystem.ignore_dirs)
    assert ecosystem.ignore_dirs == ASIDE_DIRS
    assert len(ecosystem.rules) == 2 * len(RULES)
    assert ecosystem.comments == ("#", "//")
