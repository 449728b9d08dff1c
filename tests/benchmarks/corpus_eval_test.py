"""bench/corpus_eval.py on a corpus of its own: one built repository, two fixes, three labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench import corpus_eval
from testing.gitrepo import commit_all, git, init_repo, write


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    clones = tmp_path / "clones"
    repo = init_repo(clones / "octo+lib", {"README.md": "hi\n", "lib/core.py": "x = 1\n"})
    ids = {}
    write(repo, {"package.json": "{}\n"})
    ids["manifest"] = commit_all(repo, "manifest")  # ordinary, THOROUGH
    write(repo, {"lib/core.py": "x = 2\n"})
    ids["plain"] = commit_all(repo, "plain edit")  # ordinary, STANDARD
    write(repo, {"lib/auth/login.py": "def login():\n    return 1\n"})
    ids["fix-caught"] = commit_all(repo, "fix in auth")
    write(repo, {"lib/core.py": "x = 3\n"})
    ids["fix-missed"] = commit_all(repo, "fix in plain code")
    head = git(repo, "rev-parse", "HEAD").strip()
    # A second repository, held out: a root commit and one plain edit, no fixes.
    other = init_repo(clones / "octo+app", {"app.py": "y = 1\n"})
    write(other, {"app.py": "y = 2\n"})
    other_head = commit_all(other, "plain edit")
    data = tmp_path / "corpus"
    write(
        data,
        {
            "repos.toml": (
                f'[[repo]]\nname = "octo/lib"\necosystem = "python"\nhead = "{head}"\nordinary = 10\n'
                'split = "tuning"\n'
                f'[[repo]]\nname = "octo/app"\necosystem = "python"\nhead = "{other_head}"\nordinary = 10\n'
                'split = "held-out"\n'
            ),
            "security.toml": "".join(
                f'[[fix]]\nrepo = "octo/lib"\ncommit = "{ids[name]}"\nadvisory = "CVE-{n}"\n'
                f'summary = "s"\nfiles = ["{path}"]\n'
                for n, (name, path) in enumerate(
                    (("fix-caught", "lib/auth/login.py"), ("fix-missed", "lib/core.py"))
                )
            ),
            "labels.toml": (
                '[[path]]\nrepo = "octo/lib"\npath = "package.json"\ncategory = "architecture"\n'
                'judged = "right"\nwhy = "the manifest"\n'
                '[[path]]\nrepo = "octo/lib"\npath = "elsewhere.py"\ncategory = "security"\n'
                'judged = "wrong"\nwhy = "not flagged: does not count"\n'
            ),
        },
    )
    return clones, data, ids


def test_the_figures(corpus: tuple[Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str]) -> None:
    clones, data, ids = corpus
    assert corpus_eval.main(["--clones", str(clones), "--corpus", str(data), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["fixes"] == {"count": 1, "of": 2, "percent": 50.0}
    assert [m["commit"] for m in found["missed_fixes"]] == [ids["fix-missed"]]
    assert found["missed_fixes"][0]["tier"] == "STANDARD"
    # Ordinary: the root, the manifest and the plain edit (the last 10 non-merge commits, minus fixes),
    # and the held-out repository's two.
    assert found["ordinary_thorough"] == {"count": 1, "of": 5, "percent": 20.0}
    assert found["paths_right"] == {"count": 1, "of": 1, "percent": 100.0}
    assert found["flagged_paths"] == 2
    assert found["unlabelled"] == [
        {"repo": "octo/lib", "path": "lib/auth/login.py", "category": "security", "rule": "**/auth/**"}
    ]
    tuning, held_out = found["splits"]["tuning"], found["splits"]["held-out"]
    assert tuning["ordinary_thorough"] == {"count": 1, "of": 3, "percent": 33.3}
    assert tuning["fixes"] == found["fixes"]
    assert held_out["ordinary_thorough"] == {"count": 0, "of": 2, "percent": 0.0}
    assert held_out["fixes"] == {"count": 0, "of": 0, "percent": 0.0}
    assert [r["repo"] for r in held_out["repos"]] == ["octo/app"]
    repo, _ = found["repos"]
    assert (repo["ordinary"], repo["tiers"]) == (3, {"LIGHT": 0, "STANDARD": 2, "THOROUGH": 1})
    assert repo["cost_ratio"] == round((5 + 5 + 20) / 60, 4)
    assert (repo["fixes_caught"], repo["fixes"]) == (1, 2)


def test_the_report_and_a_missing_clone(
    corpus: tuple[Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    clones, data, ids = corpus
    assert corpus_eval.main(["--clones", str(clones), "--corpus", str(data)]) == 0
    out = capsys.readouterr().out
    assert "Security fixes THOROUGH with a security reason: 1/2 (50.0%)" in out
    header, fixes_row = out.splitlines()[:2]
    assert header.split()[-3:] == ["tuning", "held-out", "goal"]
    assert fixes_row.split()[-5:] == ["(50.0%)", "0/0", "(0.0%)", ">=", "85%"]
    assert "== held-out: octo/app" in out
    assert "Ordinary commits THOROUGH: 0/2 (0.0%)" in out
    assert f"  missed: octo/lib {ids['fix-missed'][:12]} CVE-1 (code) STANDARD" in out
    assert "Ordinary commits THOROUGH: 1/3 (33.3%)" in out
    assert "  octo/lib" in out
    assert corpus_eval.main(["--clones", str(tmp_path / "none"), "--corpus", str(data)]) == 2
    assert capsys.readouterr().err.startswith("corpus_eval: no clone of octo/lib under")
