"""What the loop's decisions ask of the outside world, done here: the gate run for a claim, the
workspace's dirtiness against the last green point, the rollback, the green mark, the halt's alert.

Imported only on the paths that need it (a claim, a verifier's verdict, a loop's start): it pulls in
git, the backups and the gate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tiergate.loop.events import ClaimFacts, GateFacts, Outcome
from tiergate.loop.refutation import after_rollback
from tiergate.loop.state import LoopState, Policies
from tiergate.text import quote_inline

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from tiergate.config.settings import Config
    from tiergate.gate.atclaim import Pending
    from tiergate.gate.request import GateRequest, MutantBounds, Seed
    from tiergate.gate.ruling import GateResult
    from tiergate.project import Project
    from tiergate.tier.change import ChangeMeasurement
    from tiergate.tier.coverage.lines import GateCoverage

REPORT_IN_BLOCK = 3000


def loop_config(project: Project, current: LoopState) -> Config:
    """The rules of `current`: the configuration it kept at its start, whatever the workspace's
    `.tiergate.toml` says now (the agent can edit that; an edit is a change to verify, not a change
    of the gate). A loop stored before configurations were kept reads the project's, as it did."""
    from tiergate.config.settings import kept_config, load_config

    if current.config is None:
        return load_config(project.root)
    return kept_config(current.config_source, current.config)


def policies(config: Config) -> Policies:
    from tiergate.loop.interventions import InterventionPolicy
    from tiergate.loop.stalls import StallPolicy

    i, s = config.interventions, config.stalls
    return Policies(
        interventions=InterventionPolicy(
            attempt_limit=i.attempt_limit,
            skip_limit=i.skip_limit,
            failure_limit=i.failure_limit,
            rollback_on_retry=i.rollback_on_retry,
        ),
        stalls=StallPolicy(same_failure=s.same_failure, empty_turns=s.empty_turns),
    )


def begin_baseline(project: Project, current: LoopState) -> None:
    """The loop's checks at its base, begun in the background as the loop begins (`tiergate.gate.job`):
    before any code of the agent's exists, so that no run at the base ever runs beside it, and so that
    its first claim finds each test's outcome and each check's time there. Nothing when the base already
    holds them all, or a job runs already, or TIERGATE_BASELINE_AT_START is "0" (a machine that should
    run nothing the agent has not claimed). Never raised: a baseline not begun is run by the first claim.
    The environment the checks run with is recorded first (`record_environment`), before any run can
    write to it."""
    import os

    record_environment(project, current)
    if os.environ.get("TIERGATE_BASELINE_AT_START") == "0":
        return
    try:
        from tiergate.gate import background
        from tiergate.gate import cache as evidencecache
        from tiergate.gate.baseline import base_commit
        from tiergate.gate.job import main
        from tiergate.project import git_top_level

        if git_top_level(str(project.root)) is None:
            return
        request = gate_request(project, current, loop_config(project, current))
        commit = base_commit(project.root, request.base) if request.checks else None
        if commit is None:
            return
        known = evidencecache.load_baseline(project, commit)
        if all(c.key in known or c.key in request.strict for c in request.checks):
            return
        running = background.status(project)
        if running is not None and running.running:
            return
        spec = {
            "key": f"baseline:{commit}",
            "kind": "baseline",
            "session_id": current.session_id,
            "request": request.to_record(),
        }
        background.start(project, spec, main)
    except Exception as exc:
        _error(project, current.session_id, "baseline_start_error", exc)


def record_environment(project: Project, current: LoopState) -> None:
    """The environment the loop's checks will run with, as the loop begins (`tiergate.gate.environment`:
    the project's virtualenvs and node_modules, the interpreters its checks start and their site
    folders, the programs PATH finds): kept, and its digest noted in the loop's state, for each claim to
    compare with. Never raised: without a record, its claims compare nothing (the error is logged)."""
    try:
        from dataclasses import replace

        from tiergate.gate.environment import keptrecord, places, walk
        from tiergate.loop import store as loops
        from tiergate.loop.ledger import loop_token

        stored = loops.read(project, current.session_id)
        if stored is None or stored.started_at != current.started_at or stored.environment is not None:
            return  # another loop's now, or this one's record kept already: never taken again
        root, top = _tops(project)
        checks = gate_request(project, current, loop_config(project, current)).checks
        where = places.at_start(root, top, current.change_base, [c.command for c in checks])
        digest = keptrecord.keep(
            project, current.session_id, loop_token(current.started_at), walk.take(where)
        )

        def noted(now: LoopState | None) -> tuple[LoopState | None, None]:
            if digest is None or now is None or now.started_at != current.started_at or now.environment:
                return None, None  # another loop began meanwhile: it keeps a record of its own
            return replace(now, environment=digest), None

        loops.update(project, current.session_id, noted)
    except Exception as exc:
        _error(project, current.session_id, "environment_record_error", exc)


