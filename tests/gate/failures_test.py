"""How one test failed, and when two failures are the same (`tiergate.gate.failures`)."""

from __future__ import annotations

import pytest

from tiergate.gate.failures import Failure, normalise


@pytest.mark.parametrize(
    ("one", "other"),
    [
        # memory addresses
        (
            "assert 0 == 2 where [] = <function list_todos at 0x7fca9d343100>()",
            "assert 0 == 2 where [] = <function list_todos at 0x7f310a0f31a0>()",
        ),
        ("assert [] == [<object obje...7fccc354db70>]", "assert [] == [<object obje...7f0012ab34cd>]"),
        # durations
        ("TimeoutError: gave up after 0.12s", "TimeoutError: gave up after 3.5s"),
        ("--- FAIL: TestX (0.00s)", "--- FAIL: TestX (12.31s)"),
        ("took 12ms", "took 840 ms"),
        # temporary paths
        ("FileNotFoundError: /tmp/tmpab12cd/data.json", "FileNotFoundError: /tmp/tmpzz9/data.json"),
        (
            "OSError: /tmp/pytest-of-root/pytest-15/test_a0/x.txt",
            "OSError: /tmp/pytest-of-bob/pytest-3/test_a1/x.txt",
        ),
        ("OSError: pytest-of-root/pytest-15/test_a0", "OSError: pytest-of-dev/pytest-2/test_a0"),
        ("OSError: /private/var/folders/xy/T/abc", "OSError: /var/folders/zz/T/def"),
        # line numbers
        ("app.py:7: NotImplementedError", "app.py:19: NotImplementedError"),
        ('File "app.py", line 7, in reset', 'File "app.py", line 12, in reset'),
        ("panicked at src/lib.rs:11:25: the widget broke", "panicked at src/lib.rs:40:3: the widget broke"),
        ("filter_test.go:21: returned 0 items, want 3", "filter_test.go:23: returned 0 items, want 3"),
        # xdist's workers
        (
            "worker 'gw0' crashed while running 'tests/test_crash.py::test_crash'",
            "worker 'gw11' crashed while running 'tests/test_crash.py::test_crash'",
        ),
        # spacing
        ("assert  1 == 2 ", "assert 1 == 2"),
    ],
)
def test_the_normaliser_takes_away_what_differs_between_runs(one: str, other: str) -> None:
    assert one != other and normalise(one) == normalise(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("ValueError: boom", "KeyError: boom"),  # another exception type
        ("AssertionError: filtered on the wrong field", "AssertionError: nothing stored"),  # another message
        ("assert 1 == 2", "assert 1 == 3"),
        ("assert [] == ['milk']", "assert ['bread'] == ['milk']"),
        ("filter_test.go:21: returned 0 items, want 3", "filter_test.go:21: returned 2 items, want 3"),
        ("expected 3 items, got 0", "expected 4 items, got 0"),  # a count is not a line number
        ("FileNotFoundError: data.json", "FileNotFoundError: other.json"),
    ],
)
def test_the_normaliser_keeps_what_tells_two_failures_apart(one: str, other: str) -> None:
    assert normalise(one) != normalise(other)


def failure(test: str, kind: str, line: str, where: str = "") -> Failure:
    return Failure(test, kind, line, normalise(line), where)


def test_a_failure_is_the_same_only_with_the_same_kind_exception_and_message() -> None:
    error = failure("t", "error", "NotImplementedError: reset is not implemented yet", "setup")
    assert error.exception == "NotImplementedError"
    assert error.same_as(failure("t", "error", "NotImplementedError: reset is not implemented yet", "setup"))
    assert not error.same_as(failure("t", "failed", "NotImplementedError: reset is not implemented yet"))
    assert not error.same_as(failure("t", "error", "NotImplementedError: reset is not implemented yet"))
    assert not error.same_as(failure("t", "error", "RuntimeError: reset is not implemented yet", "setup"))
    assert failure("t", "failed", "assert 0 == 2").exception == "AssertionError"
    # pytest cuts its summary at the terminal's width: a cut message matches one that goes on the same way.
    cut = failure("t", "error", "NotImplementedError: reset i...", "setup")
    assert cut.same_as(error) and error.same_as(cut)
    assert not failure("t", "failed", "AssertionError: ass...").same_as(
        failure("t", "failed", "assert 0 == 2")
    )
