"""What a regular expression can read, from its parse (CPython's own parser): the shape that bounds what
`re` may scan from each place it tries, which no clock on a loaded machine can show."""

from __future__ import annotations

import importlib
import re
from typing import Any

# CPython's parser of `re`, private and untyped: its nodes are (opcode, argument) pairs.
_parser: Any = importlib.import_module("re._parser")
_op: Any = importlib.import_module("re._constants")
_NEWLINE = ord("\n")
# The classes that hold a newline (\s, \D, \W, and their Unicode forms).
_HOLD_A_NEWLINE = frozenset(
    {
        _op.CATEGORY_SPACE,
        _op.CATEGORY_NOT_DIGIT,
        _op.CATEGORY_NOT_WORD,
        _op.CATEGORY_LINEBREAK,
        _op.CATEGORY_UNI_SPACE,
        _op.CATEGORY_UNI_NOT_DIGIT,
        _op.CATEGORY_UNI_NOT_WORD,
        _op.CATEGORY_UNI_LINEBREAK,
    }
)


def reads_a_newline(pattern: str, flags: int = re.MULTILINE) -> bool:
    """Whether some part of `pattern` (a lookaround included) can match a newline: if none can, a search
    tried at any place stops at the end of that place's line, whatever follows."""
    parsed = _parser.parse(pattern, flags)
    return _reads(parsed.data, dotall=bool(parsed.state.flags & re.DOTALL))


def has_atomic_group(pattern: str) -> bool:
    """Whether `pattern` has an atomic group at its top level: what it matched is never tried again."""
    return any(op == _op.ATOMIC_GROUP for op, _ in _parser.parse(pattern).data)


def _reads(nodes: Any, *, dotall: bool) -> bool:
    return any(_node_reads(op, arg, dotall) for op, arg in nodes)


def _node_reads(op: Any, arg: Any, dotall: bool) -> bool:
    if op in (_op.LITERAL, _op.NOT_LITERAL):
        return bool(arg == _NEWLINE) == bool(op == _op.LITERAL)
    if op == _op.ANY:
        return dotall
    if op == _op.IN:
        return _class_holds_a_newline(arg)
    if op in (_op.AT, _op.GROUPREF):  # an anchor reads nothing; a backreference, what its group read
        return False
    return any(_reads(nodes, dotall=dotall) for nodes in _children(op, arg))


def _children(op: Any, arg: Any) -> list[Any]:
    """The node lists inside a group, a repeat, a lookaround or an alternation."""
    if op in (_op.MAX_REPEAT, _op.MIN_REPEAT, _op.POSSESSIVE_REPEAT):
        return [arg[2]]
    if op == _op.SUBPATTERN:
        return [arg[3]]
    if op == _op.ATOMIC_GROUP:
        return [arg]
    if op in (_op.ASSERT, _op.ASSERT_NOT):
        return [arg[1]]
    if op == _op.BRANCH:
        return list(arg[1])
    if op == _op.GROUPREF_EXISTS:
        return [nodes for nodes in arg[1:] if nodes is not None]
    raise ValueError(f"a regular expression's part this module does not know: {op}")


def _class_holds_a_newline(items: Any) -> bool:
    negated = bool(items) and items[0][0] == _op.NEGATE
    held = any(_item_holds_a_newline(op, arg) for op, arg in items)
    return held != negated


def _item_holds_a_newline(op: Any, arg: Any) -> bool:
    if op == _op.LITERAL:
        return bool(arg == _NEWLINE)
    if op == _op.RANGE:
        return bool(arg[0] <= _NEWLINE <= arg[1])
    return op == _op.CATEGORY and arg in _HOLD_A_NEWLINE
