"""What a process can write into a claim's copy while its checks run, and what it is let write. Pure."""

from __future__ import annotations

from tiergate.gate.cleancopy import written_since
from tiergate.gate.untouched import Snapshot

BEFORE = Snapshot({"calc.py": (1, 10), "pkg/mod.py": (2, 10), "tests/test_calc.py": (3, 10)})


def test_a_file_tiergate_wrote_rewritten_or_gone_is_named() -> None:
    after = Snapshot({"calc.py": (1, 11), "tests/test_calc.py": (3, 10)})

    assert written_since(BEFORE, after) == ("calc.py", "pkg/mod.py")


def test_a_new_file_imported_in_place_of_a_module_is_named() -> None:
    planted = {"calc/__init__.py": (4, 12), "pkg/mod.cpython-311-x86_64-linux-gnu.so": (5, 12)}
    after = Snapshot({**BEFORE.files, **planted})

    assert written_since(BEFORE, after) == tuple(sorted(planted))


def test_a_cache_of_the_change_the_checks_write_again_is_let_be() -> None:
    cached = {".pytest_cache/v/cache/nodeids": (9, 10), "snapshots/calc.snap": (10, 10)}
    before = Snapshot({**BEFORE.files, **cached})
    after = Snapshot(
        {**BEFORE.files, ".pytest_cache/v/cache/nodeids": (11, 12), "snapshots/calc.snap": (10, 13)}
    )

    assert written_since(before, after) == ()


def test_what_the_checks_leave_beside_the_code_is_let_be() -> None:
    left = {".pytest_cache/v/cache": (6, 12), "build/lib/calc.py": (7, 12), "report.xml": (8, 12)}

    assert written_since(BEFORE, Snapshot({**BEFORE.files, **left})) == ()
