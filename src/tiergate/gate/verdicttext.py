"""The ruling's texts: the report Claude or a person reads of the failing checks, and the gate's
sections of a verifier's evidence packet.

Everything is bounded (the Stop's block reason must stay under Claude Code's 10,000 characters), and
every name or line that comes from the project or the agent is quoted. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tiergate.frozen import frozen
from tiergate.gate.checks import CheckResult
from tiergate.gate.focus import focus
from tiergate.gate.pertest.basetests import BaseTestFailure
from tiergate.gate.pertest.lost import LostTest
from tiergate.gate.pertest.record import FAILING, RAN, TestRun
from tiergate.gate.standing import (
    LOST_SHOWN,
    NEVER_EXCUSED,
    NO_BASELINE,
    RESHAPED_CHARS,
    UNFINISHED,
    CheckVerdict,
    Reshaped,
)
from tiergate.text import BLOCK_MARKER, clip, fit, listed, more_line, plural, quote_inline

REPORT_LIMIT = 6000
NAMES_SHOWN = 10
RESHAPED_SHOWN = 10
_MIN_BLOCK = 200


@frozen
class Against:
    """What `tiergate checks` compared the checks with, named for the person who ran it: the report the
    Stop gives Claude speaks of the claim and of when the loop began instead."""

    name: str  # "HEAD (1a2b3c4d5e6f)", "the loop's base (...)"; "" when there was nothing to compare with
    why_nothing: str = ""  # when `name` is empty: "the repository has no commits yet", ...


def _title(v: CheckVerdict) -> str:
    r = v.result
    stage = "syntax/compile failure" if v.compile_stage else f"{r.kind} failure"
    return f"{label(r)} [{stage}] {_command(r)}: {quote_inline(r.reason)} after {r.duration:.1f} s"


def label(r: CheckResult) -> str:
    """A check's name as a text shows it: the project's configuration names it, and the agent can
    write that, so it is quoted like the rest."""
    return quote_inline(r.name)


def _command(r: CheckResult) -> str:
    return f"`{quote_inline(r.command)}`"


def _names(names: Sequence[str]) -> str:
    return listed(names, NAMES_SHOWN, each=quote_inline)


def _failure_block(v: CheckVerdict) -> list[str]:
    if v.edited_to_pass:
        return _edited_block(v)
    if v.lost_failing or (v.result.status == "passed" and v.standing == "new"):
        return _lost_block(v)
    if v.result.could_not_run:
        what = "NO EVIDENCE" if v.result.status == "no_tests" else "COULD NOT RUN"
        lines = [f"{what}: {label(v.result)} {_command(v.result)}: {quote_inline(v.result.reason)}"]
        return lines + _lost_lines(v.lost)
    lines = [f"FAILED: {_title(v)}"]
    if v.new_tests:
        lines.append(f"  new failing tests: {_names(v.new_tests)}")
    lines += _reshaped_lines(v.reshaped)
    older = [name for name in v.summary.failed_tests if name not in v.new_tests] if v.new_tests else []
    if older:
        lines.append(f"  failing at the baseline too: {_names(older)}")
    if v.reason not in (NO_BASELINE, UNFINISHED):
        lines.append(f"  ({v.reason})")
    # The output is the agent's to shape: each line after the marker, escaped, no fence.
    if not older:
        return lines + [BLOCK_MARKER + quote_inline(line) for line in v.summary.lines]
    # Old failures too: the new ones' output first, then the rest, so that none is buried or cut.
    focused = focus(v.result.output, v.new_tests)
    lines.append(f"  output of the new {'failure' if len(v.new_tests) == 1 else 'failures'}:")
    lines += [BLOCK_MARKER + quote_inline(line) for line in focused.first]
    if focused.rest:
        lines.append("  the rest of the output (failures the baseline had too, totals):")
        lines += [BLOCK_MARKER + quote_inline(line) for line in focused.rest]
    return lines


def _lost_block(v: CheckVerdict) -> list[str]:
    """A check refuted by its tests rather than its exit status: lost tests, or a report gone missing."""
    lines = [f"TESTS LOST: {label(v.result)} {_command(v.result)}: {quote_inline(v.reason)}"]
    lines += _lost_lines(v.lost)
    return lines + [BLOCK_MARKER + quote_inline(line) for line in v.summary.lines]


def _edited_block(v: CheckVerdict) -> list[str]:
    """A check refuted by its run with the base's tests: each test the change made pass by editing it."""
    lines = [f"TESTS EDITED TO PASS: {label(v.result)} {_command(v.result)}: {quote_inline(v.reason)}"]
    lines += _base_test_lines(v.edited_to_pass)
    lines += _lost_lines(v.lost)
    return lines + [BLOCK_MARKER + quote_inline(line) for line in v.summary.lines]


