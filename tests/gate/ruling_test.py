"""The gate's verdict: new failures refute, failures that already existed at the baseline do not, and what
Claude and the verifier are shown stays bounded and to the point."""

from __future__ import annotations

import json
from dataclasses import replace

from tiergate.gate.checks import CheckResult, Status, kind_of
from tiergate.gate.pertest.record import TestRun
from tiergate.gate.ruling import GateResult, judge, new_compile_failures
from tiergate.gate.standing import CANNOT_RUN, DISAGREEING, UNFINISHED, BaselineEntry

PASSED = "3 passed in 0.10s\n"


def pytest_output(*failing: str) -> str:
    lines = [f"E       assert '{name}' == 'ok'" for name in failing]
    lines += [f"FAILED tests/test_app.py::{name} - assert '{name}' == 'ok'" for name in failing]
    lines.append(f"{len(failing)} failed, 2 passed in 0.42s")
    return "\n".join(lines) + "\n"


def result(
    name: str = "tests",
    status: Status = "failed",
    output: str = "",
    *,
    command: str = "pytest -q",
    code: int | None = 1,
    reason: str = "exit 1",
) -> CheckResult:
    kind = kind_of(name, command)
    stage = 1 if kind in ("syntax", "build") else 2
    if status == "passed":
        code, reason = 0, "exit 0"
    return CheckResult(name, command, kind, stage, status, code, 1.25, output, len(output), reason)


def at_base(*results: CheckResult) -> dict[str, BaselineEntry]:
    return {r.key: BaselineEntry(r, "worktree") for r in results}


def test_passing_checks_do_not_refute_and_go_into_the_evidence_packet() -> None:
    gate = judge(
        [result(status="passed", output=PASSED), result("lint", "passed", command="ruff check .")], {}
    )
    assert not gate.refuted
    assert [v.standing for v in gate.verdicts] == ["passed", "passed"]
    assert gate.report_text().startswith("tiergate's checks pass (2 checks).")
    packet = gate.packet_lines()
    assert packet[1] == "- tests (`pytest -q`, tests): passed in 1.2 s"
    assert packet[2] == "- lint (`ruff check .`, lint): passed in 1.2 s"


def test_a_failure_without_a_baseline_result_is_new_and_refutes() -> None:
    gate = judge([result(output=pytest_output("test_filter"))], {})
    assert gate.refuted
    (verdict,) = gate.new_failures
    assert verdict.new_tests == ("tests/test_app.py::test_filter",)
    text = gate.report_text()
    assert "FAILED: tests [tests failure] `pytest -q`: exit 1 after 1.2 s" in text
    assert "new failing tests: tests/test_app.py::test_filter" in text
    assert "| E       assert 'test_filter' == 'ok'" in text
    assert text.rstrip().endswith("`tiergate checks` runs the same checks.")


def test_a_failure_of_a_check_that_passed_at_the_baseline_is_new() -> None:
    gate = judge([result(output=pytest_output("test_a"))], at_base(result(status="passed", output=PASSED)))
    assert gate.refuted
    assert gate.verdicts[0].reason == "passed at the baseline"


def test_the_same_failure_as_at_the_baseline_is_pre_existing_and_does_not_refute() -> None:
    before = result(output=pytest_output("test_a", "test_b"))
    gate = judge([result(output=pytest_output("test_a", "test_b"))], at_base(before))
    assert not gate.refuted
    (verdict,) = gate.pre_existing
    assert verdict.reason == (
        "failed at the baseline too (the same failing tests or fewer, failing the same way; "
        "baseline run in a worktree of the base)"
    )
    text = gate.report_text()
    assert text.startswith(
        "tiergate's checks do not refute the claim: 1 check of 1 fails, as when the loop began."
    )
    assert "Pre-existing, not held against this claim: tests" in text
    assert "pre-existing" in gate.packet_lines()[1]
    assert "tests/test_app.py::test_a" in gate.packet_lines()[1]


