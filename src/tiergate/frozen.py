"""`@frozen`: the frozen dataclass every record of tiergate is, made without compiling code at import.

Same behaviour and `__dataclass_fields__` as `@dataclass(frozen=True)` (`fields`, `replace`, `asdict`
work: `tests/frozen_test.py`), from generic methods. Supported: defaults, `field(default_factory, init,
repr, compare)`, inheritance from another `@frozen` class, `__post_init__`.
"""
# Why: `@dataclass(frozen=True)` compiles six methods per class, about half a millisecond each class on
# CPython 3.11: 40% of every hook's start (`bench/hook_import_bench.py`).

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError

from tiergate import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TypeVar, dataclass_transform

    T = TypeVar("T", bound=type)
else:

    def dataclass_transform(**_: object) -> Callable[[object], object]:
        return lambda decorated: decorated


_FIELDS = "__dataclass_fields__"


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def frozen(cls: T) -> T:
    fields = _collect(cls)
    ordered = tuple(fields.values())
    init = tuple(f.name for f in ordered if f.init)
    compared = tuple(f.name for f in ordered if f.compare)
    members: dict[str, object] = {
        _FIELDS: fields,
        "__init__": _init(cls, ordered, init),
        "__eq__": _eq(compared),
        "__hash__": _hash(compared),
        "__repr__": _repr(tuple(f.name for f in ordered if f.repr)),
        "__setattr__": _refuse_set,
        "__delattr__": _refuse_delete,
        "__match_args__": init,
    }
    for name, member in members.items():
        setattr(cls, name, member)
    return cls


def _collect(cls: type) -> dict[str, Field[object]]:
    """The fields of `cls` in order: its bases' first, then its own annotations, as dataclasses does."""
    fields: dict[str, Field[object]] = {}
    for base in reversed(cls.__mro__[1:]):
        fields.update(base.__dict__.get(_FIELDS, {}))
    for name, annotation in inspect.get_annotations(cls).items():
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        fields[name] = _field(cls, name, annotation)
    return fields


def _field(cls: type, name: str, annotation: object) -> Field[object]:
    value = cls.__dict__.get(name, MISSING)
    made: Field[object] = value if isinstance(value, Field) else dataclasses.field(default=value)
    made.name = name
    made.type = annotation
    made._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
    if made.default is MISSING:
        if name in cls.__dict__:
            delattr(cls, name)
    else:
        setattr(cls, name, made.default)
    return made


def _init(cls: type, ordered: tuple[Field[object], ...], names: tuple[str, ...]) -> Callable[..., None]:
    post_init = getattr(cls, "__post_init__", None)
    accepted = frozenset(names)

    def __init__(self: object, *args: object, **kwargs: object) -> None:  # noqa: N807
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__}() takes {len(names)} positional arguments, {len(args)} given")
        values = dict(zip(names, args, strict=False))
        for key, value in kwargs.items():
            if key not in accepted or key in values:
                raise TypeError(f"{cls.__name__}() got an unexpected or repeated argument {key!r}")
            values[key] = value
        for f in ordered:
            object.__setattr__(self, f.name, _value(cls, f, values))
        if post_init is not None:
            post_init(self)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _value(cls: type, f: Field[object], values: dict[str, object]) -> object:
    if f.name in values:
        return values[f.name]
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    raise TypeError(f"{cls.__name__}() missing required argument: {f.name!r}")


def _values(names: tuple[str, ...]) -> Callable[[object], tuple[object, ...]]:
    """The record's values of `names`, as the tuple dataclasses compares and hashes."""
    return lambda record: tuple(getattr(record, n) for n in names)


def _eq(names: tuple[str, ...]) -> Callable[[object, object], bool]:
    values = _values(names)

    def __eq__(self: object, other: object) -> bool:  # noqa: N807
        if other.__class__ is not self.__class__:
            return NotImplemented
        return values(self) == values(other)

    return __eq__


def _hash(names: tuple[str, ...]) -> Callable[[object], int]:
    values = _values(names)
    return lambda record: hash(values(record))


def _repr(names: tuple[str, ...]) -> Callable[[object], str]:
    def __repr__(self: object) -> str:  # noqa: N807
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _refuse_set(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_delete(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")