def environment_reasons(project: Project, current: LoopState, covered: Collection[str]) -> tuple[str, ...]:
    """Why the claim is THOROUGH for what changed in the environment its checks ran with since the loop
    began (`tiergate.gate.environment.difference`), each difference named: nothing when nothing did, or
    when the loop kept no record (one begun before tiergate did). A record the loop kept and that is not
    there as kept, or that cannot be compared, is a reason too: the agent can write the state folder.
    `covered`: the paths of the claim's change (a folder among them is code, not environment)."""
    from tiergate.gate.environment import difference, keptrecord, places, walk
    from tiergate.loop.ledger import loop_token

    if current.environment is None:
        return ()
    try:
        kept = keptrecord.load(
            project, current.session_id, loop_token(current.started_at), current.environment
        )
        if kept is None:
            return (difference.NO_RECORD,)
        root, top = _tops(project)
        now = walk.take(places.at_claim(kept, root, top, current.change_base, covered))
        found = difference.differences(kept, now, walk.owners(kept, now), root)
    except Exception as exc:
        _error(project, current.session_id, "environment_compare_error", exc)
        return (difference.NO_RECORD,)
    named = difference.reason(found)
    return () if named is None else (named,)


def _tops(project: Project) -> tuple[str, str]:
    """The project's folder and the top of the work tree holding it (the folder itself outside git)."""
    from tiergate.project import git_top_level

    root = str(project.root)
    return root, git_top_level(root) or root


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


def declared_reasons(project: Project, current: LoopState, config: Config) -> tuple[str, ...]:
    """A THOROUGH reason per check the project declares otherwise now than at the loop's base (the gate
    runs the base's: `gate_request`), naming both."""
    from tiergate.gate.detection.projectchecks import declared_changes

    changed = declared_changes(project.root, config, base_of(project, current))
    return tuple(f"declared-checks: {said} -> THOROUGH" for said in changed)


def claim_gate(
    project: Project,
    current: LoopState,
    config: Config,
    measure: Sequence[str] | None = None,
    change: ChangeMeasurement | None = None,
    *,
    time_left: float | None = None,
) -> GateResult | Pending:
    """The gate's verdict on the claimed workspace against the loop's base, silently (stdout is the
    protocol's channel), or `Pending`: the checks run in the background (`tiergate.gate.atclaim`), and the
    Stop waits for them within `time_left` (the hook's time still free; None: not bounded here), never
    long. The test checks measure the line coverage of `measure` (the change's code files) as they run;
    `change` is the change from the loop's base, measured with nothing run since."""
    from tiergate.gate.atclaim import HOLD, at_claim

    hold = HOLD if time_left is None else max(0.0, min(HOLD, time_left))
    request = gate_request(project, current, config)
    return at_claim(project, current.session_id, request, measure=measure, change=change, hold=hold)


def task_gate(
    project: Project,
    current: LoopState,
    config: Config,
    measure: Sequence[str] | None,
    change: ChangeMeasurement,
    *,
    time_left: float | None = None,
) -> GateResult:
    """The gate on a completed task's workspace (`tiergate.handlers.task_completed`), run in its hook
    within `time_left` (None: the hook's limit, less what answering needs: `tiergate.hook.limits`; a hook
    killed at its limit decides nothing): it reuses what a claim kept for the same workspace;
    a claim never reuses a task's run (`tiergate.gate.run.run_gate`)."""
    from tiergate.gate.run import run_gate
    from tiergate.gate.runrequest import RunRequest
    from tiergate.hook.limits import time_for_waiting

    request = gate_request(project, current, config)
    budget = time_for_waiting("TaskCompleted") if time_left is None else max(0.0, time_left)
    task = RunRequest(request, budget=budget, measure=measure, change=change, for_task=True)
    return run_gate(project, task)


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


def links_out_reasons(project: Project, change: ChangeMeasurement) -> tuple[str, ...]:
    """A THOROUGH reason per symlink of the change that reaches out of it (an ignored folder, a path
    outside the repository): the claim's copy resolves it (`tiergate.gate.cleancopy`), and what it
    reached is for the verifier to read, since no change shows it."""
    from tiergate.gate.cleancopy import links_out

    commit = change.base_commit
    if commit is None:
        return ()
    return tuple(
        f"links-out: {quote_inline(link)}: a symlink of the change reaching out of it, read into the "
        "claim's copy -> THOROUGH"
        for link in links_out(project.root, commit, change.paths)
    )


# Code that runs without a source anyone can read: Python's bytecode, native extensions and libraries,
# WebAssembly, JVM classes. In the change, it runs as the project's code while no rule reads a line of it.
COMPILED = (".pyc", ".pyo", ".so", ".pyd", ".dll", ".dylib", ".node", ".wasm", ".class", ".jar")


def compiled_reasons(change: ChangeMeasurement) -> tuple[str, ...]:
    """A THOROUGH reason per compiled file the change adds or edits (`COMPILED`): what runs of it is for
    the verifier to tell, since no rule reads it."""
    return tuple(
        f"compiled-code: {quote_inline(f.path)}: code without a readable source in the change -> THOROUGH"
        for f in change.files
        if f.status != "deleted" and f.path.lower().endswith(COMPILED)
    )


