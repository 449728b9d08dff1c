"""What makes a file a test by its name (tier/testnames.py): the runners' default names, in Python and
JavaScript/TypeScript (`named_as_code_test`) and in any language (`named_as_test`)."""

from __future__ import annotations

import pytest

from tiergate.tier.testnames import named_as_code_test, named_as_test, names_test_infrastructure


@pytest.mark.parametrize(
    "name",
    [
        "test_app.py",
        "app_test.py",
        "test.py",
        "tests.py",
        "calc.test.js",
        "calc.spec.tsx",
        "calc.test.unit.ts",  # jest's `*.test.*`
        "calc-test.mjs",  # node --test's defaults
        "calc_test.cjs",
        "test-calc.js",
        "test.js",
        "calc-spec.mts",
        "calc_spec.cts",
    ],
)
def test_python_and_javascript_test_names_are_tests_in_either_reading(name: str) -> None:
    assert named_as_code_test(name)
    assert named_as_test(name)


@pytest.mark.parametrize("name", ["calc_test.go", "calc.test.rb", "calc.spec.php", "calc.test.py"])
def test_other_languages_test_names_are_tests_only_in_the_reading_of_every_language(name: str) -> None:
    # `calc.test.py` is no runner's Python test: the content rules do not read it as one; the gate, whose
    # reading is generous, counts it by the `*.test.*` any language may use.
    assert not named_as_code_test(name)
    assert named_as_test(name)


@pytest.mark.parametrize(
    "name",
    [
        "app.py",
        "testing_utils.py",
        "attest.py",
        "contest.js",
        "latest.js",
        "calc.testing.js",
        ".py",
        "test",
        "calc_test.rb",
        "README.md",
        "conftest.py",  # test infrastructure, not a test file: the gate's own list has it
    ],
)
def test_other_names_are_no_tests(name: str) -> None:
    assert not named_as_code_test(name)
    assert not named_as_test(name)


@pytest.mark.parametrize(
    "name",
    [
        *("conftest.py", "pytest.ini", "pyproject.toml", "package.json", "jest.config.ts", ".mocharc.yml"),
        *("usercustomize.py", "tiergate_outcomes.pth", "Makefile", "Cargo.toml", "noxfile.py"),
    ],
)
def test_runner_configuration_and_what_python_loads_first_are_test_infrastructure(name: str) -> None:
    assert names_test_infrastructure(name)


@pytest.mark.parametrize("name", ["app.py", "README.md", "jest.setup.md", "makefile.py", "config.toml"])
def test_other_files_are_no_test_infrastructure(name: str) -> None:
    assert not names_test_infrastructure(name)
