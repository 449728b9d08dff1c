"""A new loop beginning now at the repository's HEAD, with the project's configured defaults: the
outside world (git, the configuration, the clock, an autopilot's features file) around the pure
`tiergate.loop.startrequest` and `tiergate.loop.features.parse`."""

from __future__ import annotations

from tiergate import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from tiergate.foreign import Exclusions
    from tiergate.loop.features import Feature
    from tiergate.loop.startrequest import Start
    from tiergate.loop.state import LoopState
    from tiergate.project import Project


def at_head(project: Project, session_id: str, start: Start) -> LoopState:
    """The loop `start` asks for, its base HEAD now, keeping the configuration as it is now (the loop's
    rules for its whole life), and the workspace it begins on when that is not HEAD (`start`); UserError
    outside a git work tree (or a bad configuration)."""
    return measured_at_head(project, session_id, start)[0]


def measured_at_head(project: Project, session_id: str, start: Start) -> tuple[LoopState, bool | None]:
    """`at_head`, and whether anything in the workspace differed from the loop's base then (other tools'
    state included; None: not known), for `handlers.effects.mark_start` to use rather than ask git again."""
    import time
    from dataclasses import replace

    from tiergate.config.settings import load_config
    from tiergate.git import objects, repository
    from tiergate.loop.startrequest import Defaults, begin

    root = repository.repo_root(project.root)
    config = load_config(project.root)
    base = objects.resolve_rev(root, "HEAD")
    defaults = Defaults(config.loop.max_iterations, config.loop.max_minutes, config.kept(), config.source)
    loop = begin(start, session_id, base=base, now=time.time(), defaults=defaults)
    begun, differs = _start(project, session_id, base, config.exclusions)
    return replace(loop, start=begun), differs


def _start(
    project: Project, session_id: str, base: str | None, exclusions: Exclusions
) -> tuple[str | None, bool | None]:
    """The start commit of a loop beginning on a dirty workspace at `base` (a commit, or the empty tree
    before the first commit; None: a clean one). A workspace that differs from `base` only by what is not
    work (`exclusions`: a test run's caches, another tool's state) is clean. One that cannot be
    taken (the index has conflicts) leaves the loop measuring from its base commit: the user's edits
    then count as the loop's, which verifies more, never less. Also: whether any path differed from
    `base`, work or not (None: not asked, or git failed)."""
    from tiergate.errors import UserError
    from tiergate.git import changes, repository, untracked
    from tiergate.tier.change import work_paths
    from tiergate.workspace import loopbase

    differs: bool | None = None
    try:
        if base is None:
            return loopbase.take(project, session_id or loopbase.PENDING, base), differs
        root = repository.repo_root(project.root)
        differing = changes.changed_paths(root, base), untracked.untracked_files(root, base)
        differs = bool(differing[0] or differing[1])
        if not work_paths(root, [*differing[0], *differing[1]], exclusions):
            return None, differs
        return loopbase.take(project, session_id or loopbase.PENDING, base, differing=differing), differs
    except UserError:
        return None, differs


def keep_pending_green(project: Project, loop: LoopState) -> None:
    """For a loop started from a shell: the workspace as it is now, when it is not the loop's base
    commit, kept as the first green point of the session that takes the loop up (`take_pending_green`),
    so that a rollback goes back to what the user had at `tiergate ralph start`, not at the first hook.
    A green point an earlier start left is dropped first: it belongs to no loop now."""
    from tiergate.workspace import greenpoint, loopbase

    greenpoint.drop(project, loopbase.PENDING)
    if loop.start is not None:
        greenpoint.mark(project, loopbase.PENDING, "loop start")


def take_pending_green(project: Project, session_id: str, loop: LoopState) -> bool:
    """The session `session_id` took the loop started from a shell: its green point, kept at the start
    (`keep_pending_green`), becomes the session's. False when there is none to take and the loop began
    on a dirty workspace (a loop pending from before green points were kept at the start): the caller
    marks one now. A clean start needs none: its base is its green point."""
    from tiergate.workspace import greenpoint, loopbase

    try:
        return greenpoint.hand_over(project, loopbase.PENDING, session_id) or loop.start is None
    except Exception:  # the caller marks one: a green point is never left out
        return False


def start_line(loop: LoopState) -> str | None:
    """What a start from a shell says of a dirty workspace, in one line (None: a clean one)."""
    if loop.start is None:
        return None
    return (
        f"tiergate: took the workspace, its uncommitted and untracked changes included, as the loop's "
        f"base (start {loop.start[:12]}, on {(loop.base or 'no commit')[:12]}): they are not counted as "
        "the loop's work, and a rollback goes back to them"
    )


def base_text(loop: LoopState) -> str:
    """The loop's base for its start's log reason: the commit, and the start commit of the workspace it
    began on when that held uncommitted or untracked changes."""
    if loop.start is None:
        return str(loop.base)
    return f"{loop.base} with the uncommitted and untracked changes there (start {loop.start})"


def rules_reason(loop: LoopState) -> str:
    """The start's reason that names the rules the loop keeps, for the decision log."""
    return f"rules: the configuration from {loop.config_source or 'the defaults'}, kept for the loop's life"


def read_features(path: Path) -> tuple[Feature, ...]:
    """The features in the file at `path`; UserError in one line naming the file and what is wrong."""
    from tiergate.errors import UserError
    from tiergate.loop.features import parse

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{path}: cannot read the features file ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not JSON ({exc})") from None
    return parse(text, str(path))
