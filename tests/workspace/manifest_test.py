"""The manifest diff: which files changed between a verifier's start and its stop, and how."""

from __future__ import annotations

import pytest

from tiergate.loop.messages import changed_files
from tiergate.workspace.manifest import ABSENT, Changes, Manifest, changes, from_dict, to_dict


def taken(
    files: dict[str, str], at_base: frozenset[str] | set[str] = frozenset(), head: str = "h1"
) -> Manifest:
    return Manifest(f"digest-of-{sorted(files.items())}-{head}", head, files, frozenset(at_base))


def test_nothing_changed_is_empty() -> None:
    start = taken({"a.py": "-111", "gone.md": ABSENT}, {"gone.md"})
    assert changes(start, start) == Changes()
    assert changes(start, start).empty


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # A new file appears (not in the base, so it was not listed at the start).
        (taken({}), taken({"new.py": "-111"}), Changes(added=("new.py",))),
        # A base file is edited: listed only at the stop, and it is in the base.
        (taken({}), taken({"app.py": "-222"}, {"app.py"}), Changes(modified=("app.py",))),
        # A base file is deleted.
        (taken({}), taken({"app.py": ABSENT}, {"app.py"}), Changes(deleted=("app.py",))),
        # A file already changed since the base is edited again.
        (
            taken({"app.py": "-222"}, {"app.py"}),
            taken({"app.py": "-333"}, {"app.py"}),
            Changes(modified=("app.py",)),
        ),
        # A file the implementer added is removed: back to "not there", as in the base.
        (taken({"new.py": "-111"}), taken({}), Changes(deleted=("new.py",))),
        # An edited base file is put back as the base has it: still a modification.
        (taken({"app.py": "-222"}, {"app.py"}), taken({}), Changes(modified=("app.py",))),
        # A base file the implementer deleted is restored.
        (taken({"app.py": ABSENT}, {"app.py"}), taken({}), Changes(added=("app.py",))),
        # A new file made executable: its digest changes.
        (taken({"run.sh": "-444"}), taken({"run.sh": "x444"}), Changes(modified=("run.sh",))),
    ],
)
def test_each_kind_of_change_is_told_apart(before: Manifest, after: Manifest, expected: Changes) -> None:
    assert changes(before, after) == expected


def test_several_changes_are_sorted_by_kind_and_a_commit_moves_head() -> None:
    before = taken({"b.py": "-1", "a.py": "-1", "old.md": "-1"}, {"old.md"}, head="h1")
    after = taken({"b.py": "-2", "a.py": "-2", "old.md": ABSENT, "z.txt": "-9"}, {"old.md"}, head="h2")
    assert changes(before, after) == Changes(
        added=("z.txt",), modified=("a.py", "b.py"), deleted=("old.md",), head=("h1", "h2")
    )


def test_the_text_names_each_file_with_its_change_and_counts_the_rest() -> None:
    few = Changes(added=("new.py",), modified=("app.py",), deleted=("old.md",))
    assert changed_files(few) == "added new.py; modified app.py; deleted old.md"
    many = Changes(added=tuple(f"f{i}.py" for i in range(12)), deleted=("old.md",))
    text = changed_files(many, limit=10)
    assert text == f"added {', '.join(f'f{i}.py' for i in range(10))} and 3 more"
    moved = Changes(head=("a" * 40, "b" * 40))
    assert changed_files(moved) == f"HEAD moved from {'a' * 12} to {'b' * 12}"


def test_a_manifest_survives_its_file_form_and_a_foreign_one_is_refused() -> None:
    start = taken({"a.py": "-1", "gone.md": ABSENT}, {"gone.md"})
    assert from_dict(to_dict(start)) == start
    assert from_dict({"schema": 1, "digest": "d", "head": None, "files": {"a": 1}, "at_base": []}) is None
    assert from_dict({"schema": 2, "digest": "d", "head": None, "files": {}, "at_base": []}) is None
    assert from_dict(["not", "a", "manifest"]) is None
