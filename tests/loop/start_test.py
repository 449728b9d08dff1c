"""Starting a loop from the outside world: an autopilot's features file read from disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing.gitrepo import init_repo, write
from testing.statefolder import state_dir

from tiergate.errors import UserError
from tiergate.loop.start import measured_at_head, read_features
from tiergate.loop.startrequest import Start
from tiergate.project import Project


def test_the_features_file_is_read_and_parsed(tmp_path: Path) -> None:
    path = tmp_path / "features.json"
    path.write_text(json.dumps({"features": [{"id": "F01", "title": "List", "checks": {"a": "true"}}]}))
    assert [(f.id, f.checks) for f in read_features(path)] == [("F01", (("a", "true"),))]


def test_a_file_that_cannot_be_read_or_decoded_is_one_line_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(UserError, match=r"missing\.json: cannot read the features file \(No such file"):
        read_features(missing)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"features": "\xe9"}')
    with pytest.raises(UserError) as raised:
        read_features(latin)
    assert str(raised.value).startswith(f"{latin}: not JSON (") and "\n" not in str(raised.value)
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(UserError, match=r"bad\.json: not JSON"):
        read_features(bad)


def test_a_start_says_whether_anything_differed_from_its_base(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    project = Project(repo, state_dir(repo))
    clean, differs = measured_at_head(project, "s1", Start("a task"))
    assert (clean.start, differs) == (None, False)
    write(repo, {".pytest_cache/v/lastfailed": "{}"})  # another tool's state: not the loop's start
    tools, differs = measured_at_head(project, "s2", Start("a task"))
    assert (tools.start, differs) == (None, True)
    write(repo, {"app.py": "x = 2\n"})
    dirty, differs = measured_at_head(project, "s3", Start("a task"))
    assert dirty.start is not None and differs
