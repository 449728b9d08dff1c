"""bench/paths_flagged.py on a throw-away bare clone: what it lists and leaves out, the share judged right."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench import paths_flagged
from testing.gitrepo import commit_all, git, init_repo, write


@pytest.fixture
def mirror(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "acme+shop", {"src/app.py": "x\n", "package.json": "{}\n"})
    write(repo, {"src/auth/login.py": "y\n", "tests/fixtures/app/package.json": "{}\n"})
    commit_all(repo, "login")
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, {"Dockerfile": "FROM scratch\n"})
    commit_all(repo, "docker on a side branch")
    git(repo, "checkout", "-q", "main")
    write(repo, {"README.md": "hi\n"})
    commit_all(repo, "readme")
    git(repo, "merge", "-q", "--no-ff", "side", "-m", "merge side")
    bare = tmp_path / "mirrors" / "acme+shop" / "repo"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    return bare


def test_lists_the_flagged_paths_of_the_last_commits_with_their_rule(
    mirror: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert paths_flagged.main([str(mirror), "--commits", "2", "--tsv"]) == 0
    out, summary = capsys.readouterr()
    # the last two non-merge commits: the side branch's Dockerfile and the readme; the merge is skipped
    assert out.splitlines() == ["acme/shop\tarchitecture\tDockerfile\t**/Dockerfile*"]
    assert "# acme/shop: 2 paths, 1 flagged (security 0, architecture 1)" in summary


def test_every_commit_when_asked_and_the_share_judged_right(
    mirror: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.tsv"
    labels.write_text(
        "# repository\tcategory\tpath\tverdict\n"
        "acme/shop\tsecurity\tsrc/auth/login.py\tright\n"
        "acme/shop\tarchitecture\tpackage.json\tright\n"
        "acme/shop\tarchitecture\tDockerfile\tdebatable\n"
    )
    assert paths_flagged.main([str(mirror), "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    flagged = [line for line in out.splitlines() if not line.startswith("#")]
    assert sorted(flagged) == [
        "acme/shop\tarchitecture\tDockerfile\t**/Dockerfile*",
        "acme/shop\tarchitecture\tpackage.json\t**/package.json",
        "acme/shop\tsecurity\tsrc/auth/login.py\t**/auth/**",
    ]
    # the fixture project's manifest is not flagged
    assert "tests/fixtures" not in out
    assert "# judged: 3 flags, 2 right (66.7%); debatable 1" in out


def test_reads_the_corpus_labels_in_toml(
    mirror: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.toml"
    labels.write_text(
        '[[path]]\nrepo = "acme/shop"\npath = "Dockerfile"\ncategory = "architecture"\n'
        'judged = "wrong"\nwhy = "a test"\n'
    )
    assert paths_flagged.main([str(mirror), "--commits", "2", "--labels", str(labels)]) == 0
    assert "# judged: 1 flags, 0 right (0.0%); wrong 1" in capsys.readouterr().out
