"""The evaluation corpus (bench/corpus) and the tool that lists the paths its commits flag."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bench import corpus_paths
from bench.corpus_data import CORPUS, commits, load_fixes, load_labels, load_repos
from testing.gitrepo import commit_all, git, init_repo, write

_SHA = re.compile(r"[0-9a-f]{40}")


def test_the_committed_corpus_is_consistent() -> None:
    repos = load_repos()
    fixes = load_fixes()
    names = {repo.name for repo in repos}
    assert len(repos) >= 6
    assert len({repo.ecosystem for repo in repos}) >= 4
    assert all(_SHA.fullmatch(repo.head) and repo.ordinary > 0 for repo in repos)
    assert len([fix for fix in fixes if fix.kind == "code"]) >= 15
    assert all(fix.repo in names and _SHA.fullmatch(fix.commit) and fix.files for fix in fixes)
    assert len({(fix.repo, fix.commit) for fix in fixes}) == len(fixes)
    assert all(label.repo in names for label in load_labels().values())
    held_out = [repo for repo in repos if repo.split == "held-out"]
    assert len(held_out) >= 4 and len(held_out) < len(repos)


def _error_after_edit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, old: str, new: str
) -> str:
    """corpus_paths' error (exit status 2) on the test corpus with `old` replaced by `new` in file `name`."""
    head, fix = _history(tmp_path / "clones")
    corpus = _corpus(tmp_path / "corpus", head, fix, "")
    (corpus / name).write_text((corpus / name).read_text().replace(old, new))
    assert corpus_paths.main(["--clones", str(tmp_path / "clones"), "--corpus", str(corpus)]) == 2
    return capsys.readouterr().err


def test_a_repository_without_a_split_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _error_after_edit(tmp_path, capsys, "repos.toml", 'split = "tuning"\n', 'split = "later"\n')
    assert err == 'corpus_paths: repos.toml repo 1: \'split\' must be "tuning" or "held-out"\n'


def _corpus(folder: Path, head: str, fix: str, labels: str) -> Path:
    folder.mkdir()
    (folder / "repos.toml").write_text(
        f'[[repo]]\nname = "acme/web"\necosystem = "javascript"\nhead = "{head}"\nordinary = 3\n'
        'split = "tuning"\n'
    )
    (folder / "security.toml").write_text(
        f'[[fix]]\nrepo = "acme/web"\ncommit = "{fix}"\nadvisory = "CVE-0000-0001"\n'
        'summary = "session cookie not signed"\nfiles = ["lib/auth/session.js"]\n'
    )
    (folder / "labels.toml").write_text(labels)
    return folder


def _history(clones: Path) -> tuple[str, str]:
    """acme+web: a root commit, then package.json, the fix, a merge and a README change; (head, fix)."""
    repo = init_repo(clones / "acme+web", {"README.md": "web\n"})
    write(repo, {"package.json": "{}\n"})
    commit_all(repo, "manifest")
    git(repo, "checkout", "-q", "-b", "fix")
    write(repo, {"lib/auth/session.js": "sign()\n"})
    fix = commit_all(repo, "sign the session cookie")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge fix", "fix")
    write(repo, {"README.md": "web, signed\n"})
    return commit_all(repo, "docs"), fix


def test_ordinary_commits_are_the_last_non_merge_ones_without_the_fixes(tmp_path: Path) -> None:
    head, fix = _history(tmp_path / "clones")
    corpus = _corpus(tmp_path / "corpus", head, fix, "")
    listed = list(commits(tmp_path / "clones", load_repos(corpus), load_fixes(corpus)))
    # The last three non-merge commits are docs, the fix and the manifest; the fix is listed once, as a fix.
    assert sorted((c.paths, c.fix is not None) for c in listed) == [
        (("README.md",), False),
        (("lib/auth/session.js",), True),
        (("package.json",), False),
    ]
    assert listed[-1].fix is not None  # fixes come after the ordinary commits


def test_flagged_paths_without_a_label_are_listed_and_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head, fix = _history(tmp_path / "clones")
    label = '[[path]]\nrepo = "acme/web"\npath = "package.json"\ncategory = "architecture"\n'
    corpus = _corpus(tmp_path / "corpus", head, fix, label + 'judged = "right"\nwhy = "the manifest"\n')
    args = ["--clones", str(tmp_path / "clones"), "--corpus", str(corpus)]
    assert corpus_paths.main(args) == 1
    out = capsys.readouterr().out
    assert "right architecture acme/web             package.json" in out
    assert "fixes=CVE-0000-0001" in out
    assert "security: 1 flagged, 0 right, 0 wrong, 1 unlabelled (none judged)" in out
    assert corpus_paths.main([*args, "--unlabelled"]) == 1
    assert 'path = "lib/auth/session.js"\ncategory = "security"\njudged = ""' in capsys.readouterr().out


def test_a_bad_label_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head, fix = _history(tmp_path / "clones")
    label = '[[path]]\nrepo = "acme/web"\npath = "package.json"\ncategory = "architecture"\n'
    corpus = _corpus(tmp_path / "corpus", head, fix, label + 'judged = "maybe"\nwhy = "unsure"\n')
    assert corpus_paths.main(["--clones", str(tmp_path / "clones"), "--corpus", str(corpus)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "labels.toml path 1: category must be security|architecture, judged right|wrong" in err


def test_a_fix_naming_a_file_its_commit_does_not_touch_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _error_after_edit(tmp_path, capsys, "security.toml", "lib/auth/session.js", "lib/session.js")
    assert "(CVE-0000-0001) does not touch lib/session.js" in err
    assert err.startswith("corpus_paths: acme/web ")


def test_a_missing_clone_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert corpus_paths.main(["--clones", str(tmp_path), "--corpus", str(CORPUS)]) == 2
    assert "no clone of psf/requests under" in capsys.readouterr().err
