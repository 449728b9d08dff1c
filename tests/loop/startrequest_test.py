"""The one constructor of a new loop: a task or features, the promise and the cap, else the defaults."""

from __future__ import annotations

from tiergate.loop.claims import DEFAULT_PROMISE
from tiergate.loop.features import Feature
from tiergate.loop.startrequest import Defaults, Start, begin
from tiergate.loop.state import LoopState

F1 = Feature("F01", "List items", "GET /items lists every item.", (("list", "sh probe.sh list"),))
F2 = Feature("F02", "Filter by tag", "GET /items?tag=x filters.", (("filter", "sh probe.sh filter"),))


def at(start: Start, session_id: str = "s1", base: str | None = "abc", now: float = 100.0) -> LoopState:
    """`start` begun with the defaults of a configuration saying 20 iterations and 90 minutes."""
    return begin(start, session_id, base=base, now=now, defaults=Defaults(20, 90.0))


def test_a_ralph_loop_takes_the_configured_defaults_when_the_start_names_none() -> None:
    new = at(Start("fix the parser"))
    assert (new.session_id, new.task, new.base, new.started_at) == ("s1", "fix the parser", "abc", 100.0)
    assert (new.promise, new.max_iterations, new.budget, new.features) == (DEFAULT_PROMISE, 20, 5400.0, ())


def test_what_the_start_asks_for_wins_over_the_defaults() -> None:
    asked = Start("fix the parser", promise="SHIPPED", max_iterations=3)
    new = at(asked, base=None)
    assert (new.promise, new.max_iterations, new.base) == ("SHIPPED", 3, None)


def test_an_autopilot_works_on_its_first_feature() -> None:
    new = at(Start(features=(F1, F2)), "")
    assert new.features == (F1, F2)
    assert new.task == F1.task
