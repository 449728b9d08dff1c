"""Verifier manifests on disk: sealed, and one the verifier (or the agent) rewrote is not used."""

from __future__ import annotations

import json
from pathlib import Path

from tiergate.log import read_log
from tiergate.project import Project
from tiergate.workspace import manifeststore
from tiergate.workspace.manifest import Manifest

START = Manifest(digest="d1", head="h", files={"a.py": "x"}, at_base=frozenset())


def test_a_kept_manifest_reads_back(tmp_path: Path) -> None:
    project = Project(tmp_path, tmp_path / ".tiergate")
    manifeststore.keep(project, "s1", "a1", START)
    assert manifeststore.load(project, "s1", "a1") == START


def test_a_rewritten_manifest_is_treated_as_lost_and_logged(tmp_path: Path) -> None:
    project = Project(tmp_path, tmp_path / ".tiergate")
    manifeststore.keep(project, "s1", "a1", START)
    path = manifeststore.path_for(project, "s1", "a1")
    assert path is not None
    # What would hide a change: a manifest that lists the workspace as it is now, with no seal.
    body = json.loads(path.read_bytes().split(b"\n#tiergate-seal ")[0])
    body["files"] = {"a.py": "y", "b.py": "z"}
    path.write_text(json.dumps(body))

    assert manifeststore.load(project, "s1", "a1") is None
    [record] = [r for r in read_log(project) if r.get("event") == "manifest_rejected"]
    assert record["file"] == "manifests/s1.a1.json" and record["reason"] == "it carries no seal"
