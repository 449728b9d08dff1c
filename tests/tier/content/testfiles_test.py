"""What a test file is, by its path (tier/content/testfiles.py): named as one or standing in a test folder,
in Python or JavaScript/TypeScript; never a test's data, a built or vendored copy, or another language."""

from __future__ import annotations

import pytest

from tiergate.tier.content.testfiles import is_test


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("tests/test_app.py", True),
        ("app_test.py", True),
        ("pkg/tests/helpers.py", True),
        ("tests.py", True),
        ("src/app.py", False),
        ("src/testing_utils.py", False),
        ("tests/fixtures/app/main.py", False),
        ("test/calc.js", True),
        ("src/calc.test.ts", True),
        ("src/calc.spec.jsx", True),
        ("src/__tests__/calc.js", True),
        ("test-calc.mjs", True),
        ("src/contest.js", False),
        ("src/latest.js", False),
        ("node_modules/x/test/a.js", False),
        ("tests/README.md", False),
    ],
)
def test_a_test_file_is_one_by_its_name_or_its_folder(path: str, test: bool) -> None:
    assert is_test(path) is test


@pytest.mark.parametrize(
    "path",
    [
        "src/calc.test.unit.ts",  # jest's `*.test.*`
        "src/calc-spec.cjs",
        "src/calc_test.mts",
        "test.js",
        "test.py",
        "tests/conftest.py",  # a test folder's helper: read as the tests
        "pkg/spec/helpers.tsx",
    ],
)
def test_the_runners_other_test_names_and_folders_are_tests(path: str) -> None:
    assert is_test(path)


@pytest.mark.parametrize(
    "path",
    [
        "tests/__snapshots__/calc.test.js",  # a test's data, however it is named
        "tests/testdata/test_input.py",
        "src/__mocks__/calc.test.js",
        "dist/calc.test.js",  # built or vendored copies
        "lib/vendor/pkg/test_x.py",
        "tests/test_app.rb",  # another language
        "tests/.py",  # no name before the suffix
        "tests/Makefile",
        "src/attest.py",
        "src/calc.testing.js",
    ],
)
def test_data_built_copies_and_other_files_are_not_tests(path: str) -> None:
    assert not is_test(path)
