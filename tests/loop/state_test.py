"""A loop's state: what a new loop holds, what its change is measured from, its current item and
approach, and the items done."""

from __future__ import annotations

from dataclasses import replace

from tiergate.loop.features import Feature
from tiergate.loop.state import AttemptRecord, new_loop, next_approach, with_features

F1 = Feature("F01", "List items", "GET /items lists every item.", (("list", "sh probe.sh list"),))
F2 = Feature("F02", "Filter by tag", "GET /items?tag=x filters.", (("filter", "sh probe.sh filter"),))


def test_a_new_ralph_loop_works_on_its_task_from_its_base() -> None:
    loop = new_loop("s1", "Fix the parser", now=5.0, base="b" * 40, promise="DONE")
    assert (loop.task, loop.phase, loop.started_at, loop.active) == ("Fix the parser", "working", 5.0, True)
    assert loop.change_base == "b" * 40
    assert replace(loop, start="c" * 40).change_base == "c" * 40


def test_an_autopilot_works_on_its_first_feature_and_moves_to_the_next() -> None:
    loop = with_features(new_loop("s1", "", now=0.0, base=None, promise="DONE"), (F1, F2))
    assert loop.task == F1.task and loop.item == "F01"
    moved = next_approach(loop)
    assert moved.task == F2.task and moved.item == "F02"
    past = next_approach(moved)
    assert past.task == F2.task and past.item == ""


def test_a_ralph_loops_each_approach_is_its_own_item() -> None:
    loop = new_loop("s1", "Fix it", now=0.0, base=None, promise="DONE")
    assert loop.item == "Fix it"
    assert next_approach(loop).item == "Fix it#2"
    assert next_approach(loop).task == "Fix it"


def test_an_item_is_done_when_its_last_attempt_passed() -> None:
    loop = with_features(new_loop("s1", "", now=0.0, base=None, promise="DONE"), (F1, F2))
    attempts = (AttemptRecord("F01", False), AttemptRecord("F01", True), AttemptRecord("F02", False))
    assert replace(loop, attempts=attempts).done == ("F01",)


def test_an_ended_loop_is_not_active() -> None:
    loop = new_loop("s1", "Fix it", now=0.0, base=None, promise="DONE")
    assert not replace(loop, phase="cancelled", ended_at=1.0).active
    assert not replace(loop, phase="halted").active
