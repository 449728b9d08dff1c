"""A new loop from what its start asks for: the one constructor behind `/tiergate:ralph`,
`/tiergate:autopilot`, `tiergate ralph start` and `tiergate autopilot start`.

Pure: the base commit, the time and the configured defaults come in (`tiergate.loop.start` reads them).
"""

from __future__ import annotations

from dataclasses import replace

from tiergate import TYPE_CHECKING
from tiergate.frozen import frozen
from tiergate.loop.claims import DEFAULT_PROMISE
from tiergate.loop.state import LoopState, new_loop, with_features

if TYPE_CHECKING:
    from typing import Any

    from tiergate.loop.features import Feature


@frozen
class Start:
    """What a start asks for: a task (ralph) or features (autopilot: the task is the first one's), the
    completion promise and the iteration cap (None: the defaults)."""

    task: str = ""
    features: tuple[Feature, ...] = ()
    promise: str | None = None
    max_iterations: int | None = None


@frozen
class Defaults:
    """What the configuration gives a new loop: the `[loop]` defaults of its cap and budget, and the whole
    configuration the loop keeps (`config`, from `config_source`)."""

    max_iterations: int
    max_minutes: float
    config: dict[str, Any] | None = None
    config_source: str | None = None


def begin(start: Start, session_id: str, *, base: str | None, now: float, defaults: Defaults) -> LoopState:
    """The loop `start` asks for, beginning at `now` from `base`, with `defaults` where it names none."""
    loop = new_loop(
        session_id,
        start.task,
        now=now,
        base=base,
        promise=start.promise or DEFAULT_PROMISE,
        max_iterations=start.max_iterations or defaults.max_iterations,
    )
    kept = replace(
        loop, budget=defaults.max_minutes * 60, config=defaults.config, config_source=defaults.config_source
    )
    return with_features(kept, start.features)
