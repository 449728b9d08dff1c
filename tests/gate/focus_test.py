"""A failing output's lines about the new failures first (`tiergate.gate.focus`)."""

from __future__ import annotations

from tiergate.gate.focus import focus


def test_focus_puts_the_new_tests_lines_first_and_attributes_by_whole_names() -> None:
    output = "\n".join(
        [
            "______ ERROR at setup of test_a ______",
            "E       NotImplementedError: not yet",
            "app.py:2: NotImplementedError",
            "______ test_a_b ______",
            "E       assert 1 == 2",
            "test_app.py:9: AssertionError",
            "FAILED test_app.py::test_a_b - assert 1 == 2",
            "ERROR test_app.py::test_a - NotImplementedError: not yet",
            "1 failed, 1 error in 0.01s",
        ]
    )
    focused = focus(output, ["test_app.py::test_a_b"])
    assert focused.first == (
        "______ test_a_b ______",
        "E       assert 1 == 2",
        "test_app.py:9: AssertionError",
        "FAILED test_app.py::test_a_b - assert 1 == 2",
    )
    assert focused.rest[0] == "______ ERROR at setup of test_a ______"
    assert focused.rest[-1] == "1 failed, 1 error in 0.01s"