def test_a_new_failing_test_in_a_check_that_failed_before_is_a_new_failure() -> None:
    before = result(output=pytest_output("test_a", "test_b"))
    gate = judge([result(output=pytest_output("test_a", "test_b", "test_c"))], at_base(before))
    assert gate.refuted
    (verdict,) = gate.new_failures
    assert verdict.new_tests == ("tests/test_app.py::test_c",)
    assert verdict.reason == "1 failing test not failing at the baseline"
    text = gate.report_text()
    assert "new failing tests: tests/test_app.py::test_c\n" in text
    assert "failing at the baseline too: tests/test_app.py::test_a, tests/test_app.py::test_b" in text


def test_fewer_failing_tests_than_at_the_baseline_is_still_pre_existing() -> None:
    before = result(output=pytest_output("test_a", "test_b"))
    assert not judge([result(output=pytest_output("test_b"))], at_base(before)).refuted


def test_a_timeout_is_new_whatever_the_baseline() -> None:
    hung = result(status="timed_out", output="", code=-15, reason="timed out after 300 s")
    for before in (result(output=pytest_output("test_a")), hung):
        gate = judge([hung], at_base(before))
        assert gate.refuted
        assert gate.verdicts[0].reason == UNFINISHED
    assert new_compile_failures([result("build", "timed_out", command="make")], at_base(hung))


def test_failing_differently_is_new() -> None:
    missing = result(status="not_found", output="sh: 1: pytest: not found\n", code=127, reason="not found")
    failing = result(output=pytest_output("test_a"))
    gate = judge([failing], at_base(missing))
    assert gate.refuted
    assert gate.verdicts[0].reason == "fails differently: not found at the baseline"
    crashed = result(output="Traceback (most recent call last):\nImportError: no module named app\n")
    gate = judge([crashed], at_base(result(output=pytest_output("test_a"))))
    assert gate.refuted
    assert gate.verdicts[0].reason == (
        "fails differently: it named failing tests at the baseline and names none now"
    )


def test_output_without_test_names_fails_the_same_way_as_before() -> None:
    build = result("build", output="error: cannot find `c`\n", command="cargo build")
    assert not judge([build], at_base(build)).refuted
    gate = judge([build], at_base(build))
    assert "its output names no tests to compare" in gate.verdicts[0].reason


def test_a_check_that_could_not_run_refutes_even_when_it_could_not_run_at_the_baseline_either() -> None:
    reason = "could not run: `ruff` is not on PATH"
    missing = result("lint", "not_found", "", command="ruff check .", code=None, reason=reason)
    tests = result(status="passed", output=PASSED)
    for baseline in ({}, at_base(missing), at_base(result("lint", command="ruff check ."))):
        gate = judge([tests, missing], baseline)
        assert gate.refuted
        assert [v.standing for v in gate.verdicts] == ["passed", "new"]
        assert gate.verdicts[1].reason == CANNOT_RUN
    text = gate.report_text()
    assert text.splitlines()[0] == (
        "tiergate's checks refute the claim: 1 check of 2 could not run, so no evidence."
    )
    assert "COULD NOT RUN: lint `ruff check .`: could not run: `ruff` is not on PATH" in text
    assert "`tiergate doctor` names what is missing" in text
    assert "Pre-existing" not in text


def test_a_shell_that_could_not_start_and_an_exit_127_are_no_evidence_either() -> None:
    started = result("tests", "error", code=None, reason="could not run: could not start: no such directory")
    shell = result("lint", "not_found", "/bin/sh: 1: ruff: not found\n", code=127, reason="could not run")
    gate = judge([started, shell], at_base(started, shell))
    assert [v.standing for v in gate.verdicts] == ["new", "new"]
    assert all(v.reason == CANNOT_RUN for v in gate.verdicts)


def test_a_new_failure_beside_a_check_that_could_not_run_names_both() -> None:
    missing = result("lint", "not_found", command="ruff check .", code=None, reason="could not run: gone")
    gate = judge([result(output=pytest_output("test_a")), missing], {})
    assert gate.report_text().splitlines()[0] == (
        "tiergate's checks refute the claim: new failures in 2 checks of 2, with nothing from when the loop "
        "began to compare with (lint could not run)."
    )


