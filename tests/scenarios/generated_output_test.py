"""What running the tests leaves behind is not the agent's work, through the real hook entry point in
real git repositories with no ignore rule for it (issue 21): pytest's bytecode and self-ignoring cache
folders, Hypothesis's database and coverage data are left out of the change, the fingerprint and
`tiergate tier --explain` says so; code put among them still counts, and so does a folder the agent hides
behind a `.gitignore` of its own. A shell start on such a workspace is a clean start."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession

SESSION = "9e9e9e9e-2222-3333-4444-555555555555"
CLAIM = "scaled is done.\n\n<promise>DONE</promise>"
PYTEST = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q"
CALC = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
# No .gitignore at all: nothing tells git that the caches are not work.
FILES = {
    "calc.py": CALC,
    "tests/test_calc.py": TESTS,
    ".tiergate.toml": f"[checks]\ntests = {json.dumps(PYTEST)}\n",
}


def run_the_tests(project: Path) -> None:
    """What the agent does before it claims: run the project's tests (bytecode, .pytest_cache with its
    own .gitignore), and leave the other usual leftovers."""
    subprocess.run(["sh", "-c", PYTEST], cwd=project, capture_output=True, check=True)
    assert (project / ".pytest_cache" / ".gitignore").exists()
    leftovers = {".hypothesis/examples/0a/1b": "x", ".coverage": "data", "calc.egg-info/PKG-INFO": "x"}
    # (Written by hand too: where PYTHONDONTWRITEBYTECODE is set, as on CI, pytest writes none.)
    write(project, {**leftovers, "__pycache__/calc.cpython-311.pyc": "bytecode"})


def test_a_one_line_change_is_one_file_whatever_the_test_run_left(tmp_path: Path) -> None:
    loop = HookSession(tmp_path, init_repo(tmp_path / "project", FILES), SESSION)
    assert (
        "loop started" in loop.hook("UserPromptSubmit", prompt="/tiergate:ralph add scaled")["systemMessage"]
    )
    write(loop.project, {"calc.py": CALC.replace("a + b", "b + a")})
    run_the_tests(loop.project)

    loop.hook("Stop", last_assistant_message=CLAIM)

    verification = loop.loop().verification
    assert verification is not None
    assert (verification.files_changed, verification.lines_changed) == (1, 2)
    explained = loop.run("tier", "--explain").stdout
    assert "Python's bytecode cache (__pycache__/)" in explained
    assert "pytest's cache (.pytest_cache/)" in explained


def test_code_among_the_caches_and_behind_the_agents_own_gitignore_still_counts(tmp_path: Path) -> None:
    loop = HookSession(tmp_path, init_repo(tmp_path / "project", FILES), SESSION)
    loop.hook("UserPromptSubmit", prompt="/tiergate:ralph add scaled")
    write(loop.project, {"calc.py": CALC.replace("a + b", "b + a")})
    run_the_tests(loop.project)
    write(
        loop.project,
        {
            ".pytest_cache/sitecustomize.py": "import calc\n",
            "tests/__pycache__/helper.py": "X = 1\n",
            "hidden/.gitignore": "*\n",
            "hidden/notes.md": "the agent's own\n",
        },
    )

    loop.hook("Stop", last_assistant_message=CLAIM)

    verification = loop.loop().verification
    assert verification is not None and verification.files_changed == 5


def test_ralph_start_on_a_workspace_with_only_test_caches_is_a_clean_start(tmp_path: Path) -> None:
    loop = HookSession(tmp_path, init_repo(tmp_path / "project", FILES), SESSION)
    run_the_tests(loop.project)

    started = loop.run("ralph", "start", "add scaled")

    assert started.returncode == 0, started.stderr
    assert "took the workspace" not in started.stdout
    write(loop.project, {"notes.txt": "the user's\n"})
    dirty = loop.run("ralph", "start", "add scaled")
    assert "took the workspace" in dirty.stdout
