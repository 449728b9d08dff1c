"""The schema of a `tiergate tier --batch` line (tier/batchschema.py): which model a line is read as, its
defaults, and the problems of a line that is not one, named by field, at most three."""

from __future__ import annotations

import pytest

from tiergate.tier.batchschema import FilesLine, MetadataLine, parse


def test_a_line_naming_files_is_a_files_line_with_partial_coverage_unless_it_says() -> None:
    line = parse({"files": ["src/app.py", "README.md"], "lines_changed": 12})

    assert line == FilesLine(lines_changed=12, files=["src/app.py", "README.md"])
    assert (line.test_coverage, line.prompt) == ("partial", None)
    assert parse({"files": [], "lines_changed": 0, "test_coverage": "full", "prompt": "fix it"}) == FilesLine(
        lines_changed=0, files=[], test_coverage="full", prompt="fix it"
    )


def test_a_line_without_files_is_read_as_its_metadata() -> None:
    data = {
        "files_changed": 3,
        "lines_changed": 40,
        "has_architectural_changes": False,
        "has_security_implications": True,
        "test_coverage": "none",
    }

    line = parse(data)

    assert isinstance(line, MetadataLine)
    assert (line.files_changed, line.has_security_implications, line.test_coverage) == (3, True, "none")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"files": ["a.py"], "lines_changed": 1, "bogus": 1}, "bogus: unknown field"),
        (
            {"files": ["a.py"], "lines_changed": -1},
            "lines_changed: Input should be greater than or equal to 0",
        ),
        # Strict: a bool is not a count, nor a string a list.
        (
            {"files": "a.py", "lines_changed": True},
            "lines_changed: Input should be a valid integer; files: Input should be a valid list",
        ),
        (
            {"files": ["a.py"], "lines_changed": 1, "test_coverage": "most"},
            "test_coverage: Input should be 'none', 'partial' or 'full'",
        ),
        # A metadata line: a count written as a string, and what it leaves out.
        (
            {"files_changed": "3", "lines_changed": 1, "test_coverage": "full"},
            "files_changed: Input should be a valid integer; has_architectural_changes: Field required; "
            "has_security_implications: Field required",
        ),
    ],
)
def test_a_line_that_is_not_one_is_an_error_naming_its_fields(data: dict[str, object], problem: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse(data)

    assert str(raised.value) == problem


def test_at_most_three_problems_are_named() -> None:
    with pytest.raises(ValueError) as raised:
        parse({"bogus": 1, "other": 2})

    problems = str(raised.value).split("; ")
    assert problems == [
        "lines_changed: Field required",
        "files_changed: Field required",
        "has_architectural_changes: Field required",
    ]
