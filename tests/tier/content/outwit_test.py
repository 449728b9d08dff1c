"""Outwitting in code: an added `__eq__` that ignores its argument, a `valueOf` that returns a constant, a
jest asymmetric matcher in the implementation; an `__eq__` that compares fields is honest, and so is
anything in a test file. Synthetic changed lines, no git."""

from __future__ import annotations

import pytest
from testing.filelines import file_lines

from tiergate.tier import content
from tiergate.tier.content import ContentHit, added_file, scan_files
from tiergate.tier.content.outwit import MATCHER


def outwitting(path: str, added: list[str]) -> list[ContentHit]:
    lines = file_lines(path, added, range(30, 30 + len(added)))
    return [h for h in scan_files([lines], content.DEFAULT) if h.construct.startswith("outwitting")]


EQ = "outwitting: __eq__ ignores its argument"

# (file, added lines, the construct)
OUTWITTING: list[tuple[str, list[str], str]] = [
    ("app.py", ["    def __eq__(self, other):", "        return True"], EQ),
    ("app.py", ["    def __eq__(self, other):", '        """Equal."""', "", "        return True  # ok"], EQ),
    (
        "app.py",
        [
            "    def __eq__(self, other):",
            '        """Equal',
            "        always.",
            '        """',
            "        return 1",
        ],
        EQ,
    ),
    ("app.py", ["    def __ne__(self, other): return False"], "outwitting: __ne__ ignores its argument"),
    ("app.py", ["    __eq__ = lambda self, other: True"], EQ),
    ("src/pkg/model.py", ["    def __eq__(self, other: object) -> bool:", "        return not False"], EQ),
    ("src/calc.js", ["  valueOf() { return 3; }"], "outwitting: valueOf returns a constant"),
    ("src/calc.js", ["  valueOf() {", "    return 3;", "  }"], "outwitting: valueOf returns a constant"),
    (
        "src/calc.ts",
        ["  [Symbol.toPrimitive](hint) { return 'ok'; }"],
        "outwitting: Symbol.toPrimitive returns a constant",
    ),
    ("src/calc.js", ["const r = { valueOf: () => 3, n: 1 };"], "outwitting: valueOf returns a constant"),
    ("src/calc.js", ["  $$typeof: Symbol.for('jest.asymmetricMatcher'),"], MATCHER),
    ("src/calc.js", ["  asymmetricMatch: () => true,"], MATCHER),
]


@pytest.mark.parametrize(("path", "added", "construct"), OUTWITTING)
def test_a_value_made_equal_to_anything_is_named_outwitting(
    path: str, added: list[str], construct: str
) -> None:
    hits = [h for h in outwitting(path, added) if h.construct == construct]
    assert hits, (path, added)
    assert hits[0].category == "architecture"
    assert hits[0].describe().startswith(f"{path}:30 (added line) {construct}: ")


DATACLASS = """\
from dataclasses import dataclass


@dataclass(frozen=True)
class Money:
    cents: int


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        if not isinstance(other, Point):
            return NotImplemented
        return (self.x, self.y) == (other.x, other.y)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return 1
"""

# (file, added lines): honest code
HONEST: list[tuple[str, list[str]]] = [
    ("app.py", DATACLASS.splitlines()),
    ("app.py", ["    def __eq__(self, other):", "        return NotImplemented"]),
    ("app.py", ["    def __eq__(self, other):"]),  # its body is on lines the change does not show
    ("app.py", ["    def __eq__(self, other):", "        return self.key() == key(other)"]),
    ("app.py", ["    def equals(self, other):", "        return True"]),
    ("tests/test_app.py", ["    def __eq__(self, other):", "        return True"]),  # a test's helper
    ("src/calc.js", ["  valueOf() { return this.cents; }", "  toString() { return 'Money'; }"]),
    ("src/calc.js", ["const valueOf = (x) => x.valueOf();"]),
    ("test/calc.test.js", ["  asymmetricMatch: () => true,", "  valueOf() { return 3; }"]),
]


@pytest.mark.parametrize(("path", "added"), HONEST)
def test_honest_equality_is_not_outwitting(path: str, added: list[str]) -> None:
    assert outwitting(path, added) == []


def test_a_new_module_is_read_as_its_added_lines() -> None:
    text = "class Result:\n    def __eq__(self, other):\n        return True\n"
    (hit,) = scan_files([added_file("calc.py", text)], content.DEFAULT)
    assert (
        hit.describe()
        == 'calc.py:2 (added line) outwitting: __eq__ ignores its argument: "def __eq__(self, other):"'
    )