def test_compile_failures_come_first_and_say_so() -> None:
    build = result("build", output="src/app.ts(3,5): error TS2322: bad\n", command="tsc -p .")
    tests = result(output=pytest_output("test_a"))
    gate = judge([tests, build], {})
    text = gate.report_text()
    assert text.index("FAILED: build [syntax/compile failure]") < text.index("FAILED: tests [tests failure]")
    only_build = judge([build, result(status="skipped", code=None, reason="not run")], {})
    assert only_build.report_text().splitlines()[0] == (
        "tiergate's checks refute the claim: new syntax/compile failures in 1 check of 2, with nothing from "
        "when the loop began to compare with."
    )
    assert "Not run, because the compile stage failed first: tests" in only_build.report_text()
    assert [v.standing for v in only_build.verdicts] == ["new", "skipped"]


def test_only_a_new_compile_failure_stops_the_behaviour_stage() -> None:
    build = result("build", output="error: broken\n", command="make")
    tests = result(output=pytest_output("test_a"))
    assert new_compile_failures([build], {})
    assert not new_compile_failures([build], at_base(build))  # broken before the loop: run the tests anyway
    assert not new_compile_failures([tests], {})  # not a compile-stage check
    assert not new_compile_failures([result("build", "passed", command="make")], {})


def test_the_report_fits_its_limit_and_names_every_failing_check() -> None:
    noisy = "\n".join(f"E   assert {i} == 0 " + "x" * 200 for i in range(300))
    failing = [result(f"tests-{i}", output=noisy, command=f"pytest shard{i}") for i in range(10)]
    gate = judge(failing, {})
    text = gate.report_text(6000)
    assert len(text) <= 6000
    for i in range(10):
        assert f"FAILED: tests-{i} " in text
    assert "more lines]" in text
    assert len(gate.report_text(2000)) <= 2000


def test_reused_results_say_so() -> None:
    gate = replace(judge([result(status="passed")], {}), fingerprint="ab" * 32, reused=True)
    assert "reused" in gate.report_text()
    assert gate.packet_lines()[0] == (
        "CHECKS tiergate ran on this exact workspace (fingerprint abababababab, reused from an earlier run "
        "on this same workspace):"
    )


def test_no_checks_at_all() -> None:
    gate = judge([], {})
    assert not gate.refuted
    assert gate.reasons == ("no checks: none configured and none detected",)
    assert gate.report_text() == "tiergate ran no checks: none are configured and none were detected."
    assert gate.packet_lines()[0].startswith("CHECKS: none;")


def test_the_json_form_names_every_check_and_its_standing() -> None:
    before = result(output=pytest_output("test_a"))
    gate: GateResult = judge(
        [result(output=pytest_output("test_a", "test_b")), result("lint", "passed")], at_base(before)
    )
    data = json.loads(json.dumps(gate.to_dict()))
    assert data["refuted"] is True
    tests, lint = data["checks"]
    assert tests["standing"] == "new"
    assert tests["failed_tests"] == ["tests/test_app.py::test_a", "tests/test_app.py::test_b"]
    assert tests["new_tests"] == ["tests/test_app.py::test_b"]
    assert lint["standing"] == "passed"
    assert gate.reasons[0] == "tests: new: 1 failing test not failing at the baseline"


# Pre-existing means failing the same way ---------------------------------------------------------------

SETUP_ERROR = (
    "____ ERROR at setup of {name} ____\n"
    "E       NotImplementedError: reset is not implemented yet\n"
    "app.py:7: NotImplementedError\n"
)


def erroring_at_setup(*names: str) -> str:
    """pytest's output for tests whose fixture raised NotImplementedError (its addresses and timing vary)."""
    sections = "".join(SETUP_ERROR.format(name=name) for name in names)
    summary = "".join(
        f"ERROR tests/test_app.py::{name} - NotImplementedError: reset i...\n" for name in names
    )
    return f"{sections}{summary}{len(names)} errors in 0.31s\n"


