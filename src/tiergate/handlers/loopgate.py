"""The loop's gate: what it runs for a claim (the project's checks against the loop's base, by the
rules the loop began with), and what a claim's decision needs of its result."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.loop.events import GateFacts
from tiergate.text import quote_inline

if TYPE_CHECKING:
    from tiergate.config.settings import Config
    from tiergate.gate.request import GateRequest, MutantBounds, Seed
    from tiergate.gate.ruling import GateResult
    from tiergate.loop.state import LoopState
    from tiergate.project import Project
    from tiergate.tier.coverage.lines import GateCoverage

REPORT_IN_BLOCK = 3000


def gate_request(project: Project, current: LoopState, config: Config) -> GateRequest:
    """What the loop's gate runs for a claim: the project's checks against the loop's base, by the rules
    the loop began with. An autopilot's acceptance checks (the current feature's and the regression suite
    of the done ones) come first, and no baseline excuses them: at the base their features do not exist
    yet."""
    from tiergate import foreign
    from tiergate.gate.checks import make_check
    from tiergate.gate.detection.projectchecks import checks_at_base
    from tiergate.gate.request import GateRequest
    from tiergate.gate.timeouts import TimeLimits
    from tiergate.loop.features import gate_checks

    accepted = tuple(
        make_check(name, command, "feature acceptance check")
        for name, command in gate_checks(current.features, current.approach, current.done)
    )
    return GateRequest(
        base=current.change_base,  # the workspace the loop began on: the baseline's, and the fingerprint's
        # As the base declares them: a Makefile narrowed since changes nothing run (`declared_reasons`).
        checks=(*accepted, *checks_at_base(project.root, config, base_of(project, current))),
        strict=frozenset(c.key for c in accepted),
        exclusions=foreign.of_loop(current),
        limits=TimeLimits(config.gate.timeout_seconds),
        refute_regressions=config.gate.base_tests == "refute",
        seed=bytecode_seed(project, current),
        own_network=config.gate.network == "own",
        mutants=mutant_bounds(config),
    )


def mutant_bounds(config: Config) -> MutantBounds | None:
    """The mutation step's bounds by `[mutation]`; None when it is off."""
    from tiergate.gate.request import MutantBounds

    settings = config.mutation
    if not settings.enabled:
        return None
    return MutantBounds(settings.max_mutants, settings.per_line, settings.timeout_seconds)


def bytecode_seed(project: Project, current: LoopState) -> Seed | None:
    """The bytecode a claim's copy starts with: what the environment recorded as the loop began compiled
    before then (`tiergate.gate.bytecode`); None when the loop kept no record."""
    from tiergate.gate.bytecode import seed_of
    from tiergate.gate.environment import keptrecord
    from tiergate.loop.ledger import loop_token

    if current.environment is None:
        return None
    try:
        kept = keptrecord.load(
            project, current.session_id, loop_token(current.started_at), current.environment
        )
    except Exception:
        return None
    if kept is None:
        return None
    return seed_of(kept.folders, kept.files, current.started_at)


def base_of(project: Project, current: LoopState) -> str | None:
    """The object id of the loop's base (its start's workspace, or commit); None outside git, or before
    the first commit."""
    from tiergate.gate.baseline import base_commit
    from tiergate.project import git_top_level

    if git_top_level(str(project.root)) is None:
        return None
    return base_commit(project.root, current.change_base)


def gate_facts(result: GateResult) -> tuple[GateFacts, GateCoverage | None, tuple[str, ...]]:
    """What a claim's decision needs of the gate's `result` (the run goes to the decision log with it),
    the change's line coverage its tests measured, and why the claim must be THOROUGH whatever the tier
    rules say (tests that passed when the loop began and are lost, or fail with the tests as they were
    then), each naming its test (`lost_reasons`)."""
    report = result.report_text(REPORT_IN_BLOCK)
    failing = tuple(
        (v.result.name, "\n".join((*v.new_tests, *v.summary.lines)) or v.result.reason)
        for v in result.new_failures
    )
    facts = GateFacts(
        refuted=result.refuted,
        report=report,
        packet=result.packet_lines() if result.verdicts else (),
        failing=failing,
        reasons=tuple(f"gate: {r}" for r in result.reasons),
        headline=report.splitlines()[0] if report else "",
        record=tuple(result.to_dict().items()),
        # Only failures of checks that ran to the end on an untouched workspace are facts about these
        # files; a timeout or a check that could not run may be the machine's doing.
        binds=not result.workspace_changed and all(v.result.status == "failed" for v in result.new_failures),
        notice=could_not_run_notice(result),
        failing_then=result.failing_then(),
        lead=result.lead_lines(),
        tests=result.tests_lines(result.base_test_runs),
    )
    return facts, result.coverage, lost_reasons(result)


def lost_reasons(result: GateResult) -> tuple[str, ...]:
    """A THOROUGH reason per test that passed when the loop began and does not run at the claim, and
    per test of the base that fails on the claimed code with its own tests
    (`tiergate.gate.pertest.basetests`), and what the checks read outside the claim's copy
    (`tiergate.gate.imported`)."""
    lost = tuple(
        f"tests-lost: check {quote_inline(name)}: {quote_inline(test.text())} -> THOROUGH"
        for name, test in result.lost_passing
    )
    return (
        lost
        + tuple(
            f"base-tests: check {quote_inline(name)}: {quote_inline(test.text())} -> THOROUGH"
            for name, test in result.base_test_failures
        )
        + result.read_outside
    )


def could_not_run_notice(result: GateResult) -> str:
    """What the user is told when checks could not run: the claim was blocked for that, not for the
    work, and only they can install a program or fix a command ("" when every check ran)."""
    unrunnable = [v.result for v in result.new_failures if v.result.could_not_run]
    if not unrunnable:
        return ""
    what = "; ".join(quote_inline(f"{r.name} (`{r.command}`): {r.reason}") for r in unrunnable)
    if all(r.status == "no_tests" for r in unrunnable):
        return (
            f"tiergate: {what}. A test check that runs no test is no evidence, so the claim was not "
            "accepted. Its tests were deleted, skipped or deselected, or its command selects none; "
            "`tiergate checks` runs it as the gate does."
        )
    return (
        f"tiergate: {what}. A check that cannot run is no evidence, so the claim was not accepted. "
        "Install the program or fix the command in the [checks] table; `tiergate doctor` shows each "
        "check's program."
    )
