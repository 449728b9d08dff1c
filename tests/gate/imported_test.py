"""Where a claim's checks read their code from (`tiergate.gate.imported`): the rule on the files read, the
copy's stand-ins for the workspace folders an editable install names, and the record every Python process
of a check writes (its sitecustomize, run in a real interpreter)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tiergate.gate.imported import Bounds, Watch, editable_folders, read_outside, stand_ins

ENVIRONMENT = ("/home/u/proj/.venv", "/usr/lib/python3.11")
BOUNDS = Bounds("/tmp/t/tree", "/home/u/proj", own=("/tmp/t",), environment=ENVIRONMENT, before=100.0)


def test_the_copy_the_environment_and_the_workspaces_git_are_let_be() -> None:
    seen = [
        ("/tmp/t/tree/calc.py", 150.0),
        ("/home/u/proj/.venv/lib/python3.11/site-packages/pytest/__init__.py", 150.0),
        ("/usr/lib/python3.11/json/__init__.py", 1.0),
        ("/home/u/proj/.git/HEAD", 150.0),
    ]

    assert read_outside(seen, BOUNDS, 200.0) == ([], [])


def test_the_workspace_is_named_whenever_its_file_was_written() -> None:
    seen = [("/home/u/proj/build/answers.py", 1.0), ("/home/u/proj/src/calc/__init__.pyc", None)]

    workspace, elsewhere = read_outside(seen, BOUNDS, 200.0)

    assert workspace == ["/home/u/proj/build/answers.py", "/home/u/proj/src/calc/__init__.pyc"]
    assert elsewhere == []


def test_elsewhere_only_what_was_written_since_the_loop_began_and_before_the_checks() -> None:
    seen = [
        ("/opt/tools/old.py", 50.0),  # there before the loop
        ("/var/tmp/planted.py", 150.0),  # written during the loop, before the checks
        ("/tmp/pytest-of-u/test0/made.py", 250.0),  # written by the checks themselves
    ]

    assert read_outside(seen, BOUNDS, 200.0) == ([], ["/var/tmp/planted.py"])


def test_a_workspace_with_a_name_that_begins_another_is_not_inside_it() -> None:
    assert read_outside([("/home/u/project2/x.py", 1.0)], BOUNDS, 200.0) == ([], [])


def test_stand_ins_are_the_copys_folders_for_the_workspace_folders_named(tmp_path: Path) -> None:
    workspace, copy = tmp_path / "ws", tmp_path / "copy"
    (copy / "src").mkdir(parents=True)
    (copy / "lib").mkdir()
    named = [str(workspace / "src"), "/elsewhere/pkgs", str(workspace / "missing"), str(workspace / "src/")]

    assert stand_ins(named, str(workspace), str(copy)) == [str(copy / "src")]


def test_editable_folders_come_from_pth_files_and_setuptools_finders(tmp_path: Path) -> None:
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (site / "_calc.pth").write_text("# a comment\n/ws/src\nimport _hook; _hook.install()\n")
    (site / "__editable___calc_0_1_finder.py").write_text(
        "import sys\nMAPPING: dict[str, str] = {'calc': '/ws/lib/calc'}\nNAMESPACES = {}\n"
    )
    (site / "__editable___broken_finder.py").write_text("MAPPING = {oops\n")

    assert sorted(editable_folders([str(tmp_path / "venv")])) == ["/ws/lib", "/ws/src"]


def test_every_python_process_of_a_check_writes_what_it_read(tmp_path: Path) -> None:
    workspace, copy = tmp_path / "ws", tmp_path / "holder" / "tree"
    (workspace / "build").mkdir(parents=True)
    (workspace / "build" / "answers.py").write_text("X = 1\n")
    (workspace / "data.txt").write_text("42\n")
    copy.mkdir(parents=True)
    watch = Watch(copy.parent, Bounds(str(copy), str(workspace), own=(str(copy.parent),)), None)
    env = {**os.environ, **watch.env("tests")}
    script = (
        f"import sys; sys.path.insert(0, {str(workspace / 'build')!r}); import answers; "
        f"open({str(workspace / 'data.txt')!r}).read(); import os; os._exit(0)"
    )

    subprocess.run([sys.executable, "-c", script], env=env, cwd=copy, check=True)

    reasons = watch.reasons("tests")
    assert watch.reasons("lint") == ()
    assert len(reasons) == 1, reasons
    assert f"`{workspace}/build/answers.py`" in reasons[0] and f"`{workspace}/data.txt`" in reasons[0]


def test_a_sitecustomize_of_the_environments_own_still_runs(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("import builtins\nbuiltins.THEIRS = 1\n")
    watch = Watch(tmp_path / "holder", Bounds(str(tmp_path / "copy"), str(tmp_path / "ws")), None)
    (tmp_path / "holder").mkdir()
    added = watch.env("tests")
    env = {**os.environ, **added, "PYTHONPATH": added["PYTHONPATH"] + os.pathsep + str(theirs)}

    script = "import builtins; print(builtins.THEIRS)"
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False)

    assert out.stdout.strip() == "1", out.stderr
