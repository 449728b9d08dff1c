"""`tiergate tier` as a user runs it: a subprocess in a real git repository."""

from __future__ import annotations

import json
import re
from pathlib import Path

from testing.gitrepo import commit_all, git, init_repo, repo_fixture, write
from testing.tiergatecli import tiergate

repo = repo_fixture({"src/app.py": "def f():\n    return 1\n", "README.md": "hi\n"})


def test_json_of_a_small_change(repo: Path) -> None:
    write(repo, {"src/app.py": "def f():\n    return 2\n"})
    result = tiergate(repo, "tier", "--json", "--coverage", "full")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["tier"] == "LIGHT"
    assert record["agent"] == "tiergate:architect-low"
    assert record["model"] == "haiku"
    assert record["files_changed"] == 1
    assert record["lines_changed"] == 2
    assert record["test_coverage"] == "full"
    assert record["base"] == git(repo, "rev-parse", "HEAD").strip()
    assert record["has_security_implications"] is False
    assert record["reasons"][0].startswith("small-and-tested: 1 file < 5, 2 lines < 100")


def test_security_path_is_thorough_whatever_the_prompt_says(repo: Path) -> None:
    write(repo, {"auth/login.py": "def login():\n    return True\n"})
    result = tiergate(repo, "tier", "--json", "--coverage", "full", "--prompt", "a quick fix")
    record = json.loads(result.stdout)
    assert record["tier"] == "THOROUGH"
    assert record["model"] == "opus"
    assert record["has_security_implications"] is True
    assert any("auth/login.py" in reason for reason in record["reasons"])
    assert record["reasons"][-1].startswith("keyword-light: 'quick'")


def test_base_option_measures_committed_work_too(repo: Path) -> None:
    start = git(repo, "rev-parse", "HEAD").strip()
    for i in range(3):
        write(repo, {f"src/m{i}.py": "x = 1\n" * 10})
        commit_all(repo, f"m{i}")
    write(repo, {"src/m9.py": "y = 2\n"})  # untracked
    record = json.loads(tiergate(repo, "tier", "--json", "--base", start).stdout)
    assert record["files_changed"] == 4
    assert record["lines_changed"] == 31
    assert record["base"] == start
    head_only = json.loads(tiergate(repo, "tier", "--json").stdout)
    assert head_only["files_changed"] == 1


def test_explain_is_for_a_person(repo: Path) -> None:
    write(repo, {"package.json": '{"name": "x"}\n', "src/app.py": "def f():\n    return 3\n"})
    result = tiergate(repo, "tier", "--explain", "--prompt", "please be careful")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Tier: THOROUGH: tiergate:architect on opus" in out
    assert "Architecture paths: package.json matches architecture pattern" in out
    assert "Override keyword: 'careful' asks for THOROUGH" in out
    assert "The verifier must bring:" in out
    assert "full architect review" in out


def test_plain_output_is_a_short_summary(repo: Path) -> None:
    write(repo, {"src/app.py": "def f():\n    return 4\n"})
    result = tiergate(repo, "tier", "--coverage", "partial")
    first = result.stdout.splitlines()[0]
    assert first.startswith("STANDARD  tiergate:architect-medium on sonnet  (1 file, 2 lines")


def test_outside_git_is_one_clear_line(tmp_path: Path) -> None:
    result = tiergate(tmp_path, "tier")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("tiergate: not a git repository")
    assert len(result.stderr.strip().splitlines()) == 1


def test_unknown_base_is_one_clear_line(repo: Path) -> None:
    result = tiergate(repo, "tier", "--base", "no-such-rev")
    assert result.returncode == 2
    assert "no-such-rev" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_broken_config_is_one_clear_line(repo: Path) -> None:
    (repo / ".tiergate.toml").write_text("[tiers]\nlight_files_below = 'x'\n")
    result = tiergate(repo, "tier")
    assert result.returncode == 2
    assert result.stderr.startswith("tiergate: .tiergate.toml: tiers.light_files_below: ")
    assert len(result.stderr.strip().splitlines()) == 1


def test_config_thresholds_apply(repo: Path) -> None:
    (repo / ".tiergate.toml").write_text("[tiers]\nthorough_files_above = 1\n")
    commit_all(repo, "config")
    write(repo, {"src/a.py": "a = 1\n", "src/b.py": "b = 1\n"})
    assert json.loads(tiergate(repo, "tier", "--json").stdout)["tier"] == "THOROUGH"


