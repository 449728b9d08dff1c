"""Where the environment is and how it is taken, on real folders: the project's ignored environment
folders and not a folder its base commit holds, the virtualenv a script's `#!` line runs, and every file
and link under a folder but the tools' caches."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from testing.gitrepo import init_repo

from tiergate.gate.environment.envrecord import EnvironmentRecord
from tiergate.gate.environment.places import at_claim, at_start, path_folders, project_folders
from tiergate.gate.environment.walk import files_under


def test_the_environment_folders_are_the_ones_the_base_does_not_hold(tmp_path: Path) -> None:
    project = init_repo(tmp_path / "p", {"env/settings.py": "DEBUG = False\n", ".gitignore": ".venv/\n"})
    (project / ".venv").mkdir()
    (project / "tools").mkdir()
    (project / "tools" / "pyvenv.cfg").write_text("home = /usr/bin\n")

    found = project_folders(str(project), str(project), "HEAD")

    assert sorted(Path(f).name for f in found) == [".venv", "tools"]  # `env` is the project's code


def test_a_script_s_interpreter_and_its_virtualenv_are_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", SYSTEM_PATH)
    project = tmp_path / "p"
    venv = project / "envs" / "test"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("include-system-site-packages = false\n")
    (venv / "bin" / "python").symlink_to(sys.executable)
    (project / "run-tests").write_text(f"#!{venv}/bin/python\nimport pytest\n")

    places = at_start(str(project), str(project), None, ["./run-tests -q"])

    assert places.folders == (str(venv),)
    assert str(Path(sys.executable).resolve()) in places.files
    assert places.programs == ("python3", "python")  # a program named by its path is not looked up


def test_every_file_and_link_is_taken_but_the_tools_caches(tmp_path: Path) -> None:
    folder = tmp_path / "node_modules"
    for path in ("kit/index.js", "kit/__pycache__/x.pyc", ".cache/babel/x.js", ".vite/deps/y.js"):
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text("x")
    (folder / ".bin").mkdir()
    (folder / ".bin" / "kit").symlink_to("../kit/index.js")
    tox = tmp_path / ".tox"
    for path in ("py311/log/1.log", "py311/lib/site.py", ".tmp/a", ".pkg/dist/kit.whl"):
        (tox / path).parent.mkdir(parents=True, exist_ok=True)
        (tox / path).write_text("x")

    taken = files_under(str(folder))

    assert taken is not None and sorted(taken) == [".bin/kit", "kit/index.js"]
    assert taken[".bin/kit"][-1] == "../kit/index.js" and len(taken["kit/index.js"]) == 4
    assert sorted(files_under(str(tox)) or ()) == ["py311/lib/site.py"]
    assert files_under(str(tmp_path / "absent")) is None


def test_a_claim_looks_where_the_start_did_and_in_an_environment_folder_made_since(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", SYSTEM_PATH)
    project = init_repo(tmp_path / "p", {".gitignore": ".venv/\nnode_modules/\n"})
    started = at_start(str(project), str(project), "HEAD", [])
    (project / ".venv").mkdir()
    (project / "vendor").mkdir()
    recorded = EnvironmentRecord(folders=dict.fromkeys(started.folders), programs={"python3": ""})

    places = at_claim(recorded, str(project), str(project), "HEAD", ["vendor/lib.php"])

    assert places.folders == (str(project / ".venv"),)  # vendor/ is in the change: the project's code
    assert places.programs == ("python3",)


SYSTEM_PATH = "/usr/bin:/bin"


def test_the_folders_on_path_anyone_here_can_write_are_recorded_but_the_systems_and_the_trees(
    tmp_path: Path,
) -> None:
    tools, project, late, home = tmp_path / "tools", tmp_path / "p", tmp_path / "not-yet", tmp_path / "h"
    tools.mkdir()
    (project / "bin").mkdir(parents=True)
    home.mkdir()
    for n in range(9):  # a folder of folders is no folder of programs
        (home / f"f{n}").mkdir()
    entries = [str(tools), "relative/bin", str(project / "bin"), str(late), str(home), "/usr/bin", "/bin"]

    found = path_folders(str(project), {"PATH": ":".join(entries)})

    assert found == [str(tools), str(late)]
