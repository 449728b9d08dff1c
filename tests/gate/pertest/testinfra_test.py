"""Which changed paths are tests or test infrastructure: the ones that make a claim run the base's tests."""

from __future__ import annotations

import pytest

# The module, not the function: pytest would collect `tests_among` as a test.
from tiergate.gate.pertest import testinfra
from tiergate.tier.content.testfiles import is_test


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
    assert testinfra.tests_among(paths) == tuple(paths)


def test_code_and_documents_do_not() -> None:
    assert (
        testinfra.tests_among(["pkg/app.py", "README.md", "src/list.ts", "docs/testing.md", "latest.py"])
        == ()
    )


def test_paths_keep_their_order_and_only_the_tests_are_kept() -> None:
    assert testinfra.tests_among(["app.py", "tests/a.py", "b.py", "spec/b.rb"]) == ("tests/a.py", "spec/b.rb")


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_app.py",
        "pkg/tests.py",
        "src/calc.test.ts",
        "src/__tests__/calc.js",
        # node --test's default names, which the gate once missed outside a test folder
        "src/calc-test.mjs",
        "src/calc_spec.js",
        "test-calc.mjs",
        "test.js",
    ],
)
def test_every_file_the_content_rules_read_as_a_test_counts(path: str) -> None:
    # One definition of a test file (tier/testnames.py): what the tests-weakened rules read as a test,
    # changed, also makes the gate run the base's tests.
    assert is_test(path)
    assert testinfra.tests_among([path]) == (path,)


@pytest.mark.parametrize(
    "path",
    [
        "tests/fixtures/app/main.py",  # a test's data: not read as a test, but it can change one's outcome
        "tests/__snapshots__/calc.test.js",
        "lib/vendor/pkg/test_x.py",  # a vendored copy, which a runner may still collect
        "pkg/app_test.go",  # another language's test
        "tests/calc.rs",  # a Rust integration test (inline ones are told apart by `tiergate.gate.rusttests`)
        "tests/data.json",
        "conftest.py",  # test infrastructure
        "package.json",
    ],
)
def test_the_gate_counts_more_than_the_test_files_the_content_rules_read(path: str) -> None:
    # Kept on purpose: the gate's reading is generous (a missed path lets a lost test through), the
    # content rules' exact (a rule for tests read on a fixture or a vendored copy is a false alarm).
    assert not is_test(path)
    assert testinfra.tests_among([path]) == (path,)
