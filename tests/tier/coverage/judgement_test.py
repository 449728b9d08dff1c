from __future__ import annotations

from pathlib import Path

import pytest
from testing.coverageproject import AN_HOUR, BASE_CALC, CHANGED_CALC, age, commit, judge, measure
from testing.gitrepo import git, init_repo, write

from tiergate.tier.change import measure_change
from tiergate.tier.coverage.judgement import CoverageJudgement, changed_lines, classify


def test_stale_data_is_not_used(calc: Path) -> None:
    measure(calc, ["add", "sub"], "coverage.json")
    write(calc, {"calc.py": CHANGED_CALC + "\n\ndef mul(a, b):\n    return a * b\n"})
    judgement = judge(calc)
    assert judgement == CoverageJudgement(
        "none",
        "coverage data not usable (coverage.json is stale, older than calc.py); "
        "tests touch none of the 1 changed code file",
    )


def test_stale_data_with_tests_touching_the_change_is_partial_never_full(calc: Path) -> None:
    write(
        calc, {"tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"}
    )
    age(calc / "tests" / "test_calc.py", 2 * AN_HOUR)
    measure(calc, ["add", "sub"], "coverage.xml")
    age(calc / "coverage.xml", 3 * AN_HOUR // 2)
    assert judge(calc) == CoverageJudgement(
        "partial",
        "coverage data not usable (coverage.xml is stale, older than calc.py); "
        "tests touch the change (1 changed test file: tests/test_calc.py): partial at most",
    )


def test_fresh_data_is_used_and_stale_data_named(calc: Path) -> None:
    measure(calc, ["add"], "coverage.json")
    (calc / "lcov.info").write_text("SF:calc.py\nDA:2,1\nDA:3,1\nDA:7,1\nDA:8,1\nend_of_record\n")
    age(calc / "lcov.info", 2 * AN_HOUR)
    assert judge(calc) == CoverageJudgement(
        "partial",
        "coverage.json (coverage.py JSON, newer than the change) covers 2/4 changed executable lines; "
        "not run: calc.py:7-8; not used: lcov.info is stale, older than calc.py",
    )


def test_unreadable_data_is_named(calc: Path) -> None:
    (calc / "coverage.json").write_text("{not json")
    (calc / "coverage.xml").write_text("<report/>")
    (calc / ".coverage").write_bytes(b"not\na\ndatabase\n" * 100)
    judgement = judge(calc)
    assert judgement.level == "none"
    assert judgement.evidence.startswith(
        "coverage data not usable (coverage.json is unreadable: not valid coverage.py JSON: "
    )
    assert (
        "coverage.xml is unreadable: not valid Cobertura XML: root element is <report>" in judgement.evidence
    )


def test_no_data_and_no_tests(calc: Path) -> None:
    assert judge(calc) == CoverageJudgement(
        "none", "no coverage data; tests touch none of the 1 changed code file"
    )


def test_no_data_and_a_test_naming_the_changed_module(calc: Path) -> None:
    commit(calc, {"tests/test_arith.py": "import calc\n", "docs/calc.md": "calc\n"})
    assert judge(calc) == CoverageJudgement(
        "partial",
        "no coverage data; tests touch the change (1 test file naming changed modules: tests/test_arith.py): "
        "partial at most",
    )


def test_tests_in_ignored_places_or_naming_other_words_do_not_touch(calc: Path) -> None:
    commit(calc, {".gitignore": "scratch/\n", "tests/test_other.py": "import calculator\n"})
    write(calc, {"scratch/test_calc.py": "import calc\n"})
    assert judge(calc).level == "none"


def test_a_generic_module_name_is_looked_for_as_its_package(tmp_path: Path) -> None:
    repo = init_repo(
        tmp_path / "r", {"shapes/__init__.py": "X = 1\n", "tests/test_shapes.py": "import shapes\n"}
    )
    write(repo, {"shapes/__init__.py": "X = 2\n"})
    assert judge(repo).level == "partial"


def test_go_file_with_its_test_twin_and_rust_file_with_its_own_tests(tmp_path: Path) -> None:
    repo = init_repo(
        tmp_path / "r",
        {"pkg/parse.go": "package pkg\n", "pkg/parse_test.go": "package pkg\n", "src/lib.rs": "fn a() {}\n"},
    )
    write(repo, {"pkg/parse.go": "package pkg\n\nfunc P() {}\n"})
    assert judge(repo) == CoverageJudgement(
        "partial",
        "no coverage data; tests touch the change (1 changed file with tests of its own: pkg/parse.go): "
        "partial at most",
    )
    git(repo, "checkout", "--", "pkg/parse.go")
    write(repo, {"src/lib.rs": "fn a() {}\n\n#[cfg(test)]\nmod tests {}\n"})
    assert judge(repo).evidence.endswith(
        "(1 changed file with tests of its own: src/lib.rs): partial at most"
    )
    write(repo, {"src/lib.rs": "fn a() {}\nfn b() {}\n"})
    assert judge(repo).level == "none"


def test_docs_only_change_is_vacuously_full(calc: Path) -> None:
    git(calc, "checkout", "--", "calc.py")
    write(calc, {"README.md": "calc, documented\n", "docs/usage.md": "use it\n", "setup.cfg": "[x]\n"})
    assert judge(calc) == CoverageJudgement(
        "full",
        "no code changed (3 files: docs, config, data or tests): no changed executable line to cover",
    )


def test_empty_change_is_vacuously_full(calc: Path) -> None:
    git(calc, "checkout", "--", "calc.py")
    assert judge(calc) == CoverageJudgement("full", "empty change: no changed executable line to cover")


def test_deleting_or_moving_code_is_vacuously_full(calc: Path) -> None:
    write(calc, {"calc.py": "def add(a, b):\n    return a + b\n"})
    git(calc, "mv", "drive.py", "driver.py")
    assert judge(calc) == CoverageJudgement(
        "full",
        "code changed only by deletions, moves or mode changes (2 files): "
        "no changed executable line to cover",
    )


def test_only_tests_changed_is_vacuously_full(calc: Path) -> None:
    git(calc, "checkout", "--", "calc.py")
    write(calc, {"tests/test_calc.py": "import calc\n"})
    assert judge(calc).evidence.startswith("no code changed (1 file: docs, config, data or tests)")


def test_changed_lines_that_are_not_executable_need_no_coverage(calc: Path) -> None:
    git(calc, "checkout", "--", "calc.py")
    write(calc, {"calc.py": "# arithmetic\n" + BASE_CALC.replace("\n\n\n", "\n\n# subtraction\n\n")})
    age(calc / "calc.py")
    measure(calc, [], "coverage.json")
    assert judge(calc) == CoverageJudgement(
        "full",
        "coverage.json (coverage.py JSON, newer than the change) knows none of the changed lines "
        "of 1 code file as executable: no changed executable line to cover",
    )


def test_a_code_file_the_data_does_not_know_is_not_covered(calc: Path) -> None:
    write(calc, {"extra.py": "A = 1\nB = 2\n\nC = 3\n"})
    age(calc / "extra.py")
    measure(calc, ["add", "sub"], "coverage.json")
    assert judge(calc) == CoverageJudgement(
        "partial",
        "coverage.json (coverage.py JSON, newer than the change) covers 4/8 changed executable lines; "
        "files the data does not know: extra.py (4 lines)",
    )


def test_changed_lines_of_odd_names_renames_and_untracked_files(tmp_path: Path) -> None:
    names = ["with space.py", "new\nline.py", 'quo"te.py', "ünï cødé.py", "a b/c.py", "-dash.py"]
    repo = init_repo(tmp_path / "r", {**dict.fromkeys(names, "a\nb\nc\n"), "old.py": "1\n2\n3\n4\n5\n"})
    write(repo, dict.fromkeys(names, "a\nB\nc\nd\n"))
    git(repo, "mv", "old.py", "new.py")
    write(repo, {"new.py": "1\n2\nthree\n4\n5\n", "fresh.py": "x\ny"})
    change = measure_change(repo)
    expected = {name: frozenset({2, 4}) for name in names}
    expected |= {"new.py": frozenset({3}), "fresh.py": frozenset({1, 2})}
    assert changed_lines(change, change.files) == expected


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/tiergate/change.py", "code"),
        ("tests/change_test.py", "test"),
        ("pkg/test_util.py", "test"),
        ("conftest.py", "test"),
        ("stubs/x.pyi", None),
        ("web/src/App.tsx", "code"),
        ("web/src/App.test.tsx", "test"),
        ("web/src/__tests__/app.js", "test"),
        ("lib/util.spec.mjs", "test"),
        # `node --test`'s own defaults (the red team's R4: an honest test file read as code got mutants)
        ("grade_test.js", "test"),
        ("lib/grade-test.cjs", "test"),
        ("test-grade.mjs", "test"),
        ("test.js", "test"),
        ("lib/latest.js", "code"),
        ("cmd/main.go", "code"),
        ("cmd/main_test.go", "test"),
        ("src/lib.rs", "code"),
        ("tests/integration.rs", "test"),
        ("src/main/java/com/acme/Foo.java", "code"),
        ("src/test/java/com/acme/FooHelper.java", "test"),
        ("app/FooTest.kt", "test"),
        ("lib/thing.rb", "code"),
        ("spec/thing_spec.rb", "test"),
        ("install.sh", "code"),
        ("README.md", None),
        ("pyproject.toml", None),
        ("data/points.json", None),
        ("testing/gitrepo.py", "code"),
    ],
)
def test_what_is_code_and_what_is_a_test(path: str, kind: str | None) -> None:
    assert classify(path) == kind


def test_deleting_a_code_file_is_still_a_code_change(calc: Path) -> None:
    git(calc, "checkout", "--", "calc.py")
    (calc / "drive.py").unlink()
    assert judge(calc) == CoverageJudgement(
        "full",
        "code changed only by deletions, moves or mode changes (1 file): no changed executable line to cover",
    )
