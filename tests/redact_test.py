from __future__ import annotations

import re

import pytest

from tiergate.redact import PATTERNS, Pattern, redact, redact_data

# Made-up credentials in each provider's format (none is real).
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GHP = "ghp_" + "a1B2c3D4" * 4 + "e5F6"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7y\nZm9vYmFy+/==\n-----END RSA PRIVATE KEY-----"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

SECRETS = [
    # (text, the secret in it, the marker that replaces it, what is kept before the marker)
    (f"key {AWS_ID} used", AWS_ID, "[redacted: aws access key id]", "AKIA"),
    ("ASIA" + "Y34FZKBOKMUTVV7A", "ASIA" + "Y34FZKBOKMUTVV7A", "[redacted: aws access key id]", "ASIA"),
    (
        f"aws_secret_access_key = {AWS_SECRET}",
        AWS_SECRET,
        "[redacted: aws secret]",
        "aws_secret_access_key = ",
    ),
    (f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET, "[redacted: aws secret]", "AWS_SECRET_ACCESS_KEY="),
    (f"token {GHP}!", GHP[4:], "[redacted: github token]", "ghp_"),
    ("gho_" + "Z" * 36, "Z" * 36, "[redacted: github token]", "gho_"),
    ("ghs_" + "0a" * 18, "0a" * 18, "[redacted: github token]", "ghs_"),
    ("github_pat_11ABCDEFG0" + "x" * 40, "x" * 40, "[redacted: github token]", "github_pat_"),
    ("glpat-" + "Ab1_" * 5, "Ab1_" * 5, "[redacted: gitlab token]", "glpat-"),
    ("xoxb-1234567890-abcdefABCDEF", "1234567890-abcdefABCDEF", "[redacted: slack token]", "xoxb-"),
    (
        "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
        "4eC39HqLyjWDarjtT1zdp7dc",
        "[redacted: stripe key]",
        "sk_live_",
    ),
    (
        "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
        "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
        "[redacted: google api key]",
        "AIza",
    ),
    ("sk-ant-api03-" + "Qw9" * 10, "api03-" + "Qw9" * 10, "[redacted: anthropic key]", "sk-ant-"),
    ("OPENAI=sk-proj-" + "aB3" * 10, "proj-" + "aB3" * 10, "[redacted: api key]", "sk-"),
    (f"Authorization: Bearer {JWT}", JWT, "[redacted: jwt]", ""),
    (f"key:\n{PEM}\ndone", "MIIEowIBAAKCAQEA7y", "[redacted: private key]", ""),
    (
        "postgres://admin:hunter2pass@db.example.com/app",
        "hunter2pass",
        "[redacted: password]",
        "postgres://admin:",
    ),
    ('"password": "Tr0ub4dor&3xyz"', "Tr0ub4dor&3xyz", "[redacted: secret]", '"password": "'),
    ("GITHUB_TOKEN=abcdef0123456789", "abcdef0123456789", "[redacted: secret]", "GITHUB_TOKEN="),
    ("secret = correct-horse-battery", "correct-horse-battery", "[redacted: secret]", "secret = "),
]

LOOK_ALIKES = [
    "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "assert b64 == 'U29tZSBiYXNlNjQgdGVzdCBkYXRhIHRoYXQgaXMgbm90IGEgc2VjcmV0IGF0IGFsbA=='",
    "the password must be at least 12 characters long",
    "password: required",
    "token: expected string",
    "max_tokens=100000000000000",
    "see https://example.com:8080/path@v2 and git@github.com:owner/repo.git",
    "pip install scikit-learn; sk-learn-compatible-estimators-are-fine",
    "task-1234567890abcdefghijklmn",
    "MAKIAIOSFODNN7EXAMPLE1 is a longer id",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "eyJhbGciOiJIUzI1NiJ9 alone is a base64 header, not a token",
]


@pytest.mark.parametrize(("text", "secret", "marker", "kept"), SECRETS)
def test_each_kind_of_credential_is_redacted_keeping_only_a_harmless_prefix(
    text: str, secret: str, marker: str, kept: str
) -> None:
    redacted = redact(text)
    assert secret not in redacted
    assert kept + marker in redacted


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_left_as_they_are(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(("text", "secret", "marker", "kept"), SECRETS)
def test_redacting_twice_changes_nothing_more(text: str, secret: str, marker: str, kept: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_a_private_key_cut_short_is_redacted_to_where_its_body_ends() -> None:
    text = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n(cut) next line"
    assert redact(text) == "[redacted: private key](cut) next line"


def test_a_private_key_shown_escaped_in_a_repr_is_redacted() -> None:
    text = repr(PEM)
    assert "MIIEowIBAAKCAQEA7y" not in redact(text)


def test_the_rest_of_a_line_stays() -> None:
    assert redact(f"E   AssertionError: bad {AWS_ID} in env") == (
        "E   AssertionError: bad AKIA[redacted: aws access key id] in env"
    )


def test_redact_data_walks_records_and_leaves_other_values() -> None:
    record = {"reasons": [f"check failed: {GHP}"], "iteration": 3, "nested": {"out": (AWS_ID,)}, "ok": None}
    assert redact_data(record) == {
        "reasons": ["check failed: ghp_[redacted: github token]"],
        "iteration": 3,
        "nested": {"out": ["AKIA[redacted: aws access key id]"]},
        "ok": None,
    }


def test_a_megabyte_of_check_output_is_searched_only_for_the_credentials_whose_needles_it_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [f"tests/test_{i}.py::test_case_{i} PASSED sha {i:040x} token: expected" for i in range(12_000)]
    lines[6000] = f"E   leaked {AWS_ID} aws_secret_access_key={AWS_SECRET} {GHP}"
    text = "\n".join(lines)[:1_000_000]
    searched: list[str] = []
    real = Pattern.regex

    def regex(pattern: Pattern, needle: str) -> re.Pattern[str]:
        searched.append(needle)
        return real(pattern, needle)

    monkeypatch.setattr(Pattern, "regex", regex)
    redacted = redact(text)
    assert AWS_SECRET not in redacted and GHP not in redacted
    # What keeps a megabyte within the hook's budget: an expression is searched only in a text holding
    # its literal needle (a plain substring test), and each starts with that needle, so that `re` finds its
    # candidates as fast as `str.find` would (a leading class or `\b` is tried at every position).
    assert sorted(searched) == sorted(
        needle for pattern in PATTERNS for needle in pattern.needles if needle in text
    )
    for pattern in PATTERNS:
        for needle in pattern.needles:
            assert real(pattern, needle).pattern.lstrip("(").startswith(re.escape(needle)), needle
