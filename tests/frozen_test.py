"""`@frozen` against `@dataclass(frozen=True)`: the same class body under each behaves the same."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from tiergate.frozen import frozen

Decorator = Callable[[type], type]
STDLIB: Decorator = dataclasses.dataclass(frozen=True)


def classes(decorate: Decorator) -> tuple[type, type, type]:
    class Point:
        x: int
        y: int = 0
        tags: tuple[str, ...] = ()
        notes: tuple[str, ...] = dataclasses.field(default_factory=tuple)
        cached: str = dataclasses.field(default="", compare=False, repr=False)

    class Labelled(Point):
        label: str = "here"

    class Checked:
        value: int
        seen: list[int] = dataclasses.field(default_factory=list)

        def __post_init__(self) -> None:
            self.seen.append(self.value)

    return decorate(Point), decorate(Labelled), decorate(Checked)


MADE = {"stdlib": classes(STDLIB), "frozen": classes(frozen)}


def both(build: Callable[[tuple[type, type, type]], Any]) -> tuple[Any, Any]:
    return build(MADE["stdlib"]), build(MADE["frozen"])


@pytest.mark.parametrize(
    "build",
    [
        lambda c: c[0](1),
        lambda c: c[0](1, 2, ("a",)),
        lambda c: c[0](x=3, notes=("n",), cached="c"),
        lambda c: c[1](1, 2, label="there"),
        lambda c: c[2](5),
    ],
)
def test_the_same_arguments_make_the_same_record(build: Callable[[Any], Any]) -> None:
    stdlib, ours = both(build)
    assert ours.__match_args__ == stdlib.__match_args__
    assert repr(ours) == repr(stdlib)
    assert dataclasses.asdict(ours) == dataclasses.asdict(stdlib)
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(stdlib)]
    assert dataclasses.is_dataclass(ours)


def test_equality_and_hash_follow_the_compared_fields() -> None:
    for point, labelled, _ in MADE.values():
        assert point(1, cached="a") == point(1, cached="b")
        assert hash(point(1, cached="a")) == hash(point(1, cached="b"))
        assert point(1) != point(2)
        assert point(1, 0, ("a",)) != point(1, 0, ("b",))
        assert labelled(1) != point(1)  # another class is never equal
        assert point(1).__eq__("x") is NotImplemented


def test_a_default_factory_makes_a_new_value_for_each_record() -> None:
    for _, _, checked in MADE.values():
        first, second = checked(1), checked(1)
        assert first.seen == second.seen == [1]
        assert first.seen is not second.seen


def test_replace_makes_a_changed_copy_and_post_init_runs_again() -> None:
    for point, _, checked in MADE.values():
        assert dataclasses.replace(point(1, 2), y=7) == point(1, 7)
        again = dataclasses.replace(checked(1), value=2, seen=[])
        assert again.seen == [2]


@pytest.mark.parametrize("decorator", ["stdlib", "frozen"])
def test_a_record_cannot_be_changed(decorator: str) -> None:
    record = MADE[decorator][0](1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.x = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        del record.x


@pytest.mark.parametrize("decorator", ["stdlib", "frozen"])
@pytest.mark.parametrize(
    "call",
    [
        lambda point: point(),  # x is required
        lambda point: point(1, 2, (), (), "", "extra"),  # too many positional arguments
        lambda point: point(1, x=1),  # x twice
        lambda point: point(1, z=1),  # no such field
    ],
)
def test_wrong_arguments_are_refused(decorator: str, call: Callable[[type], object]) -> None:
    with pytest.raises(TypeError):
        call(MADE[decorator][0])


def test_a_record_matches_by_position() -> None:
    point = MADE["frozen"][0]
    match point(4, 5):
        case point(x, y):  # type: ignore[misc]
            assert (x, y) == (4, 5)
        case _:
            pytest.fail("no match")
