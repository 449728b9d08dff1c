"""The rules that keep a claim off LIGHT whatever its size and coverage (issue 20): checks failing as at
the loop's base, and full coverage measured by tests the change edited; and on real git, which test
files a change edited (modified, deleted, renamed) rather than added."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import git, init_repo, write

from tiergate.tier.assess import changed_tests, edited_tests
from tiergate.tier.change import measure_change
from tiergate.tier.policy import ChangeFacts, Coverage, KeywordOverride, Tier, not_light, select_tier

FAILING = "check tests (failing tests: tests/test_calc.py::test_div)"


def facts(
    coverage: Coverage = "full",
    edited: tuple[str, ...] = (),
    failing: tuple[str, ...] = (),
    *,
    files: int = 2,
    architecture: bool = False,
) -> ChangeFacts:
    return ChangeFacts(
        files, 20, coverage, has_architectural_changes=architecture, edited_tests=edited, failing_then=failing
    )


def test_a_small_fully_covered_change_with_checks_failing_as_at_the_base_is_standard_naming_them() -> None:
    decision = select_tier(facts(failing=(FAILING,)))

    assert decision.tier is Tier.STANDARD
    assert decision.reasons[0].startswith(f"pre-existing-failures: {FAILING} still failing as when")
    assert decision.reasons[0].endswith("-> at least STANDARD")
    assert decision.reasons[1].startswith(
        "small-and-tested otherwise (2 files, 20 lines, test coverage full)"
    )


def test_a_change_standard_anyway_still_names_the_failing_checks() -> None:
    decision = select_tier(facts("partial", failing=(FAILING,)))

    assert decision.tier is Tier.STANDARD
    assert decision.reasons[0].startswith("pre-existing-failures:")
    assert decision.reasons[1].startswith("default: not LIGHT (test coverage partial")


def test_full_coverage_by_edited_tests_is_not_light_and_names_them() -> None:
    decision = select_tier(facts(edited=("tests/test_x.py",)))

    assert decision.tier is Tier.STANDARD
    assert decision.reasons[0].startswith(
        "edited-tests: coverage measured by tests this change edited (tests/test_x.py)"
    )


def test_edited_tests_only_matter_where_coverage_would_have_made_it_light() -> None:
    assert not_light(facts("partial", edited=("tests/test_x.py",))) == []
    partial = select_tier(facts("partial", edited=("tests/test_x.py",)))
    assert partial.tier is Tier.STANDARD and not any("edited-tests" in r for r in partial.reasons)


def test_honest_work_keeps_its_tier() -> None:
    assert select_tier(facts()).tier is Tier.LIGHT  # tests added, none edited: edited_tests is empty
    floored = select_tier(facts(edited=("tests/test_x.py",), failing=(FAILING,), architecture=True))
    assert floored.tier is Tier.THOROUGH  # the floors decide; these rules never raise past STANDARD


def test_a_keyword_asking_for_light_cannot_lower_either_rule() -> None:
    quick = KeywordOverride(Tier.LIGHT, "quick")
    for change in (facts(failing=(FAILING,)), facts(edited=("tests/test_x.py",))):
        decision = select_tier(change, override=quick)
        assert decision.tier is Tier.STANDARD
        assert decision.reasons[-1].startswith("keyword-light: 'quick' in the task asks for LIGHT; refused (")
    assert select_tier(facts(), override=quick).tier is Tier.LIGHT


def test_many_edited_tests_are_named_up_to_a_bound() -> None:
    many = tuple(f"tests/test_{n}.py" for n in range(9))
    [reason] = not_light(facts(edited=many))
    assert "tests/test_4.py and 4 more)" in reason and "test_5" not in reason


def test_the_test_files_a_change_edited_are_the_ones_the_loop_began_with(tmp_path: Path) -> None:
    files = {
        "calc.py": "x = 1\n",
        "tests/test_a.py": "def test_a():\n    pass\n",
        "tests/test_b.py": "def test_b():\n    pass\n",
        "tests/test_c.py": "def test_c():\n    pass\n",
        "tests/test_e.py": "def test_a():\n    pass\n",
    }
    root = init_repo(tmp_path / "repo", files)
    write(root, {"calc.py": "x = 2\n", "tests/test_a.py": "def test_a():\n    assert True\n"})
    write(root, {"tests/test_new.py": "def test_new():\n    pass\n"})
    write(root, {"tests/test_e.py": files["tests/test_a.py"] + "\n\ndef test_e():\n    pass\n"})
    (root / "tests/test_b.py").unlink()
    git(root, "mv", "tests/test_c.py", "tests/test_d.py")

    change = measure_change(root)

    # test_e.py only had a test added to it: its old tests are as they were.
    assert edited_tests(change) == ("tests/test_a.py", "tests/test_b.py", "tests/test_d.py")
    marks = {f.path: f.mark for f in changed_tests(change)}
    assert marks == {
        "tests/test_a.py": "M",
        "tests/test_b.py": "D",
        "tests/test_d.py": "R",
        "tests/test_e.py": "M",
        "tests/test_new.py": "A",
    }
    assert {f.path: f.mark for f in change.files}["calc.py"] == "M"
