"""Code that reaches into its tests, judged against the base (`tiergate.tier.reachingbase`), through
`assess_change` on real git repositories: a project that was a testing tool at its base is not named
for what such a tool's code does by nature (importing the runner), but still for patching it; a line its
base's code already held is not the change's; a line added inside a Rust test module is test code. What
the workspace says now (a `pytest11` entry point the change adds) excuses nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.filelines import file_lines
from testing.gitrepo import init_repo, write

from tiergate.tier.assess import assess_change
from tiergate.tier.content.reaching import PREFIX, BaseFacts, Mechanism, base_position, excused, reach
from tiergate.tier.content.reachrust import blocks_marked_as_tests

CALC = "def mul(a, b):\n    return a * b\n"
PLUGIN_MANIFEST = '[project]\nname = "calc"\n\n[project.entry-points.pytest11]\ncalc = "calc.plugin"\n'


def reaching(root: Path) -> list[str]:
    """The reaching hits of the change in `root` since HEAD, as `path:line mechanism (what)`."""
    return [
        f"{h.path}:{h.line} {h.construct[len(PREFIX) :]}"
        for h in assess_change(root).content
        if h.construct.startswith(PREFIX)
    ]


DEPENDS_ON_PYTEST = '[project]\nname = "calc"\ndependencies = ["pytest>=8"]\n'
IMPORTED = "calc.py:1 the test runner imported by the code (pytest)"
PATCHED = "calc.py:3 the test runner, its assertions or its machinery patched (pytest.raises)"


@pytest.mark.parametrize(
    ("base", "named"),
    [
        # Not a testing tool: its tests import pytest, its code does not.
        ({"calc.py": CALC, "tests/test_calc.py": "import pytest\n"}, [IMPORTED, PATCHED]),
        # A pytest plugin by its entry point, by its name, by its code importing the runner.
        ({"calc.py": CALC, "pyproject.toml": PLUGIN_MANIFEST}, [PATCHED]),
        ({"calc.py": CALC, "setup.cfg": "[metadata]\nname = pytest-calc\n"}, [PATCHED]),
        ({"calc.py": CALC, "src/plugin.py": "from _pytest.config import Config\n"}, [PATCHED]),
        (
            {"calc.py": CALC, "pyproject.toml": '[project]\nname = "calc"\ndependencies = ["pytest>=8"]\n'},
            [PATCHED],
        ),
    ],
)
def test_a_testing_tool_at_the_base_is_not_named_for_importing_the_runner(
    tmp_path: Path, base: dict[str, str], named: list[str]
) -> None:
    root = init_repo(tmp_path / "repo", base)
    write(root, {"calc.py": "import pytest\n\npytest.raises = _raises\n" + CALC})

    assert reaching(root) == named


def test_what_the_change_adds_to_the_manifest_excuses_nothing(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"calc.py": CALC})
    write(root, {"calc.py": "import pytest\n" + CALC, "pyproject.toml": PLUGIN_MANIFEST})

    assert reaching(root) == [IMPORTED]


def test_a_patch_the_base_made_already_in_its_code_is_not_the_changes(tmp_path: Path) -> None:
    patch = "pytest.raises = _raises\n"
    root = init_repo(tmp_path / "repo", {"calc.py": CALC, "compat.py": "import pytest\n\n" + patch})
    write(root, {"calc.py": "import pytest\n\n" + patch + CALC, "compat.py": ""})

    assert reaching(root) == []


def test_a_patch_only_the_base_tests_held_is_still_named(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"calc.py": CALC, "tests/test_calc.py": "pytest.raises = _raises\n"})
    write(root, {"calc.py": "import pytest\n\npytest.raises = _raises\n" + CALC})

    assert reaching(root) == [IMPORTED, PATCHED]


def test_a_javascript_testing_tool_is_told_by_its_dependencies(tmp_path: Path) -> None:
    manifest = '{"name": "jest-calc", "peerDependencies": {"jest": "*"}}\n'
    code = 'const { expect } = require("@jest/globals");\nmodule.exports = { expect };\n'
    plain = init_repo(tmp_path / "plain", {"index.js": "module.exports = {};\n"})
    tool = init_repo(tmp_path / "tool", {"index.js": "module.exports = {};\n", "package.json": manifest})
    for root in (plain, tool):
        write(root, {"index.js": code})

    assert reaching(plain) == ["index.js:1 the test runner imported by the code (@jest/globals)"]
    assert reaching(tool) == []


RUST_BASE = (
    "pub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n\n"
    "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn muls() {\n"
    "        assert_eq!(mul(2, 3), 6);\n    }\n}\n"
)
COUNTED = "        CALLS.fetch_add(1, Ordering::SeqCst);\n"


def test_a_line_added_inside_a_rust_test_module_the_base_had_is_test_code(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"src/lib.rs": RUST_BASE})
    inside = RUST_BASE.replace("        assert_eq!", COUNTED + "        assert_eq!")
    outside = RUST_BASE.replace("    a * b\n", COUNTED.replace("        ", "    ") + "    a * b\n")

    write(root, {"src/lib.rs": inside})
    assert reaching(root) == []
    write(root, {"src/lib.rs": outside})
    assert reaching(root) == ["src/lib.rs:2 an answer from state kept between calls (CALLS.fetch_add)"]


# Pure parts.


def test_excused_drops_a_tools_natural_mechanisms_and_lines_the_base_held() -> None:
    imported = reach("a.py", 1, Mechanism.IMPORTS, "pytest", "import pytest")
    patched = reach("a.py", 2, Mechanism.PATCHES, "pytest.raises", "pytest.raises = f")
    state = reach("a.py", 3, Mechanism.STATE, "n", "    n += 1")
    js = reach("a.js", 1, Mechanism.IMPORTS, "vitest", 'import { it } from "vitest";')
    texts = {("a.py", 1): "import pytest", ("a.py", 2): "pytest.raises = f", ("a.py", 3): "    n += 1"}
    hits = [imported, patched, state, js]

    assert excused(hits, BaseFacts(), texts) == hits
    assert excused(hits, BaseFacts(tools=frozenset({"python"})), texts) == [patched, state, js]
    assert excused(hits, BaseFacts(lines=frozenset({"n += 1"})), texts) == [imported, patched, js]


def test_the_base_position_of_an_added_line() -> None:
    # Line 3 replaced (old 3 -> new 3), two lines inserted after old line 5 (new 6-7), line 9 added
    # after old 7.
    changed = file_lines("a.rs", ["x", "y", "z", "w"], [3, 6, 7, 10], ["old"], [3])

    assert [base_position(changed, n) for n in (3, 6, 7, 10)] == [3.0, 5.5, 5.5, 7.5]


def test_rust_test_blocks_are_the_items_marked_as_tests() -> None:
    assert blocks_marked_as_tests(RUST_BASE) == [(6, 13)]
    assert blocks_marked_as_tests("#[cfg(test)]\nmod tests;\nfn f() {}\n") == []
    assert blocks_marked_as_tests('#[test]\nfn t() {\n    let s = "}";\n}\nfn f() {}\n') == [(2, 4)]
