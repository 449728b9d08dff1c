"""A new loop from what its start asks for: the one constructor behind `/tiergate:ralph`,
`/tiergate:autopilot`, `tiergate ralph start` and `tiergate autopilot start`.

Pure: the base commit, the time and the configured defaults come in (`tiergate.loop.start` reads them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tiergate.frozen import frozen
from tiergate.loop.claims import DEFAULT_PROMISE
from tiergate.loop.state import LoopState, new_loop

if TYPE_CHECKING:
    from tiergate.loop.features import Feature


@frozen
class Start:
    """What a start asks for: a task (ralph) or features (autopilot: the task is the first one's), the
    completion promise and the iteration cap (None: the defaults)."""

    task: str = ""
    features: tuple[Feature, ...] = ()
    promise: str | None = None
    max_iterations: int | None = None


def begin(
    start: Start,
    session_id: str,
    *,
    base: str | None,
    now: float,
    max_iterations: int,
    max_minutes: float,
    config: dict[str, Any] | None = None,
    config_source: str | None = None,
) -> LoopState:
    """The loop `start` asks for, beginning at `now` from `base`; `max_iterations` and `max_minutes` are the
    configured defaults (`[loop]`), `config` the whole configuration the loop keeps (from `config_source`)."""
    return new_loop(
        session_id,
        start.task,
        now=now,
        base=base,
        promise=start.promise or DEFAULT_PROMISE,
        max_iterations=start.max_iterations or max_iterations,
        budget=max_minutes * 60,
        feature_list=start.features,
        config=config,
        config_source=config_source,
    )
