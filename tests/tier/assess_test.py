"""Content rules through `assess_change` on real git repositories: tracked edits (the -U0 diff), added
and removed lines, `[risk]` settings, and the configuration's errors. Which lines are read:
changedlines_test.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, init_repo, repo_fixture, write

from tiergate.config.settings import validate_table
from tiergate.errors import UserError
from tiergate.tier.assess import assess_change

CHECKED = "ctx.verify_mode = ssl.CERT_REQUIRED\n"
BASE = {"app/client.py": "def fetch(s, url):\n    return s.get(url)\n", "README.md": "hi\n"}


repo = repo_fixture(BASE)


def test_a_tracked_edit_with_a_risky_line_is_thorough_naming_the_line(repo: Path) -> None:
    root = repo
    write(
        root,
        {"app/client.py": "def fetch(s, url):\n    s.headers.pop('Authorization')\n    return s.get(url)\n"},
    )

    result = assess_change(root)

    assert result.decision.tier == "THOROUGH" and result.decision.facts.has_security_implications
    assert [(h.path, h.line, h.side, h.construct) for h in result.content] == [
        ("app/client.py", 2, "added", "credential header")
    ]
    assert "security-floor: app/client.py:2 (added line) credential header" in result.decision.reasons[0]


def test_a_removed_line_counts_and_an_ordinary_edit_does_not(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"net.py": f"import ssl\n{CHECKED}x = 1\n"})
    write(root, {"net.py": "import ssl\nx = 2\n"})

    removed = assess_change(root)

    assert [(h.line, h.side) for h in removed.content] == [(2, "removed")]
    write(root, {"net.py": f"import ssl\n{CHECKED}x = 3\n"})
    assert assess_change(root).content == ()
    assert assess_change(root).decision.tier == "STANDARD"


def test_content_rules_off_and_user_rules_from_the_configuration(repo: Path) -> None:
    root = repo
    write(root, {"app/client.py": "def fetch(s, url):\n    return s.get(url, verify=False)\n"})
    commit_all(root, "insecure")
    write(root, {"app/client.py": "def fetch(s, url):\n    return charge_card(s.get(url, verify=False))\n"})

    off = validate_table(".tiergate.toml", {"risk": {"content": False}})
    assert assess_change(root, config=off).content_searched is False
    assert assess_change(root, config=off).decision.tier == "STANDARD"

    rule = {"construct": "billing call", "pattern": r"charge_card\(", "ecosystems": ["python"]}
    mine = validate_table(".tiergate.toml", {"risk": {"rules": [rule]}})
    assert {h.construct for h in assess_change(root, config=mine).content} == {
        "billing call",
        "TLS verification switch",
    }
    architecture = validate_table(
        ".tiergate.toml", {"risk": {"rules": [{**rule, "category": "architecture"}]}}
    )
    facts = assess_change(root, config=architecture).decision.facts
    assert facts.has_architectural_changes
    assert any("app/client.py:2 (added line) billing call" in e for e in facts.architecture_evidence)


@pytest.mark.parametrize(
    ("rule", "error"),
    [
        (
            {"construct": "x", "pattern": "a("},
            ".tiergate.toml: risk.rules.0.pattern: not a regular expression: missing ), unterminated "
            "subpattern at position 1 (got 'a(')",
        ),
        (
            {"construct": "x", "pattern": "ab", "ecosystems": ["cobol"]},
            ".tiergate.toml: risk.rules.0.ecosystems: unknown ecosystem 'cobol' (known: common, python, "
            "javascript, go, rust, python-requirements, npm-manifest, go-modules, cargo-manifest, "
            "html-templates, ruby, php, java, checkconfig, checkruns, ci, python-tests, javascript-tests, "
            "pytest-hooks, python-test-infra, javascript-test-infra, outwitting, reaching) (got ['cobol'])",
        ),
        (
            {"construct": "x", "pattern": "x*"},
            ".tiergate.toml: risk.rules.0.pattern: matches an empty line, so every line (got 'x*')",
        ),
        ({"pattern": "ab"}, ".tiergate.toml: risk.rules.0.construct: Field required"),
    ],
)
def test_a_bad_rule_is_a_one_line_error_naming_the_file_and_key(rule: dict[str, object], error: str) -> None:
    with pytest.raises(UserError) as caught:
        validate_table(".tiergate.toml", {"risk": {"rules": [rule]}})
    assert str(caught.value) == error


def test_tier_shows_the_hits_in_the_summary_explain_and_json(repo: Path) -> None:
    from testing.tiergatecli import tiergate

    root = repo
    write(root, {"app/client.py": "def fetch(s, url):\n    return s.get(url, verify=False)\n"})

    summary = tiergate(root, "tier").stdout
    explained = tiergate(root, "tier", "--explain").stdout
    record = json.loads(tiergate(root, "tier", "--json").stdout)

    reason = 'app/client.py:2 (added line) TLS verification switch: "return s.get(url, verify=False)"'
    assert summary.startswith("THOROUGH") and reason in summary
    assert f"Risky constructs in the changed lines: 1 hit:\n    security: {reason}\n" in explained
    assert record["content_hits"] == [
        {
            "path": "app/client.py",
            "line": 2,
            "side": "added",
            "construct": "TLS verification switch",
            "category": "security",
        }
    ]
    write(root, {".tiergate.toml": "[risk]\ncontent = false\n"})
    git(root, "add", ".tiergate.toml")
    git(root, "commit", "-qm", "content rules off")  # the risky edit stays uncommitted
    explained = tiergate(root, "tier", "--explain").stdout
    assert explained.startswith("Tier: STANDARD") and "+1 -1" in explained
    assert "Risky constructs in the changed lines: not searched ([risk] content = false)" in explained
    assert json.loads(tiergate(root, "tier", "--json").stdout)["content_hits"] is None