def made_thorough(facts: ClaimFacts, config: Config, reasons: Sequence[str]) -> ClaimFacts:
    """The claim's tier raised to THOROUGH by `reasons` (the gate's findings), named first: the tier
    rules' own reasons follow, and a keyword asking for LIGHT cannot lower it."""
    if not reasons:
        return facts
    from dataclasses import replace

    from tiergate.tier.policy import VERIFIERS, Tier

    verifier = VERIFIERS[Tier.THOROUGH]
    return replace(
        facts,
        tier=Tier.THOROUGH.value,
        agent=verifier.subagent_type,
        model=verifier.model,
        tier_evidence=verifier.evidence_required,
        reasons=(*reasons, *facts.reasons),
        relative_cost=config.tier_policy.relative_costs[Tier.THOROUGH],
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


def dirty(project: Project, current: LoopState) -> bool | None:
    """Whether the workspace's files differ from the loop's last green point; None when that cannot
    be told (outside git, a damaged ref): the loop then treats it as clean and rolls nothing back."""
    from tiergate.workspace import greenpoint

    try:
        point = greenpoint.last_green(project, current.session_id, start=current.base)
        return greenpoint.is_dirty(project.root, point)
    except Exception as exc:
        _error(project, current.session_id, "dirty_check_error", exc)
        return None


def roll_back(project: Project, outcome: Outcome, now: float) -> Outcome:
    """Roll the workspace back to the last green point, the dirty state saved first as a backup."""
    from tiergate.errors import UserError
    from tiergate.workspace import greenpoint, putback

    current = outcome.state
    assert current is not None and outcome.rollback is not None
    point_text = "the last green point"
    try:
        point = greenpoint.last_green(project, current.session_id, start=current.base)
        point_text = point.describe()
        saved = putback.rollback(project, point.workspace, outcome.rollback)
    except UserError as exc:
        return after_rollback(outcome, now, backup=None, point=point_text, error=str(exc))
    except Exception as exc:
        _error(project, current.session_id, "rollback_error", exc)
        return after_rollback(
            outcome, now, backup=None, point=point_text, error=f"{type(exc).__name__}: {exc}"
        )
    return after_rollback(
        outcome,
        now,
        backup=saved.name if saved else None,
        point=point_text,
        ref=saved.ref if saved else None,
    )


def follow_up(project: Project, session_id: str, outcome: Outcome) -> Outcome:
    """After the state is stored: mark a passed workspace green, send a halt's alert; what happened
    goes into the decision's log record."""
    from dataclasses import replace

    logged: list[tuple[str, object]] = []
    if outcome.green:
        logged.append(("green", mark_green(project, session_id, "verification passed")))
    if outcome.alert is not None:
        sent = alert(project, session_id, outcome.alert, outcome.state)
        if sent is not None:
            logged.append(("alert", sent))
    return replace(outcome, logged=(*outcome.logged, *logged))


def alert(project: Project, session_id: str, message: str, current: LoopState | None) -> str | None:
    """Run the `[alerts] command` of the loop's rules (`current`'s; the project's without a loop) with
    the halt's message; what happened, in one line (None: no command configured)."""
    from tiergate.alerts import notify
    from tiergate.config.settings import load_config

    try:
        settings = (load_config(project.root) if current is None else loop_config(project, current)).alerts
    except Exception as exc:
        _error(project, session_id, "alert_error", exc)
        return f"not sent: {type(exc).__name__}: {exc}"
    sent = notify(settings.command, message, cwd=project.root, timeout=settings.timeout_seconds)
    return None if sent is None else f"{settings.command}: {sent.detail}"


def mark_start(project: Project, session_id: str, base: str | None, differs: bool | None = None) -> None:
    """A loop's first green point, when the workspace it starts on is not its base commit (the user's
    uncommitted or untracked work): a rollback then never goes behind it. A clean start writes nothing:
    its base already is the green point (`greenpoint.last_green` falls back to it). `differs`: whether
    any path differed from `base`, as the loop's start just measured it (None: asked of git now)."""
    from tiergate.git import changes, repository, untracked

    try:
        if differs is None:
            root = repository.repo_root(project.root)
            differs = base is None or bool(
                changes.changed_paths(root, base) or untracked.untracked_files(root, base)
            )
        if base is not None and not differs:
            return
    except Exception as exc:
        _error(project, session_id, "green_mark_error", exc)
        return
    mark_green(project, session_id, "loop start")


def mark_green(project: Project, session_id: str, why: str) -> str:
    """Record the workspace as the loop's green point; returns its snapshot, or what went wrong (never
    raised: the loop then falls back to its start commit)."""
    from tiergate.workspace import greenpoint

    try:
        return greenpoint.mark(project, session_id, why)
    except Exception as exc:
        _error(project, session_id, "green_mark_error", exc)
        return f"not marked: {type(exc).__name__}: {exc}"


def _error(project: Project, session_id: str, event: str, exc: Exception) -> None:
    from tiergate.log import record_error

    record_error(project, event, session_id, exc)
