"""JavaScript code that answers from state kept between calls (see `reaching`): a function that counts or
consumes what outlives its call. Pure. What counts and what does not: the comment below.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tiergate.tier.content.codelines import Scope, Statement, split_top
from tiergate.tier.content.reaching import Mechanism, reach
from tiergate.tier.content.rule import ContentHit

# What outlives a call: what the module declares at its top (`let calls = 0`, `const answers = [...]`), what
# an enclosing function declares with `let` or `var` (a closure's counter), the functions' own properties
# (`mul.calls`). Counting or consuming: `++`/`--`, a compound assignment (`n += 1`; `||=` and `??=` make a
# value once), a rebinding from itself (`n = n + 1`), `.shift()`, `.pop()`, `.next()`, `.splice(0, ...)`.
#
# Not counting: a memo keyed by the arguments (`memo.set(key, ...)`), a value made once (`cache = load()`),
# an instance's own state (`this.n++`), and a callback's changes to the `let`s of the call around it
# (`items.forEach((x) => { total += x; })` sums within one call).


_ID = r"[A-Za-z_$][\w$]*"
_CHAIN = rf"{_ID}(?:\.{_ID}|\[[^\]\n]*\])*"
_DECLARATION = re.compile(r"^(?:export[ \t]+)?(?P<kind>let|var|const)[ \t]+(?P<rest>.*)$")
_STEP = re.compile(rf"(?<![\w$.])(?P<pre>{_CHAIN})[ \t]*(?:\+\+|--)|(?:\+\+|--)[ \t]*(?P<post>{_CHAIN})")
_ASSIGNED = re.compile(
    rf"^(?P<target>{_ID}(?:\.{_ID}|\[[^\]\n]*\])*)[ \t]*"
    r"(?P<op>\*\*|<<|>>>|>>|[-+*/%&|^])?=(?![=>])"
)
_CONSUMED = re.compile(
    rf"(?<![\w$.])(?P<name>{_ID}(?:\.{_ID})*)\.(?:shift|pop|next)[ \t]*\([ \t]*\)"
    rf"|(?<![\w$.])(?P<spliced>{_ID}(?:\.{_ID})*)\.splice[ \t]*\([ \t]*0\b"
)


_READ_CHARS = 2_000


@dataclass
class _Names:
    # What each function declares (`let`, `var`, `const`); the module's own under None.
    declared: dict[Scope | None, set[str]] = field(default_factory=dict)
    # What it declares to change (`let`, `var`): a closure's counter. A closure's `const` holds an object
    # made for the call around it (a stream's internals, an iterator it reads).
    changing: dict[Scope | None, set[str]] = field(default_factory=dict)


def judge_state(path: str, statements: list[Statement]) -> Iterator[ContentHit]:
    """The statements that count or consume state kept between calls (see the module)."""
    names = _Names()
    for statement in statements:
        found = _DECLARATION.match(statement.code)
        if found is not None:
            # (the names of a long declaration are read from its first characters: a line is the agent's)
            declared = {p.split("=")[0].split(":")[0].strip() for p in split_top(found["rest"][:_READ_CHARS])}
            declared = {d for d in declared if re.fullmatch(_ID, d)}
            names.declared.setdefault(statement.function, set()).update(declared)
            if found["kind"] != "const":
                names.changing.setdefault(statement.function, set()).update(declared)
    for statement in statements:
        what = _counted(statement, names) if statement.in_function else None
        if what is not None:
            yield reach(
                path, statement.number, Mechanism.STATE, re.sub(r"\[[^\]]*\]", "[]", what), statement.first
            )


def _counted(statement: Statement, names: _Names) -> str | None:
    kept = _kept(statement, names)
    code = statement.code
    for found in _STEP.finditer(code):
        chain = found["pre"] or found["post"]
        if _root(chain) in kept:
            return str(chain)
    target = _ASSIGNED.match(code)
    if target is not None:
        chain = target["target"].replace(" ", "")
        # Read in its new value (`n = n + 1`), not assigned there (a timer's callback clearing it).
        read = rf"(?<![\w$.]){re.escape(chain)}(?![\w$])(?![ \t]*=(?![=>]))"
        itself = re.search(read, code[target.end() :]) is not None
        if _root(chain) in kept and (target["op"] or itself):
            return chain
    for found in _CONSUMED.finditer(code):
        name = found["name"] or found["spliced"]
        if _root(name) in kept:
            return str(name)
    return None


def _root(chain: str) -> str:
    return re.split(r"[.\[]", chain, maxsplit=1)[0]


def _kept(statement: Statement, names: _Names) -> set[str]:
    """The names whose value outlives a call of the function the statement is in: the module's
    declarations, an enclosing function's (unless the statement is in a callback, run within that call),
    the enclosing functions (their properties); not its own function's declarations and parameters."""
    innermost = statement.function
    kept = set(names.declared.get(None, set()))
    for scope in statement.scopes:
        if scope.kind != "function":
            continue
        if scope is not innermost and not (innermost is not None and innermost.passed):
            kept |= names.changing.get(scope, set())
        kept.add(scope.name)
    if innermost is not None:
        kept -= names.declared.get(innermost, set()) | innermost.params
    return kept - {"this", ""}