def _base_test_lines(found: Sequence[BaseTestFailure]) -> list[str]:
    lines = [f"  - {quote_inline(f.text())}" for f in found[:LOST_SHOWN]]
    return lines + more_line(len(found), LOST_SHOWN, "  (+{} more)")


def _with_base_lines(v: CheckVerdict) -> list[str]:
    """Each test of the base that fails on this code with its own tests and does not refute, with its
    failure, in the packet (the run's counts are in its TESTS section)."""
    passing = [f for f in v.base_tests if not f.refutes]
    if not passing:
        return []
    lines = [
        "  FAILS WITH THE TESTS AS THEY WERE when the loop began (test files and test infrastructure put "
        "back, on this code, in a scratch copy; the change edited these tests: decide from the task whether "
        "it asked for this behaviour change, or whether the edit hides a regression):"
    ]
    return lines + _base_test_lines(passing)


def _lost_lines(lost: Sequence[LostTest]) -> list[str]:
    lines = [f"  - {quote_inline(t.text())}" for t in lost[:LOST_SHOWN]]
    return lines + more_line(len(lost), LOST_SHOWN, "  (+{} more lost tests)")


def _reshaped_lines(reshaped: Sequence[Reshaped]) -> list[str]:
    """Each new failure with its failure now and what it was at the baseline (bounded)."""
    lines = [f"  - {clip(r.text(), RESHAPED_CHARS, '...')}" for r in reshaped[:RESHAPED_SHOWN]]
    return lines + more_line(len(reshaped), RESHAPED_SHOWN, "  - (+{} more)")


