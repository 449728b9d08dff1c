"""`tiergate replay` as a user runs it: a subprocess in a real git repository with a built history."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from testing.gitrepo import GIT_ENV, commit_all, git, init_repo, repo_fixture, write
from testing.tiergatecli import tiergate


def two_more_commits(repo: Path) -> None:
    write(repo, {"package.json": '{"name": "x"}\n'})
    commit_all(repo, "a manifest")
    write(repo, {"src/app.py": "x = 1\n"})
    commit_all(repo, "some code")


repo = repo_fixture({"README.md": "hi\n"}, then=two_more_commits)


def test_json_shape(repo: Path) -> None:
    result = tiergate(repo, "replay", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", "no progress bar when stderr is not a terminal"
    record = json.loads(result.stdout)
    assert set(record) == {"range", "first_parent", "commits", "summary"}
    assert (record["range"], record["first_parent"]) == ("HEAD", False)
    commits = record["commits"]
    assert [c["subject"] for c in commits] == ["some code", "a manifest", "initial"]
    assert [c["tier"] for c in commits] == ["STANDARD", "THOROUGH", "LIGHT"]
    code = commits[0]
    assert code["commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert code["parents"] == [git(repo, "rev-parse", "HEAD~1").strip()]
    assert code["base"] == code["parents"][0]
    assert (code["files_changed"], code["lines_changed"], code["test_coverage"]) == (1, 1, "none")
    assert code["tier_if_full_coverage"] == "LIGHT"
    assert (code["tier_without_content"], code["raised_by_content"]) == ("STANDARD", False)
    assert commits[1]["thorough_rules"] == ["architecture pattern '**/package.json'"]
    assert commits[1]["has_architectural_changes"] is True
    assert any("package.json" in reason for reason in commits[1]["reasons"])
    assert commits[2]["parents"] == []
    assert set(code) >= {"relative_cost", "coverage_evidence", "has_security_implications", "excluded"}
    summary = record["summary"]
    assert summary["commits"] == 3
    assert summary["tiers"] == {"LIGHT": 1, "STANDARD": 1, "THOROUGH": 1}
    assert (summary["relative_cost"], summary["always_thorough_cost"]) == (26, 60)
    assert summary["cost_ratio"] == round(26 / 60, 4)
    assert summary["thorough_reasons"] == [{"rule": "architecture pattern '**/package.json'", "commits": 1}]
    assert summary["raised_by_content"] == []
    assert summary["light_if_full_coverage"] == 2
    assert summary["coverage_rule"].startswith("past commits have no coverage data")


def test_text_report_and_costs_from_the_projects_config(repo: Path) -> None:
    write(repo, {"docs/use.md": "use it\n"})
    commit_all(repo, "docs")  # docs only, vacuously covered: LIGHT
    # The configuration in the work tree, not committed: replay judges history by today's rules.
    write(repo, {".tiergate.toml": "[costs]\nlight = 2\nstandard = 4\nthorough = 10\n"})
    result = tiergate(repo, "replay", "HEAD~2..HEAD")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("tiergate replay: 2 commits of HEAD~2..HEAD (merges skipped)")
    assert "\n  LIGHT    " in out and " docs\n" in out
    assert "Tier mix: LIGHT 1 (50%), STANDARD 1 (50%), THOROUGH 0 (0%)" in out
    assert "Relative cost: 6 against 20 for always-THOROUGH (30%; 3.0x a commit on average)" in out
    assert "LIGHT if the gate measured full coverage: 2 commits (tiered LIGHT here: 1)" in out
    assert "Raised by the content rules: 0 commits" in out


def test_max_count_and_first_parent(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, {"side.py": "y = 1\n"})
    commit_all(repo, "side work")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    plain = json.loads(tiergate(repo, "replay", "--json").stdout)
    assert {c["subject"] for c in plain["commits"]} == {"side work", "some code", "a manifest", "initial"}
    walked = json.loads(tiergate(repo, "replay", "--json", "--first-parent", "-n", "2").stdout)
    assert [c["subject"] for c in walked["commits"]] == ["merge side", "some code"]
    assert walked["commits"][0]["files_changed"] == 1
    assert walked["first_parent"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nosuch",), "tiergate: bad revision range 'nosuch': git knows no such revisions in"),
        (("HEAD..HEAD",), "tiergate: no commits to replay in 'HEAD..HEAD' (merges skipped)"),
        (("--", "-x"), "tiergate: bad revision range '-x'"),
    ],
)
def test_errors_are_one_line_and_exit_2(repo: Path, args: tuple[str, ...], message: str) -> None:
    result = tiergate(repo, "replay", "--json", *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(message), result.stderr
    assert result.stderr.count("\n") == 1


def test_outside_a_repository_and_in_an_empty_one(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    result = tiergate(tmp_path / "plain", "replay")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("tiergate: not a git repository")
    empty = init_repo(tmp_path / "empty")
    result = tiergate(empty, "replay")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"tiergate: no commits to replay in {empty}: the branch has none yet\n"


def test_a_shallow_clone_is_refused(repo: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{repo}", str(clone))
    result = tiergate(clone, "replay")
    assert (result.returncode, result.stdout) == (2, "")
    assert "edge of a shallow clone" in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_progress_bar_on_a_terminal_only(repo: Path) -> None:
    """stderr on a pseudo-terminal gets the bar (and erases it); stdout, a pipe, gets the report alone."""
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "TIERGATE_STATE_DIR")}
    proc = subprocess.run(
        [sys.executable, "-m", "tiergate", "replay", "--json"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=follower,
        env={**env, **GIT_ENV},
        timeout=60,
        check=False,
    )
    os.close(follower)
    shown = os.read(leader, 4096).decode()
    os.close(leader)
    assert proc.returncode == 0
    assert "tiergate replay [" in shown and "3/3" in shown
    assert shown.endswith("\r\x1b[K")
    assert json.loads(proc.stdout)["summary"]["commits"] == 3


def test_commits_the_content_rules_raised(repo: Path) -> None:
    write(
        repo,
        {"src/fetch.py": "import requests\n\ndef get(url):\n    return requests.get(url, verify=False)\n"},
    )
    raised = commit_all(repo, "fetch without TLS checks")
    record = json.loads(tiergate(repo, "replay", "--json").stdout)
    top = record["commits"][0]
    assert (top["commit"], top["tier"], top["tier_without_content"]) == (raised, "THOROUGH", "STANDARD")
    assert top["raised_by_content"] is True
    assert top["content_hits"] == [
        'src/fetch.py:4 (added line) TLS verification switch: "return requests.get(url, verify=False)"'
    ]
    assert top["thorough_rules"] == ["security construct: TLS verification switch"]
    assert record["summary"]["raised_by_content"] == [raised]
    text = tiergate(repo, "replay").stdout
    assert "Raised by the content rules: 1 commit\n" in text
    assert (
        f"    {raised[:12]}  STANDARD -> THOROUGH  fetch without TLS checks: src/fetch.py:4 (added line)"
        in text
    )
    # Turned off in the work tree's configuration: the same history, tiered by its paths alone.
    write(repo, {".tiergate.toml": "[risk]\ncontent = false\n"})
    off = json.loads(tiergate(repo, "replay", "--json").stdout)
    assert (off["commits"][0]["tier"], off["commits"][0]["content_hits"]) == ("STANDARD", [])
    assert off["summary"]["raised_by_content"] == []


def test_each_tier_is_what_tiergate_tier_says_on_a_checkout(repo: Path, tmp_path: Path) -> None:
    write(
        repo,
        {"src/fetch.py": "import requests\n\ndef get(url):\n    return requests.get(url, verify=False)\n"},
    )
    commit_all(repo, "content")
    git(repo, "mv", "src/app.py", "src/main.py")
    commit_all(repo, "rename")
    record = json.loads(tiergate(repo, "replay", "--json").stdout)
    for commit in record["commits"]:
        checkout = tmp_path / commit["commit"][:12]
        git(repo, "worktree", "add", "-q", "--detach", str(checkout), commit["commit"])
        claim = json.loads(tiergate(checkout, "tier", "--json", "--base", commit["base"]).stdout)
        assert (commit["tier"], commit["files_changed"], commit["lines_changed"]) == (
            claim["tier"],
            claim["files_changed"],
            claim["lines_changed"],
        ), commit["subject"]
        assert commit["has_security_implications"] == claim["has_security_implications"]
        assert commit["has_architectural_changes"] == claim["has_architectural_changes"]


def test_a_clone_missing_objects_is_one_line_too(repo: Path) -> None:
    blob = git(repo, "rev-parse", "HEAD:src/app.py").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    result = tiergate(repo, "replay")
    assert (result.returncode, result.stdout) == (2, "")
    assert "the clone lacks objects these commits need" in result.stderr
    assert result.stderr.count("\n") == 1
