"""The changed paths the gate's runs with the base's tests treat as tests: the base's test helpers outside
the test folders among them, read from the base commit in real git, whatever the workspace says now."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import git, init_repo, write

from tiergate.gate.changedtests import changed_tests

FILES = {
    "calc.py": "def div(a, b):\n    return a / b\n",
    "support.py": "def assert_equal(actual, expected):\n    assert actual == expected\n",
    "tests/test_calc.py": "from calc import div\nfrom support import assert_equal\n",
}
CHANGED = ["calc.py", "support.py", "tests/test_calc.py", "README.md"]


def test_a_helper_only_the_tests_import_at_the_base_counts_with_the_tests(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", FILES)
    base = git(root, "rev-parse", "HEAD").strip()
    # The workspace's code importing the helper now changes nothing: the base says what it is.
    write(
        root, {"calc.py": "import support\n", "support.py": "def assert_equal(actual, expected):\n    pass\n"}
    )

    assert changed_tests(root, base, CHANGED, tmp_path / "maps") == ("support.py", "tests/test_calc.py")
    assert changed_tests(root, None, CHANGED) == ("tests/test_calc.py",)  # no base: the paths alone


def test_in_a_project_folder_inside_the_repository(tmp_path: Path) -> None:
    top = init_repo(tmp_path / "repo", {f"sub/{path}": text for path, text in FILES.items()})
    base = git(top, "rev-parse", "HEAD").strip()

    found = changed_tests(top / "sub", base, [f"sub/{path}" for path in CHANGED])

    assert found == ("sub/support.py", "sub/tests/test_calc.py")
