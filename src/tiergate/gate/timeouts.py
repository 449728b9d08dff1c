"""How long a check may run before it is ended, and what its ending says. Pure.

A configured limit (`[gate] timeout_seconds`) is kept. Without one, a check's limit is a generous multiple
of its time at the base, never under a floor: a long suite is never cut, a hang the change brought ends,
named against the base's time. Until that time is known, the cap holds. See docs/judging.md, "Time limits".
"""

from __future__ import annotations

from tiergate.frozen import frozen
from tiergate.text import duration

MULTIPLE = 5.0
FLOOR = 30.0
# The limit before the base's time is known, and the base's own limit: a check that never ends ends here.
CAP = 3600.0


@frozen
class TimeLimits:
    """The loop's rule for check time limits: `configured` seconds, or None to follow the base."""

    configured: float | None = None

    @property
    def follows_base(self) -> bool:
        return self.configured is None

    @property
    def ceiling(self) -> float:
        """The most any check may run: the configured limit, else the cap."""
        return CAP if self.configured is None else self.configured

    def limit(self, at_base: float | None) -> float:
        """The limit of a check that took `at_base` seconds at the base (None: not known yet)."""
        if self.configured is not None:
            return self.configured
        if at_base is None:
            return CAP
        return min(CAP, max(FLOOR, MULTIPLE * at_base))

    def against_base(self, ran: float, at_base: float | None) -> str:
        """What a timed-out check's reason adds: how long it ran against its time at the base ("" when
        the limit was configured or the base's time is not known)."""
        if self.configured is not None or at_base is None:
            return ""
        return (
            f"it ran {duration(ran)}, and took {duration(at_base)} when the loop began (the limit is "
            f"{MULTIPLE:g} times that, at least {duration(FLOOR)}): a hang or a slowdown the change brought"
        )
