"""The environment recorded as a loop begins and compared at its claims, in-process on a project with a
virtualenv of its own (its layout, no Python run): nothing named when nothing changed, a planted `.pth`
named, and a record the agent deleted or rewrote in the state folder is no record: THOROUGH, never a
comparison with what it left there."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from testing.loopproject import a_project, with_loop

from tiergate.gate.environment import keptrecord
from tiergate.gate.environment.difference import NO_RECORD
from tiergate.handlers.environment import environment_reasons, record_environment
from tiergate.loop import store as loops
from tiergate.loop.state import LoopState
from tiergate.project import Project

SITE = "lib/python3.11/site-packages"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """A project whose test check runs its own virtualenv's Python."""
    root = tmp_path / "project"
    venv = root / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / SITE / "pkg").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\n")
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / SITE / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    (root / ".tiergate.toml").write_text('[checks]\ntests = ".venv/bin/python -m unittest"\n')
    return a_project(root)


def recorded(project: Project) -> LoopState:
    record_environment(project, with_loop(project))
    current = loops.read(project, "s1")
    assert current is not None and current.environment is not None
    return current


def test_an_untouched_environment_names_nothing(project: Project) -> None:
    assert environment_reasons(project, recorded(project), ()) == ()


def test_a_planted_pth_and_an_edited_package_are_named(project: Project) -> None:
    current = recorded(project)
    site = project.root / ".venv" / SITE
    (site / "evil.pth").write_text("import os\n")
    module = site / "pkg" / "__init__.py"
    before = module.stat()
    module.write_text("VALUE = 2\n")
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))  # its old time back: still seen

    [named] = environment_reasons(project, current, ())

    assert f"added .venv/{SITE}/evil.pth" in named and f"edited .venv/{SITE}/pkg/__init__.py" in named
    assert named.endswith("-> THOROUGH")


def test_a_record_deleted_or_rewritten_is_no_record(project: Project) -> None:
    current = recorded(project)
    path = keptrecord.path_for(project, "s1")
    assert path is not None
    kept = path.read_bytes()

    path.unlink()
    assert environment_reasons(project, current, ()) == (NO_RECORD,)
    path.write_bytes(kept.replace(b'"schema":1', b'"schema": 1'))  # the same record, not the same bytes
    assert environment_reasons(project, current, ()) == (NO_RECORD,)


def test_a_loop_that_kept_no_record_compares_nothing(project: Project) -> None:
    assert environment_reasons(project, with_loop(project), ()) == ()
