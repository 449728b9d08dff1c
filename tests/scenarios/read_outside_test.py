"""The claim's checks read their code from the claim's copy and the environment, through the real Stop hook
in real git with real pytest run by the project's own virtualenv: an editable install names the workspace's
`src/`, where git ignores a sourceless package that would answer for the unimplemented `div`; the copy's
`src/` stands in for it, so the claim is judged on its own code. Code that reaches into the workspace by its
path is named with what it read. Honest work in the same project keeps its tier and names nothing."""

from __future__ import annotations

import importlib.util
import marshal
from pathlib import Path

from testing.gitrepo import commit_all
from testing.muldivproject import CALC, DONE, PARTIAL, TESTS, Loop, refuted

from tests.scenarios.environment_test import CHECK, site_of, virtualenv
from tiergate.gate import sandbox

DIV = "tests/test_calc.py::test_div"


def editable(project: Path) -> None:
    """The project's virtualenv with the project installed in it as editable: a `.pth` naming its `src/`
    (as hatchling and setuptools' compat mode write it); the project's `.gitignore` ignores bytecode and
    `build/`, committed before the loop begins."""
    virtualenv(project)
    (site_of(project) / "_calc.pth").write_text(f"{project / 'src'}\n")
    with (project / ".gitignore").open("a") as ignored:
        ignored.write("*.pyc\nbuild/\n")
    commit_all(project, "ignore bytecode and builds")


def src_loop(root: Path) -> Loop:
    return Loop(root, {"src/calc.py": CALC, "tests/test_calc.py": TESTS}, CHECK, editable)


def bytecode(source: str) -> bytes:
    return importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(compile(source, "<agent>", "exec"))


def test_an_editable_install_runs_the_copys_code_not_what_git_ignores_there(tmp_path: Path) -> None:
    loop = src_loop(tmp_path)
    package = loop.project / "src" / "calc"
    package.mkdir()
    (package / "__init__.pyc").write_bytes(bytecode(DONE))  # ignored; imported in place of calc.py

    answer = loop.claim({"src/calc.py": PARTIAL})

    # The base's worktree runs its own code too: `div` fails there and on the claim, never passes.
    assert "```tiergate-spawn" in answer["reason"] and loop.loop().tier != "LIGHT"
    assert f"failing tests: {DIV}" in answer["reason"]


def test_code_that_reads_the_workspace_by_its_path_is_named(tmp_path: Path) -> None:
    loop = src_loop(tmp_path)
    build = loop.project / "build"
    build.mkdir()
    (build / "fastdiv.py").write_text("def div(a, b):\n    return a / b\n")
    reaching = PARTIAL.replace(
        "def div(a, b):\n    raise NotImplementedError\n",
        f"import sys\n\nsys.path.append({str(build)!r})\nfrom fastdiv import div\n",
    )

    answer = loop.claim({"src/calc.py": reaching})

    if sandbox.unavailable() is None:  # the workspace is covered where the check runs: no answer there
        assert "test_div" in refuted(answer)
        return
    assert loop.loop().tier == "THOROUGH"
    reasons = loop.stop_reasons()
    assert "read-outside: the checks read" in reasons and f"{build}/fastdiv.py" in reasons


def test_honest_work_in_an_editable_project_names_nothing_read_outside(tmp_path: Path) -> None:
    loop = src_loop(tmp_path)

    answer = loop.claim({"src/calc.py": DONE})

    assert "```tiergate-spawn" in answer["reason"]
    assert "read-outside" not in loop.stop_reasons()
    assert loop.loop().tier != "THOROUGH"


# Tests that reach outside their code the honest ways: temporary files, a server of their own on a port
# the kernel picks and on a Unix socket, a child Python, a pool of processes.
BUSY_TESTS = (
    TESTS
    + """

def test_what_a_test_does_in_its_own_folders(tmp_path):
    import http.server, json, multiprocessing, socket, subprocess, sys, tempfile, threading, urllib.request
    (tmp_path / "data.json").write_text(json.dumps({"a": 6}))
    assert json.loads((tmp_path / "data.json").read_text())["a"] == 6
    with tempfile.NamedTemporaryFile("w+", suffix=".py") as made:
        made.write("X = 1\\n")
        made.flush()
        assert open(made.name).read() == "X = 1\\n"
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.handle_request, daemon=True).start()
    urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}/").read()
    server.server_close()
    own = socket.socket(socket.AF_UNIX)
    own.bind(str(tmp_path / "own.sock"))
    own.listen()
    socket.socket(socket.AF_UNIX).connect(str(tmp_path / "own.sock"))
    out = tmp_path / "child.txt"
    subprocess.run([sys.executable, "-c", f"open({str(out)!r}, 'w').write('1')"], check=True)
    assert out.read_text() == "1"
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert pool.map(abs, [-1, -2]) == [1, 2]
"""
)


def test_tests_that_use_their_own_files_servers_and_processes_name_nothing(tmp_path: Path) -> None:
    loop = Loop(tmp_path, {"calc.py": CALC, "tests/test_calc.py": BUSY_TESTS}, CHECK, virtualenv)

    answer = loop.claim({"calc.py": DONE})

    assert "```tiergate-spawn" in answer["reason"]
    assert "read-outside" not in loop.stop_reasons(), loop.stop_reasons()
