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

    assert DIV in refuted(answer)


def test_code_that_reads_the_workspace_by_its_path_is_named(tmp_path: Path) -> None:
    loop = src_loop(tmp_path)
    build = loop.project / "build"
    build.mkdir()
    (build / "fastdiv.py").write_text("def div(a, b):\n    return a / b\n")
    reaching = PARTIAL.replace(
        "def div(a, b):\n    raise NotImplementedError\n",
        f"import sys\n\nsys.path.append({str(build)!r})\nfrom fastdiv import div\n",
    )

    loop.claim({"src/calc.py": reaching})

    assert loop.loop().tier == "THOROUGH"
    reasons = loop.stop_reasons()
    assert "read-outside: the checks read" in reasons and f"{build}/fastdiv.py" in reasons


def test_honest_work_in_an_editable_project_names_nothing_read_outside(tmp_path: Path) -> None:
    loop = src_loop(tmp_path)

    answer = loop.claim({"src/calc.py": DONE})

    assert "```tiergate-spawn" in answer["reason"]
    assert "read-outside" not in loop.stop_reasons()
    assert loop.loop().tier != "THOROUGH"
