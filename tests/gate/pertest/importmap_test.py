"""The test files a change affects, from a static import graph of the base commit's Python files: imports
resolved absolute and relative, through packages, conftests and pytest's own path insertion; None where
the map cannot place a change; built from git's objects on real repositories, never from the workspace,
and kept on disk only as tiergate sealed it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, init_repo, write

from tiergate import seal
from tiergate.gate.pertest import importmap
from tiergate.gate.pertest.importmap import ImportMap, build

PROJECT = {
    "src/calc/__init__.py": "",
    "src/calc/core.py": "from .ops import add\n\n\ndef total(xs):\n    return sum(xs)\n",
    "src/calc/ops.py": "import math\n\n\ndef add(a, b):\n    return a + b\n",
    "src/calc/fmt/__init__.py": "from ..core import total\n",
    "src/calc/fmt/text.py": "from . import width\n",
    "src/calc/fmt/width.py": "WIDTH = 8\n",
    "src/calc/unused.py": "",
    "tests/conftest.py": "",
    "tests/helpers.py": "from calc import ops\n",
    "tests/test_core.py": "from calc.core import total\n",
    "tests/test_ops.py": "import helpers\n",
    "tests/test_text.py": "def test_text():\n    from calc.fmt import text\n",
    "tests/test_plain.py": "def test_plain():\n    pass\n",
    "tests/test_more.py": "def test_more():\n    pass\n",
    "tests/test_last.py": "def test_last():\n    pass\n",
    "tests/test_other.py": "def test_other():\n    pass\n",
    "tests/test_broken.py": "def broken(:\n",
    "README.md": "# calc\n",
    "docs/guide.txt": "how\n",
}


def built(files: dict[str, str], *, inside: str = "") -> ImportMap:
    return build({path: text.encode() for path, text in files.items()}, inside=inside)


def imports(graph: ImportMap, path: str) -> tuple[str, ...]:
    return dict(graph.imports)[path]


def test_imports_resolve_absolute_relative_through_packages_and_pytests_path() -> None:
    graph = built(PROJECT)

    assert imports(graph, "src/calc/core.py") == ("src/calc/__init__.py", "src/calc/ops.py")
    assert imports(graph, "src/calc/fmt/__init__.py") == ("src/calc/__init__.py", "src/calc/core.py")
    assert imports(graph, "src/calc/fmt/text.py") == (
        "src/calc/__init__.py",
        "src/calc/fmt/__init__.py",
        "src/calc/fmt/width.py",
    )
    # `helpers` sits beside the tests: pytest puts their folder on the path, so it is a root.
    assert imports(graph, "tests/test_ops.py") == ("tests/conftest.py", "tests/helpers.py")
    assert imports(graph, "tests/test_broken.py") == ("tests/conftest.py",)  # does not parse: no import
    assert graph.tests[:2] == ("tests/test_broken.py", "tests/test_core.py")


def test_a_change_affects_the_tests_that_import_it_however_far() -> None:
    graph = built(PROJECT)

    # width <- fmt/text <- test_text; core <- fmt/__init__ <- fmt/text, and core <- test_core.
    assert graph.affected(["src/calc/fmt/width.py"]) == ("tests/test_text.py",)
    assert graph.affected(["src/calc/core.py"]) == ("tests/test_core.py", "tests/test_text.py")
    assert graph.affected(["src/calc/unused.py", "README.md", "docs/guide.txt"]) == ()
    assert graph.affected(["tests/test_plain.py", "tests/test_new.py"]) == (
        "tests/test_new.py",
        "tests/test_plain.py",
    )


def test_what_the_map_cannot_place_or_too_much_of_the_suite_asks_for_everything() -> None:
    graph = built(PROJECT)

    for changed in (
        "tests/conftest.py",
        "pyproject.toml",
        "tox.ini",
        "setup.py",
        "tests/fixtures/sample.py",
        "src/calc/data.json",
        "src/calc/new.py",  # new, not a test: nothing says what imports it
    ):
        assert graph.affected(["src/calc/unused.py", changed]) is None, changed
    # ops reaches test_core, test_text and test_ops: 3 of the 8 test files, more than a quarter.
    assert graph.affected(["src/calc/ops.py"]) is None


def test_statements_of_every_form_are_read_and_a_docstrings_import_line_counts() -> None:
    source = (
        '"""Usage:\n\nimport shown\n"""\n'
        "try: import one\nexcept ImportError: pass\n"
        "from two import (\n    a,\n    b,\n)\n"
        "import three, \\\n    four\n"
        "if True:\n    from . import five\n"
    )
    # A comment in the parentheses: read from the whole file, where the docstring is a docstring.
    whole = '"""import shown"""\nfrom two import (  # (see one)\n    a,\n)\n'
    names = ("shown.py", "one.py", "two.py", "three.py", "four.py", "five.py", "six.py")
    files = {**dict.fromkeys(names, ""), "test_x.py": source, "test_y.py": whole}
    graph = built({**files, "conftest.py": 'pytest_plugins = ["six"]\n'})

    assert imports(graph, "test_x.py") == (
        "conftest.py",
        "five.py",
        "four.py",
        "one.py",
        "shown.py",
        "three.py",
        "two.py",
    )
    assert imports(graph, "test_y.py") == ("conftest.py", "two.py")
    assert imports(graph, "conftest.py") == ("six.py",)


def test_the_project_folder_and_its_src_are_roots() -> None:
    graph = built(
        {
            "app/src/lib/__init__.py": "",
            "app/src/lib/deep.py": "",
            "app/lib2.py": "import lib.deep\n",
            "app/tests/test_lib2.py": "import lib2\n",
        },
        inside="app",
    )

    assert imports(graph, "app/lib2.py") == ("app/src/lib/__init__.py", "app/src/lib/deep.py")
    assert imports(graph, "app/tests/test_lib2.py") == ("app/lib2.py",)


def test_the_map_reads_back_as_written_and_nothing_else_does() -> None:
    graph = built(PROJECT)

    assert ImportMap.from_record(json.loads(json.dumps(graph.to_record()))) == graph
    with pytest.raises(ValueError, match="not an import map"):
        ImportMap.from_record({"imports": {"a.py": "b.py"}})


COMMITTED = {
    "pkg/__init__.py": "",
    "pkg/base.py": "VALUE = 1\n",
    "pkg/middle.py": "from .base import VALUE\n",
    "pkg/top.py": "from pkg import middle\n",
    "pkg/lone.py": "",
    "tests/test_top.py": "from pkg.top import middle\n",
    "tests/test_lone.py": "def test_nothing():\n    pass\n",
    **{f"tests/test_{name}.py": f"def test_{name}():\n    pass\n" for name in "abcdef"},
    "tests/conftest.py": "",
}


def test_the_map_of_a_commit_follows_a_chain_and_never_the_workspace(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", COMMITTED)
    base = git(repo, "rev-parse", "HEAD").strip()
    # The agent's edits after the base: an import that would pull test_lone in, and a later commit.
    write(repo, {"tests/test_lone.py": "import pkg.base\n", "pkg/lone.py": "import pkg.base\n"})

    graph = importmap.at_commit(repo, base)

    assert graph.affected(["pkg/base.py"]) == ("tests/test_top.py",)
    assert graph.affected(["tests/conftest.py"]) is None
    commit_all(repo, "after the base")
    assert importmap.at_commit(repo, base) == graph
    assert importmap.at_commit(repo, "HEAD").affected(["pkg/base.py"]) == (
        "tests/test_lone.py",
        "tests/test_top.py",
    )


def test_the_kept_map_is_used_and_one_not_as_tiergate_wrote_it_is_built_again(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", COMMITTED)
    base = git(repo, "rev-parse", "HEAD").strip()
    cache = tmp_path / "state" / importmap.CACHE_DIR

    graph = importmap.at_commit(repo, base, cache)
    [kept] = cache.iterdir()
    body = seal.open_file(f"{importmap.CACHE_DIR}/{kept.name}", kept.read_bytes())
    record = json.loads(body)
    assert record["commit"] == base and ImportMap.from_record(record) == graph

    # Another map kept under this name is read back as tiergate sealed it...
    record["imports"]["tests/test_lone.py"] = ["pkg/base.py"]
    forged = json.dumps(record).encode()
    kept.write_bytes(seal.seal_file(f"{importmap.CACHE_DIR}/{kept.name}", forged))
    assert importmap.at_commit(repo, base, cache).affected(["pkg/base.py"]) == (
        "tests/test_lone.py",
        "tests/test_top.py",
    )
    # ...but the agent, without the key, cannot seal one: its edit is a miss, and the map is built again.
    kept.write_bytes(forged + b"\n#tiergate-seal " + b"0" * 32 + b"\n")
    assert importmap.at_commit(repo, base, cache) == graph
    kept.write_bytes(b"not json")
    assert importmap.at_commit(repo, base, cache) == graph
    assert seal.open_file(f"{importmap.CACHE_DIR}/{kept.name}", kept.read_bytes())  # written anew
