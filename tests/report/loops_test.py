"""The loops of a report (report/loops.py), built from a real night's decision log (testing/reportnight.py
drives the real hooks): a long night bounded to its newest loops."""

from __future__ import annotations

import pytest
from testing import reportnight as tonight
from testing.reportfixtures import Logged, logged_fixture, long_night  # noqa: F401  (the `logged` fixture)

from tiergate.report import loops

# The night is logged once for the session (`logged`).
pytestmark = pytest.mark.long


def test_a_long_night_is_bounded_to_its_newest_loops(logged: Logged) -> None:
    # A hundred loops: the night's, again and again under new session ids.
    report = loops.build(long_night(logged.records), max_loops=20)

    assert (len(report.loops), report.total_loops, report.omitted_loops) == (20, 100, 80)
    assert report.loops[-1].session_id == f"0049-{tonight.SECOND}"  # the newest ones