def test_a_test_failing_otherwise_than_at_the_baseline_is_new_with_what_it_was() -> None:
    before = result(output=erroring_at_setup("test_a", "test_b"))
    now = (
        "____ test_a ____\nE       AssertionError: assert [] == ['milk']\n"
        "tests/test_app.py:12: AssertionError\n"
        "____ ERROR at setup of test_b ____\nE       NotImplementedError: reset is not implemented yet\n"
        "FAILED tests/test_app.py::test_a - AssertionError: assert [] == ['m...\n"
        "ERROR tests/test_app.py::test_b - NotImplementedError: reset is not implemented...\n"
        "1 failed, 1 error in 0.52s\n"
    )
    gate = judge([result(output=now)], at_base(before))

    assert gate.refuted
    (verdict,) = gate.new_failures
    assert verdict.new_tests == ("tests/test_app.py::test_a",)
    assert verdict.reason == "1 failing test that fails otherwise than at the baseline"
    lines = gate.report_text().splitlines()
    block = lines[lines.index(next(line for line in lines if line.startswith("FAILED: tests"))) :]
    assert block[1:4] == [
        "  new failing tests: tests/test_app.py::test_a",
        "  - tests/test_app.py::test_a: AssertionError: assert [] == ['milk'] now; at the baseline: "
        "NotImplementedError: reset is not implemented yet (error at setup)",
        "  failing at the baseline too: tests/test_app.py::test_b",
    ]
    assert gate.to_dict()["checks"][0]["new_failures"] == [block[2].removeprefix("  - ")]


def test_the_same_failure_with_other_addresses_timings_paths_and_lines_is_pre_existing() -> None:
    line = "ERROR tests/test_app.py::test_a - RuntimeError: <App at {}> in {}, app.py:{} after {}\n"
    before = result(output=line.format("0x7fca9d343100", "/tmp/tmpab12/x", 7, "0.12s"))
    now = result(output=line.format("0x7f0012ab34cd", "/tmp/tmpzz9/x", 9, "3.4s"))
    assert not judge([now], at_base(before)).refuted
    other = result(
        output=line.format("0x7fca9d343100", "/tmp/tmpab12/x", 7, "0.12s").replace("Runtime", "Value")
    )
    assert judge([other], at_base(before)).refuted


def test_an_error_where_a_failure_was_is_new() -> None:
    failing = "FAIL: test_x (pkg.Case.test_x)\nTraceback (most recent call last):\nAssertionError: 1 != 2\n"
    erroring = "ERROR: test_x (pkg.Case.test_x)\nTraceback (most recent call last):\nKeyError: 'a'\n"
    gate = judge([result(output=erroring)], at_base(result(output=failing)))
    assert gate.refuted
    (verdict,) = gate.verdicts
    assert [r.text() for r in verdict.reshaped] == [
        "pkg.Case.test_x: KeyError: 'a' (error) now; at the baseline: AssertionError: 1 != 2"
    ]


def test_output_naming_no_tests_is_new_when_it_has_an_error_line_the_baseline_did_not() -> None:
    lint = "src/app.py:3:1: error: name 'x' is not defined\n"
    before = result("lint", output=lint, command="mypy .")
    moved = result("lint", output=lint.replace(":3:1:", ":9:1:"), command="mypy .")
    assert not judge([moved], at_base(before)).refuted
    more = result("lint", output=lint + "src/app.py:20:5: error: missing return\n", command="mypy .")
    gate = judge([more], at_base(before))
    assert gate.refuted
    (verdict,) = gate.verdicts
    assert verdict.reason == "1 error line not in the baseline's output"
    assert (
        "  - src/app.py:20:5: error: missing return now; not in the baseline's output" in gate.report_text()
    )


def test_a_check_whose_report_disagrees_with_its_stream_is_never_excused_by_the_same_failure_then() -> None:
    # The output is the forger's to print too: failing just as at the base, exit status and tests alike.
    why = "the report disagrees with the outcomes the tests streamed as they ran: it has test_a passed"
    streamed = TestRun("pytest report", "pytest", (("tests/test_app.py::test_a", "failed"),), True)
    forged = replace(
        result(output=pytest_output("test_a"), reason=why), tests=replace(streamed, disagrees=why)
    )

    gate = judge([forged], at_base(result(output=pytest_output("test_a"))))

    assert gate.refuted and gate.verdicts[0].reason == DISAGREEING
    assert gate.report_text().splitlines()[0] == (
        "tiergate's checks refute the claim: in 1 check of 1, the tests' report disagrees with the outcomes "
        "they streamed as they ran, so no evidence."
    )
