"""The Rust tests a change edits inside its code files, on real git (`tiergate.gate.rusttests`): whether it
touches any, and the scratch copy of the base's tests, which holds each such file's code as claimed with
its tests as at the base."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import git, init_repo, write
from testing.rustproject import BASE_LIB, CORRECT, INTEGRATION, TESTS, lib

from tiergate.gate.rusttests import touches_tests
from tiergate.gate.scratch import base_tests_copy

WRONG = "pub fn mul(a: i64, b: i64) -> i64 {\n    a + b\n}\n"
EDITED = lib(WRONG, TESTS.replace("mul(2, 3), 6", "mul(2, 3), 5"))
NEW_MODULE = "pub fn half(a: i64) -> i64 {\n    a / 2\n}\n\n" + TESTS.replace("mul", "half")


def repository(root: Path) -> tuple[Path, str]:
    repo = init_repo(root / "project", {"src/lib.rs": BASE_LIB, "src/unchanged.rs": BASE_LIB})
    return repo, git(repo, "rev-parse", "HEAD").strip()


def test_the_copy_holds_the_claimed_code_with_its_tests_as_at_the_base(tmp_path: Path) -> None:
    repo, base = repository(tmp_path)
    write(repo, {"src/lib.rs": EDITED, "src/half.rs": NEW_MODULE})

    assert touches_tests(repo, base, ["src/lib.rs", "src/half.rs"])
    with base_tests_copy(repo, base) as made:
        copy = made.cwd
        assert (copy / "src/lib.rs").read_text() == lib(WRONG)
        assert (copy / "src/half.rs").read_text().startswith("pub fn half(a: i64) -> i64 {\n    a / 2\n}\n")
        assert "mod tests" not in (copy / "src/half.rs").read_text()  # a test the change added: left out
        assert (copy / "src/unchanged.rs").read_text() == BASE_LIB
    assert (repo / "src/lib.rs").read_text() == EDITED  # the workspace as it was


def test_a_change_to_the_code_alone_touches_no_test(tmp_path: Path) -> None:
    repo, base = repository(tmp_path)
    write(repo, {"src/lib.rs": CORRECT})

    assert not touches_tests(repo, base, ["src/lib.rs"])
    with base_tests_copy(repo, base) as made:
        copy = made.cwd
        assert (copy / "src/lib.rs").read_text() == CORRECT


def test_an_integration_test_is_put_back_whole_and_a_new_one_removed(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project", {"src/lib.rs": BASE_LIB, "tests/calc.rs": INTEGRATION})
    base = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"tests/calc.rs": INTEGRATION.replace("6", "5"), "tests/more.rs": INTEGRATION})

    assert not touches_tests(repo, base, ["tests/calc.rs", "tests/more.rs"])  # tests by their path
    with base_tests_copy(repo, base) as made:
        copy = made.cwd
        assert (copy / "tests/calc.rs").read_text() == INTEGRATION
        assert not (copy / "tests/more.rs").exists()


def test_a_deleted_file_with_tests_touches_them(tmp_path: Path) -> None:
    repo, base = repository(tmp_path)
    (repo / "src/unchanged.rs").unlink()

    assert touches_tests(repo, base, ["src/unchanged.rs"])