def report(
    verdicts: Sequence[CheckVerdict], reused: bool, limit: int = REPORT_LIMIT, against: Against | None = None
) -> str:
    """The failing checks and what helps in their output: for the Stop's block reason, or, with
    `against`, for a person running `tiergate checks` (no claim, maybe no loop)."""
    new = sorted(_new(verdicts), key=lambda v: not v.compile_stage)
    head = [_headline(verdicts) if against is None else _person_headline(verdicts, against)]
    if reused:
        head.append("(These results were produced earlier for this very workspace and reused.)")
    old_label = "Pre-existing, not held against this claim" if against is None else "Pre-existing"
    tail = [
        f"{old_label}: {label(v.result)} ({quote_inline(v.result.reason)}; {v.reason})"
        for v in _old(verdicts)
    ]
    skipped = [label(v.result) for v in verdicts if v.standing == "skipped"]
    if skipped:
        tail.append(f"Not run, because the compile stage failed first: {', '.join(skipped)}")
    passed = [f"{label(v.result)} ({v.result.duration:.1f} s)" for v in verdicts if v.standing == "passed"]
    if passed:
        tail.append(f"Passed: {', '.join(passed)}")
    if any(v.result.could_not_run for v in new):
        tail.append(
            "A check that cannot run must be made to run (install its program, or fix its command in the "
            "[checks] table); `tiergate doctor` names what is missing."
        )
    if new and against is None:
        tail.append("Fix the new failures, then claim again. `tiergate checks` runs the same checks.")
    elif new:
        tail.append("A completion claim on this workspace would be refuted: fix the new failures first.")
    fixed = "\n".join(head + tail)
    room = max(_MIN_BLOCK, (limit - len(fixed) - 2 * (len(new) + 1)) // max(1, len(new)))
    blocks = [_fit_lines(_failure_block(v), room) for v in new]
    return fit("\n".join(head + blocks + tail), limit)


def _headline(verdicts: Sequence[CheckVerdict]) -> str:
    total = len(verdicts)
    if total == 0:
        return "tiergate ran no checks: none are configured and none were detected."
    old = len(_old(verdicts))
    if _new(verdicts):
        return _refuted_headline(_new(verdicts), total, old)
    if old:
        verb = "fails" if old == 1 else "fail"
        return (
            f"tiergate's checks do not refute the claim: {plural(old, 'check')} of {total} {verb}, "
            "as when the loop began."
        )
    return f"tiergate's checks pass ({plural(total, 'check')})."


def _refuted_headline(failures: Sequence[CheckVerdict], total: int, old: int) -> str:
    new = len(failures)
    compile_new = sum(v.compile_stage for v in failures)
    kind = "syntax/compile failures" if compile_new == new else "failures"
    also = f"; {plural(old, 'other check')} already failed then" if old else ""
    strict = all(v.reason == NEVER_EXCUSED for v in failures)
    since = "; ".join(dict.fromkeys(_since(v) for v in failures))
    if strict:
        since = "acceptance or regression checks that must pass"
    counted = f"{plural(new, 'check')} of {total}"
    tests = _tests_headline(failures)
    if tests:
        return f"tiergate's checks refute the claim: in {counted}, {tests}{also}."
    unrunnable = [label(v.result) for v in failures if v.result.could_not_run]
    if len(unrunnable) == new:
        return f"tiergate's checks refute the claim: {counted} could not run, so no evidence{also}."
    could_not = f" ({', '.join(unrunnable)} could not run)" if unrunnable else ""
    return f"tiergate's checks refute the claim: new {kind} in {counted}, {since}{could_not}{also}."


def _since(v: CheckVerdict) -> str:
    """How a new failure stands against when the loop began, truthfully for a check that failed then too."""
    if v.reason == NEVER_EXCUSED:
        return "an acceptance or regression check that must pass"
    if v.failed_then is None:
        return "with nothing from when the loop began to compare with"
    if not v.failed_then:
        return "not failing when the loop began"
    if any(r.was is not None for r in v.reshaped):
        return "failing otherwise than when the loop began (the check failed then too)"
    if v.reshaped and v.reshaped[0].test:
        return "with failing tests that did not fail when the loop began (the check failed then too)"
    return "failing differently than when the loop began (the check failed then too)"


def _tests_headline(new: Sequence[CheckVerdict]) -> str:
    """What the new failures are, when all are of one kind that their exit status does not tell: lost
    tests, failing tests behind an exit 0, a report that the tests' stream belies, or no test run at all
    ("" otherwise)."""
    if all(v.result.tests is not None and v.result.tests.disagrees for v in new):
        return "the tests' report disagrees with the outcomes they streamed as they ran, so no evidence"
    if all(v.edited_to_pass and not v.lost_failing for v in new):
        return (
            "tests the loop began with fail on this code as they were written then, and pass only as the "
            "change edited them"
        )
    if all(v.lost_failing or v.result.status == "passed" for v in new):
        return (
            "tests the loop began with are lost or not reported (deleted, skipped or filtered out, not fixed)"
        )
    if all(v.result.status == "failed" and v.result.exit_code == 0 for v in new):
        return "tests fail while the check exits 0"
    if all(v.result.status == "no_tests" for v in new):
        return "not one test ran, so no evidence"
    return ""


def _person_headline(verdicts: Sequence[CheckVerdict], against: Against) -> str:
    """`_headline` for a person at `tiergate checks`: what the checks were compared with, and plainly
    when not one of them passes."""
    total = len(verdicts)
    new, old = len(_new(verdicts)), len(_old(verdicts))
    if total == 0 or (new == 0 and old == 0):
        return _headline(verdicts)
    where = against.name or "nothing"
    compared = f"compared with {where}" + (f" ({against.why_nothing})" if not against.name else "")
    failing = new + old
    verb = "fails" if failing == 1 else "fail"
    fails = f"tiergate's checks: {failing} of {total} {verb}"
    if failing == total:
        fails = f"Every check fails ({total} of {total})"
    if not new:
        closing = ", but no check passes" if failing == total else ""
        return f"{fails}, as at {where}: nothing new, so a claim would not be refuted{closing}."
    checks = "all of them" if new == total else plural(new, "check")
    if all(v.result.could_not_run for v in _new(verdicts)):
        what = f"{checks} could not run, so no evidence"
    else:
        what = f"new failures in {checks}"
    also = f"; {plural(old, 'other check')} failed there too" if old else ""
    return f"{fails}: {what}, {compared}{also}."


def _fit_lines(lines: list[str], room: int) -> str:
    """Whole lines while they fit in `room` characters, then a note of how many were left out."""
    kept: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        if used + len(line) + 1 > room and kept:
            kept.append(f"  [... {len(lines) - index} more lines]")
            break
        kept.append(line[: max(0, room - 20)] if not kept and len(line) > room else line)
        used += len(line) + 1
    return "\n".join(kept)


def packet(verdicts: Sequence[CheckVerdict], reused: bool, fingerprint: str | None) -> tuple[str, ...]:
    """The CHECKS section of a verifier's evidence packet."""
    if not verdicts:
        return (
            "CHECKS: none; the project configures no [checks] and tiergate detected none. Run what the "
            "evidence below needs yourself.",
        )
    fresh = "reused from an earlier run on this same workspace" if reused else "run just now"
    short = (fingerprint or "none")[:12]
    lines = [f"CHECKS tiergate ran on this exact workspace (fingerprint {short}, {fresh}):"]
    for v in verdicts:
        r = v.result
        check = f"{label(r)} ({_command(r)}, {r.kind})"
        if v.standing == "passed":
            lines.append(f"- {check}: passed in {r.duration:.1f} s")
        elif v.standing == "pre-existing":
            names = f"; failing tests: {_names(v.summary.failed_tests)}" if v.summary.failed_tests else ""
            lines.append(f"- {check}: {quote_inline(r.reason)}, pre-existing: {v.reason}{names}")
        elif v.standing == "skipped":
            lines.append(f"- {check}: not run: {quote_inline(r.reason)}")
        else:
            lines.append(f"- {check}: FAILING, new: {quote_inline(r.reason)}; {v.reason}")
        lines += _with_base_lines(v)
    lines.append(
        "These results are evidence about this workspace only. They do not show that the task is done: "
        "check the task's own criteria yourself."
    )
    return tuple(lines)


def failing_then(v: CheckVerdict) -> str:
    """A check failing as at the baseline, named with its failing tests."""
    names = v.summary.failed_tests
    tests = f"failing tests: {_names(names)}" if names else "its output names no failing test"
    return f"check {label(v.result)} ({tests})"


def lead(verdicts: Sequence[CheckVerdict]) -> tuple[str, ...]:
    """What leads a verifier's packet: the checks that still fail as when the loop began (none: ())."""
    if not _old(verdicts):
        return ()
    lines = [
        "STILL FAILING AS WHEN THE LOOP BEGAN (read this first): this claim is not green. These checks "
        "fail the same way they did at the loop's base; the task may be to fix exactly them, and then it "
        "is not done:"
    ]
    for v in _old(verdicts):
        r = v.result
        lines.append(f"- {label(r)} ({_command(r)}): {quote_inline(r.reason)}; {failing_then(v)}")
    return tuple(lines)


def tests_section(verdicts: Sequence[CheckVerdict], base_tests: Mapping[str, TestRun]) -> tuple[str, ...]:
    """The TESTS section of a verifier's packet: per test check, its counts at the base and at the
    claim and the tests lost since; with `base_tests` (by check key), that run's counts and failures."""
    tested = [v for v in verdicts if v.result.tests is not None or v.then is not None or v.lost]
    if not tested:
        return ()
    lines = [
        "TESTS, per test check: counts at the loop's base and at this claim (the agent can edit tests, so "
        "the base's tests are the contract and a lost test is never a pass on its word; check that the task "
        "asked for each change):"
    ]
    for v in tested:
        lines += _tests_lines(v, base_tests.get(v.result.key))
    return tuple(lines)


def _tests_lines(v: CheckVerdict, base_tests: TestRun | None) -> list[str]:
    """One test check's story: its counts then and now, its lost tests, and, when it ran, the base's
    test files against the claimed code (`base_tests`)."""
    now, then = v.result.tests, v.then
    unrecorded = f"no test record ({quote_inline(v.result.reason)})"
    lines = [
        f"- {label(v.result)}:",
        "  at the base: " + (_counts(then) if then is not None else "not recorded (no run at the base)"),
        "  at the claim: " + (_counts(now, then) if now is not None else unrecorded),
    ]
    if v.lost:
        lines.append("  LOST since the loop began (ran then, not now):")
        lines += _lost_lines(v.lost)
    if base_tests is not None:
        lines.append("  the base's test files run against the claimed code: " + _counts(base_tests))
        failing = base_tests.named(FAILING)
        if failing:
            lines.append(f"    failing there: {_names(failing)}")
    return lines


def _counts(run: TestRun, then: TestRun | None = None) -> str:
    """'passed 3, failed 1, skipped 0, xfailed 0, not run 1 (from its pytest report)': the same five
    counts every time, so that the base and the claim read side by side. Not run: deselected, and with
    `then`, the tests that ran then and are not in this run at all (never in a run of a selection,
    which leaves tests out on purpose)."""
    passed = run.total("passed") + run.total("xpassed")
    failed = run.total("failed") + run.total("error")
    missing = 0
    if then is not None and then.complete and run.complete and then.naming == run.naming and not run.subset:
        missing = len(set(then.named(RAN)) - set(run.by_test))
    selection = ", a run of a selection of the tests" if run.subset else ""
    return (
        f"passed {passed}, failed {failed}, skipped {run.total('skipped')}, xfailed {run.total('xfailed')}, "
        f"not run {run.total('deselected') + missing} (from its {run.source}{selection})"
    )


def _new(verdicts: Sequence[CheckVerdict]) -> list[CheckVerdict]:
    return [v for v in verdicts if v.standing == "new"]


def _old(verdicts: Sequence[CheckVerdict]) -> list[CheckVerdict]:
    return [v for v in verdicts if v.standing == "pre-existing"]
