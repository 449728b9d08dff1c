"""Test helpers outside the test folders, read from the base's import graph: what only the tests import and
says it serves them counts; a library's own modules, which only its tests import too, do not."""

from __future__ import annotations

# The module, not its functions: pytest would collect `test_helpers` as a test.
from tiergate.gate.pertest import importmap, testhelpers

FILES = {
    "calc.py": b"def div(a, b):\n    return a / b\n",
    "support.py": b"def assert_equal(actual, expected):\n    assert actual == expected\n",
    "common.py": b"import calc\n\n\ndef assert_close(a, b):\n    assert abs(a - b) < 1e-9\n",
    "shared.py": b"def tolerance():\n    return 1e-9\n",  # says nothing of tests
    "testutils/__init__.py": b"",
    "testutils/asserts.py": (
        b"from testutils import compare\n\n\ndef check(a, b):\n    assert compare.same(a, b)\n"
    ),
    "testutils/compare.py": b"def same(a, b):\n    return a == b\n",
    "app/__init__.py": b"from app import core\n",
    "app/core.py": b"import support\n",  # code imports it: code
    "tests/test_calc.py": (
        b"from calc import div\nfrom support import assert_equal\nfrom common import assert_close\n"
        b"from shared import tolerance\nfrom testutils.asserts import check\nimport app\n"
    ),
}


GRAPH = importmap.build(FILES)
IMPORTERS = GRAPH.importers()
AMONG = testhelpers.candidates(GRAPH.files, IMPORTERS)


def test_only_what_the_tests_alone_import_is_a_candidate() -> None:
    # The library's own modules too (app imports support, and only the tests import app).
    assert testhelpers.candidates(GRAPH.files, IMPORTERS) == {
        "app/__init__.py",
        "app/core.py",
        "support.py",
        "calc.py",
        "common.py",
        "shared.py",
        "testutils/__init__.py",
        "testutils/asserts.py",
        "testutils/compare.py",
    }


def test_a_candidate_is_a_helper_when_its_name_or_an_assertion_function_says_so() -> None:
    found = testhelpers.test_helpers(GRAPH.files, IMPORTERS, AMONG, FILES.get)
    # support.py says it is one, but code (app/core.py) imports it; calc.py and shared.py say nothing.
    assert found == {"common.py", "testutils/__init__.py", "testutils/asserts.py", "testutils/compare.py"}


def test_a_file_that_cannot_be_read_is_a_helper_only_by_its_name() -> None:
    assert testhelpers.test_helpers(GRAPH.files, IMPORTERS, AMONG, lambda path: None) == {
        "testutils/__init__.py",
        "testutils/asserts.py",
        "testutils/compare.py",
    }


def test_a_helper_imported_through_code_is_not_one() -> None:
    files = {
        "calc.py": b"import support\n",
        "support.py": b"def assert_equal(a, b):\n    assert a == b\n",
        "tests/test_calc.py": b"import calc\n",
    }
    built = importmap.build(files)
    importers = built.importers()
    among = testhelpers.candidates(built.files, importers)
    assert testhelpers.test_helpers(built.files, importers, among, files.get) == frozenset()


def test_the_words_that_say_a_module_serves_the_tests() -> None:
    said = [
        "support.py",
        "helpers.py",
        "pkg/testutils/x.py",
        "fixtures_data.py",
        "mocks/net.py",
        "testlib.py",
    ]
    assert all(testhelpers.says_test(path) for path in said)
    assert not any(
        testhelpers.says_test(path) for path in ["calc.py", "src/app/core.py", "utils.py", "latest.py"]
    )
