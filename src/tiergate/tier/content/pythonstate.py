"""Python code that answers from state kept between calls (see `reaching`): a function that changes what
outlives its call, in a way that counts or consumes (a counter, a queue of answers, an iterator at module
level, a function attribute, a mutable default argument, a list kept to count the calls). Pure. What
counts and what does not: the comment below.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tiergate.tier.content.codelines import Scope, Statement
from tiergate.tier.content.reaching import Mechanism, reach
from tiergate.tier.content.rule import ContentHit

# What outlives a call: names bound at module level (by the added lines), those a function declares `global`
# or `nonlocal`, the function's own attributes, its mutable defaults. Counting or consuming: an augmented
# assignment to one (`n += 1`, `_state["n"] += 1`), a rebinding from itself (`n = n + 1`, `f.calls =
# getattr(f, "calls", 0) + 1`), `next()` of one, `.pop()`/`.popleft()` of one, a mutable default changed, a
# kept list grown by a function that also reads its length or an item.
#
# Not counting: a memo keyed by the call's arguments (`_memo[(a, b)] = a * b`, `lru_cache`), a value made
# once (`global _client; _client = make()`), a registry appended to, an instance's own state (`self.n +=
# 1`).


_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_NAMES = rf"{_ID}(?:[ \t]*,[ \t]*{_ID})*"
_MODULE_ASSIGN = re.compile(
    rf"^(?:(?P<names>{_NAMES})[ \t]*(?::[^=\n]+)?=(?!=)"
    rf"|(?:async[ \t]+)?(?:def|class)[ \t]+(?P<defined>{_ID}))"
)
_DECLARE = re.compile(rf"^(?:global|nonlocal)[ \t]+(?P<names>{_NAMES})[ \t]*$")
_LOCAL = re.compile(
    rf"^(?:(?P<names>{_NAMES})[ \t]*(?::[^=\n]+)?=(?!=)"
    rf"|(?:async[ \t]+)?for[ \t]+\(?(?P<loop>{_NAMES})\)?[ \t]+in\b"
    rf"|(?:async[ \t]+)?with[ \t].*\bas[ \t]+(?P<alias>{_ID})[ \t]*:)"
)
# An assignment: its target (a name, an attribute, an item) and its operator, if augmented.
_TARGET = re.compile(
    rf"^(?P<target>{_ID}(?:\.{_ID}|\[[^\]\n]*\])*)[ \t]*"
    r"(?P<op>//|\*\*|<<|>>|[-+*/%&|^@])?=(?!=)"
)
# A name read, not assigned (`n = n + 1` reads n; `t = f(lambda: t := None)` does not).
_READ = r"(?![ \t]*=(?!=))"
# For `may_keep_state`: a name bound at the module's top; a target changed in place (or an attribute or item
# assigned) in an indented line; what `next()` takes; a method call that consumes or grows its object.
_TOP = re.compile(
    rf"^(?:(?P<name>{_ID})[ \t]*(?::[^=\n]*)?=(?!=)|(?:async[ \t]+)?(?:def|class)[ \t]+(?P<defined>{_ID}))",
    re.M,
)
_CHANGED = re.compile(
    rf"^[ \t]+({_ID})(?:\.{_ID}|\[[^\]\n]*\])*[ \t]*"
    r"(?:(?://|\*\*|<<|>>|[-+*/%&|^@])=|(?<=[\]\w])[ \t]*=(?!=))",
    re.M,
)
_NEXT_ARG = re.compile(rf"(?:next|heappop)(?<![\w.]next)(?<![\w.]heappop)[ \t]*\([ \t]*({_ID})")
_GROWN_OR_CONSUMED = re.compile(
    r"\.(?:pop|popleft|popitem|get_nowait|append|appendleft|extend|insert|add)[ \t]*\("
)
_DEF = re.compile(rf"def(?<![\w.]def)[ \t]+({_ID})")
_MUTABLE_DEFAULT = re.compile(
    r"def(?<![\w.]def)[ \t]+\w+[ \t]*\([^\n]*=[ \t]*"
    r"(?:\[|\{|(?:set|list|dict|deque|defaultdict|Counter|OrderedDict|iter|count|cycle)\()"
)
_NEXT = re.compile(rf"(?<![\w.])next[ \t]*\([ \t]*(?P<arg>{_ID}(?:\.{_ID})*)[ \t]*[,)]")
_CONSUMED = re.compile(
    rf"(?<![\w.])(?P<arg>{_ID}(?:\.{_ID})*)\."
    r"(?:pop[ \t]*\([ \t]*(?:0|-1)?[ \t]*\)|popleft|popitem|get_nowait)"
    rf"|(?<![\w.])heapq\.heappop[ \t]*\([ \t]*(?P<heap>{_ID})"
)
_MEASURED = re.compile(rf"\blen\([ \t]*(?P<len>{_ID})[ \t]*\)|(?<![\w.])(?P<item>{_ID})\[")
_ROOT = re.compile(r"[.\[]")
_BRACKETED = re.compile(r"\[[^\]]*\]")
_GROWN = re.compile(rf"(?<![\w.])(?P<arg>{_ID}(?:\.{_ID})*)\.(?:append|extend|insert|add|appendleft)[ \t]*\(")
_MUTATED = re.compile(
    rf"(?<![\w.])(?P<arg>{_ID})\.(?:append|extend|insert|add|appendleft|pop|popleft|remove|clear|update"
    r"|discard)[ \t]*\("
)


@dataclass
class _Names:
    module: set[str] = field(default_factory=set)  # bound at module level
    declared: dict[Scope, set[str]] = field(default_factory=dict)  # `global`/`nonlocal`, by function
    local: dict[Scope, set[str]] = field(default_factory=dict)  # bound in a function, not declared
    # What outlives a call of each function, by the scopes a statement is in (`_kept`, worked out once).
    kept: dict[tuple[Scope | None, ...], set[str]] = field(default_factory=dict)


def may_keep_state(text: str) -> bool:
    """Whether added lines (`text`, joined) could count or consume kept state: a `global` or `nonlocal`,
    a mutable default, or a name bound at the top of the module (or a function's name) changed in place
    in an indented line. A cheap look, before the lines are read as statements: most files of a large
    change hold none. Patterns start with a literal or a line's start, so each is one quick pass."""
    if "global " in text or "nonlocal " in text or _MUTABLE_DEFAULT.search(text) is not None:
        return True
    top = {name or defined for name, defined in _TOP.findall(text)} | set(_DEF.findall(text))
    roots = set(_CHANGED.findall(text)) | set(_NEXT_ARG.findall(text))
    for found in _GROWN_OR_CONSUMED.finditer(text):
        start = found.start()
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_."):
            start -= 1
        roots.add(text[start : found.start()].split(".", maxsplit=1)[0])
    return not roots.isdisjoint(top)


def judge_state(path: str, statements: list[Statement]) -> Iterator[ContentHit]:
    """The statements that count or consume state kept between calls (see the module)."""
    names = _names(statements)
    for statement in statements:
        what = _counted(statement, names) if statement.function is not None else None
        if what is not None:
            yield reach(path, statement.number, Mechanism.STATE, what, statement.first)
    yield from _kept_lists(path, statements, names)


def _names(statements: list[Statement]) -> _Names:
    names = _Names()
    for statement in statements:
        function = statement.function
        if function is None:
            assigned = _MODULE_ASSIGN.match(statement.code)
            if assigned is not None and not statement.within("class"):
                names.module.update(_split(assigned["names"] or assigned["defined"]))
            continue
        declared = _DECLARE.match(statement.code)
        if declared is not None:
            names.declared.setdefault(function, set()).update(_split(declared["names"]))
        bound = _LOCAL.match(statement.code)
        if bound is not None:
            names.local.setdefault(function, set()).update(
                _split(bound["names"] or bound["loop"] or bound["alias"])
            )
    for function, declared_there in names.declared.items():
        names.local.get(function, set()).difference_update(declared_there)
    return names


def _split(names: str) -> list[str]:
    return [n.strip() for n in names.split(",")]


def _counted(statement: Statement, names: _Names) -> str | None:
    """What the statement counts or consumes of the state its function keeps, if anything: each kind of
    candidate is found first, and what the function keeps is asked only for one (most statements have
    none)."""
    code, text = statement.code, statement.text
    target = _TARGET.match(code)
    if target is not None:
        chain = text[target.start("target") : target.end("target")].replace(" ", "")
        root = _ROOT.split(chain, maxsplit=1)[0]
        holders = _declared(statement, names) if root == chain else _kept(statement, names)
        if root in holders and (target["op"] or _rebinds_itself(chain, text[target.end() :])):
            return _BRACKETED.sub("[]", chain)
    if "next" not in code and "pop" not in code and "get_nowait" not in code:
        return _default_changed(statement)
    for found in _NEXT.finditer(code):
        if found["arg"].split(".")[0] in _kept(statement, names):
            return f"next({found['arg']})"
    for found in _CONSUMED.finditer(code):
        arg = found["arg"] or found["heap"]
        if arg.split(".")[0] in _kept(statement, names):
            return str(arg)
    return _default_changed(statement)


def _default_changed(statement: Statement) -> str | None:
    """A mutable default argument of the function changed (`seen.append(x)` with `seen=[]`)."""
    defaults = statement.function.mutable_defaults if statement.function is not None else frozenset()
    for found in _MUTATED.finditer(statement.code) if defaults else ():
        if found["arg"] in defaults:
            return str(found["arg"])
    return None


def _scopes(statement: Statement) -> list[Scope]:
    """The scopes around the statement, its function last (the one no added header shows included)."""
    function = statement.function
    scopes = list(statement.scopes)
    return scopes if function is None or function in scopes else [*scopes, function]


def _declared(statement: Statement, names: _Names) -> set[str]:
    """The names the functions around the statement declare `global` or `nonlocal`."""
    return {n for s in _scopes(statement) for n in names.declared.get(s, ())}


def _kept(statement: Statement, names: _Names) -> set[str]:
    """The names whose value outlives a call of the function the statement is in: module-level ones and
    those it declares `global` or `nonlocal`, its mutable defaults, the functions it is in (their
    attributes); not those it binds itself, nor its parameters."""
    key = (*statement.scopes, statement.function)
    found = names.kept.get(key)
    if found is None:
        found = names.kept[key] = _worked_out(statement, names)
    return found


def _worked_out(statement: Statement, names: _Names) -> set[str]:
    kept = names.module | _declared(statement, names)
    for scope in _scopes(statement):
        if scope.kind == "function":
            kept |= {scope.name, *scope.mutable_defaults}
    for scope in _scopes(statement):
        kept -= (scope.params - scope.mutable_defaults) | names.local.get(scope, set())
    return kept - {"self", "cls", ""}


def _rebinds_itself(chain: str, value: str) -> bool:
    """Whether an assignment rebinds state from itself (`n = n + 1`, `f.calls = f.calls + 1`,
    `f.calls = getattr(f, "calls", 0) + 1`, `n = next(it)`): a counter, not a value made once
    (`_rows = _build_rows()` reads no `_rows`)."""
    if "next(" in value:
        return True
    last = "" if "[" in chain else re.split(r"[.\[]", chain)[-1]
    if last and re.search(rf"(?<![\w]){re.escape(last)}(?![\w])" + _READ, value) is not None:
        return True
    return re.search(rf"(?<![\w.]){re.escape(chain)}(?![\w])" + _READ, value.replace(" ", "")) is not None


def _kept_lists(path: str, statements: list[Statement], names: _Names) -> Iterator[ContentHit]:
    """A list kept between calls, grown by a function that also reads its length or an item: the calls
    counted by what they left behind."""
    grown: dict[tuple[Scope, str], Statement] = {}
    read: set[tuple[Scope, str]] = set()
    for statement in statements:
        function = statement.function
        if function is None or (
            "len(" not in statement.code and "[" not in statement.code and "." not in statement.code
        ):
            continue
        appended = [m["arg"] for m in _GROWN.finditer(statement.code)]
        measured = {m["len"] or m["item"] for m in _MEASURED.finditer(statement.code)}
        if not appended and not measured:
            continue
        kept = _kept(statement, names)
        for arg in appended:
            if arg.split(".")[0] in kept:
                grown.setdefault((function, arg), statement)
        read.update((function, name) for name in measured & kept)
    for (function, arg), statement in grown.items():
        if (function, arg) in read:
            yield reach(path, statement.number, Mechanism.STATE, arg, statement.first)
