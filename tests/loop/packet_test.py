"""The evidence packet's order and marks (pure): checks still failing as at the base lead it, a claim
that changed nothing says so first of all, each changed path is marked A, M, D or R, and the tests'
story has its own section."""

from __future__ import annotations

from dataclasses import replace

from testing.loopfacts import verification as a_verification
from testing.loopfacts import working

from tiergate.loop.packet import packet
from tiergate.loop.state import Verification

LEAD = (
    "STILL FAILING AS WHEN THE LOOP BEGAN (read this first): this claim is not green.",
    "- tests (`pytest -q`): exit 1; check tests (failing tests: tests/test_calc.py::test_div)",
)
TESTS = (
    "TESTS, per test check: counts at the loop's base and at this claim:",
    "- tests:",
    "  at the base: passed 1, failed 1, skipped 0, xfailed 0, not run 0 (from its pytest report)",
)


def verification(**fields: object) -> Verification:
    paths = ("calc.py", "kept.txt", "old.txt", "tests/test_more.py")
    return replace(a_verification(paths), **fields)  # type: ignore[arg-type]


def sections(text: str) -> list[str]:
    return text.split("\n\n")


def test_the_failing_checks_lead_the_packet_before_the_task_and_the_change() -> None:
    text = packet(working(), verification(lead=LEAD))
    parts = sections(text)
    assert parts[1].splitlines() == list(LEAD)
    assert parts[2].startswith("TASK (") and text.index("CHANGE since") > text.index(LEAD[1])


def test_a_claim_that_changed_nothing_says_so_first_of_all() -> None:
    text = packet(working(), verification(lead=LEAD, files_changed=0, lines_changed=0, paths=()))
    assert sections(text)[1].startswith("NOTHING CHANGED since the loop began: the claim says done, yet")
    # Nothing changed, but nothing fails either: nothing to lead with.
    assert "NOTHING CHANGED" not in packet(working(), verification(files_changed=0, paths=()))


def test_without_failing_checks_nothing_leads_and_the_task_comes_first() -> None:
    assert sections(packet(working(), verification()))[1].startswith("TASK (")


def test_each_changed_path_is_marked_and_old_records_without_marks_read_as_before() -> None:
    marked = packet(working(), verification(marks=("M", "R", "D", "A")))
    assert "each path marked A added, M modified, D deleted, R renamed" in marked
    for line in ("- M calc.py", "- R kept.txt", "- D old.txt", "- A tests/test_more.py"):
        assert line in marked.splitlines()
    plain = packet(working(), verification())
    assert "- calc.py" in plain.splitlines() and "each path marked" not in plain


def test_the_tests_section_holds_the_gates_story_and_the_test_files_touched() -> None:
    text = packet(
        working(), verification(tests=TESTS, test_files=("M tests/test_calc.py", "A tests/test_more.py"))
    )
    section = next(s for s in sections(text) if s.startswith("TESTS, per test check"))
    assert section.splitlines()[: len(TESTS)] == list(TESTS)
    assert "- M tests/test_calc.py" in section and "- A tests/test_more.py" in section
    untouched = packet(working(), verification(tests=TESTS))
    assert "Test files this change touched: none." in untouched
    assert "TESTS, per test check" not in packet(working(), verification())