def test_batch_answers_every_line_in_order(tmp_path: Path) -> None:
    lines = [
        {"files": ["src/a.ts", "src/b.ts"], "lines_changed": 50, "test_coverage": "full"},
        {"files": ["src/auth/token.ts"], "lines_changed": 5, "test_coverage": "full", "prompt": "quick"},
        "not json",
        {
            "files_changed": 25,
            "lines_changed": 10,
            "has_architectural_changes": False,
            "has_security_implications": False,
            "test_coverage": "full",
        },
        {
            "files_changed": 2,
            "lines_changed": "many",
            "has_architectural_changes": False,
            "has_security_implications": False,
            "test_coverage": "full",
        },
        {"files": ["x.py"], "lines_changed": 1, "test_coverage": "complete"},
        [1, 2],
        {
            "files_changed": 10,
            "lines_changed": 200,
            "has_architectural_changes": False,
            "has_security_implications": False,
            "test_coverage": "partial",
            "prompt": "be careful",
        },
        {"files": [], "lines_changed": 0, "test_coverage": "full"},
        {"files_changed": 1, "lines_changed": 1, "test_coverage": "full"},
    ]
    stdin = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    result = tiergate(tmp_path, "tier", "--batch", stdin=stdin)
    assert result.returncode == 0, result.stderr
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(out) == len(lines)
    assert out[0]["tier"] == "LIGHT"
    assert out[1]["tier"] == "THOROUGH"
    assert out[1]["has_security_implications"] is True
    assert any("src/auth/token.ts" in reason for reason in out[1]["reasons"])
    assert out[2] == {"error": out[2]["error"]}
    assert out[2]["error"].startswith("line 3: not JSON")
    assert out[3]["tier"] == "THOROUGH"
    assert out[4]["error"].startswith("line 5: lines_changed:")
    assert out[5]["error"].startswith("line 6: test_coverage:")
    assert out[6]["error"] == "line 7: expected a JSON object"
    assert out[7]["tier"] == "THOROUGH"
    assert out[8]["tier"] == "LIGHT"
    assert "line 10: " in out[9]["error"]
    assert "has_architectural_changes" in out[9]["error"]
    for record in out:
        if "error" not in record:
            assert {
                "tier",
                "agent",
                "model",
                "evidence_required",
                "has_architectural_changes",
                "has_security_implications",
                "reasons",
            } <= record.keys()


def test_default_base_is_the_loops_start(repo: Path) -> None:
    start = git(repo, "rev-parse", "HEAD").strip()
    started = tiergate(repo, "ralph", "start", "add a feature")
    assert started.returncode == 0, started.stderr
    write(repo, {"src/feature.py": "x = 1\n"})
    commit_all(repo, "feature")
    write(repo, {"src/more.py": "y = 1\n"})
    record = json.loads(tiergate(repo, "tier", "--json").stdout)
    assert record["base"] == start
    assert record["files_changed"] == 2
    explicit = json.loads(tiergate(repo, "tier", "--json", "--base", "HEAD").stdout)
    assert explicit["files_changed"] == 1


def since_line(repo: Path, *args: str) -> str:
    result = tiergate(repo, "tier", "--explain", *args)
    assert result.returncode == 0, result.stderr
    return next(line for line in result.stdout.splitlines() if line.startswith("The change since "))


def test_explain_names_a_given_sha_once_and_head_with_its_short_id(repo: Path) -> None:
    write(repo, {"src/app.py": "def f():\n    return 5\n"})
    sha = git(repo, "rev-parse", "HEAD").strip()
    assert since_line(repo, "--base", sha) == (
        f"The change since {sha[:12]}, working tree and untracked files included:"
    )
    assert (
        since_line(repo) == f"The change since HEAD ({sha[:12]}), working tree and untracked files included:"
    )


def test_explain_in_a_repository_without_commits_says_empty_tree_not_head(tmp_path: Path) -> None:
    fresh = init_repo(tmp_path / "fresh")  # no files: no commit
    write(fresh, {"app.py": "print(1)\n"})
    line = since_line(fresh)
    assert line.startswith("The change since the empty tree (no commit yet, so every file is new)")
    assert "HEAD" not in line and "4b825dc642cb" not in line


def test_explain_names_the_loops_base_when_a_loop_decides_it(repo: Path) -> None:
    assert tiergate(repo, "ralph", "start", "a task").returncode == 0
    write(repo, {"src/app.py": "def f():\n    return 6\n"})
    # (What the loop's base is, a commit or a snapshot of a dirty workspace, is the loop's business.)
    assert re.fullmatch(
        r"The change since the loop's base \([0-9a-f]{12}\), working tree and untracked files included:",
        since_line(repo),
    )


def test_explain_names_the_workflows_judged_by_their_lines(repo: Path) -> None:
    workflow = "name: CI\non: [push]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
    write(repo, {".github/workflows/ci.yml": workflow + "      - uses: actions/checkout@v3\n"})
    commit_all(repo, "ci")
    write(repo, {".github/workflows/ci.yml": workflow + "      - uses: actions/checkout@v4\n"})
    out = tiergate(repo, "tier", "--explain").stdout
    assert "Judged by their changed lines, not their path: 1 CI workflow: .github/workflows/ci.yml" in out
    assert "Tier: THOROUGH" not in out
