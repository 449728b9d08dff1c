"""Which changed paths are tests or test infrastructure: the ones that make a claim run the base's tests."""

from __future__ import annotations

# The module, not the function: pytest would collect `tests_among` as a test.
from tiergate.gate.pertest import testfiles


def test_test_files_folders_and_runner_configuration_count() -> None:
    paths = [
        "tests/unit/helpers.py",
        "pkg/test_app.py",
        "pkg/app_test.go",
        "web/src/list.spec.ts",
        "conftest.py",
        "pyproject.toml",
        "package.json",
        "jest.config.js",
        "lib/site.pth",
    ]
    assert testfiles.tests_among(paths) == tuple(paths)


def test_code_and_documents_do_not() -> None:
    assert (
        testfiles.tests_among(["pkg/app.py", "README.md", "src/list.ts", "docs/testing.md", "latest.py"])
        == ()
    )


def test_paths_keep_their_order_and_only_the_tests_are_kept() -> None:
    assert testfiles.tests_among(["app.py", "tests/a.py", "b.py", "spec/b.rb"]) == ("tests/a.py", "spec/b.rb")
