"""The environment a loop's checks run with (`tiergate.gate.environment`): recorded as the loop begins,
and compared at each claim."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.handlers.loopgate import gate_request
from tiergate.handlers.looprules import loop_config

if TYPE_CHECKING:
    from collections.abc import Collection

    from tiergate.loop.state import LoopState
    from tiergate.project import Project


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
        from tiergate.log import record_error

        record_error(project, "environment_record_error", current.session_id, exc)


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
        from tiergate.log import record_error

        record_error(project, "environment_compare_error", current.session_id, exc)
        return (difference.NO_RECORD,)
    named = difference.reason(found)
    return () if named is None else (named,)


def _tops(project: Project) -> tuple[str, str]:
    """The project's folder and the top of the work tree holding it (the folder itself outside git)."""
    from tiergate.project import git_top_level

    root = str(project.root)
    return root, git_top_level(root) or root
