"""A changed `.rs` file as the change leaves its code, with its tests as at the base: what the scratch copy
of the base's tests holds (`tiergate.gate.rusttests` writes it). Pure.

The claim's test items (`#[cfg(test)] mod tests`, `#[test]` fns: `tiergate.tier.content.rustsource`) are
cut out and the base's put in where the claim's item of that header stood, else at its module's end, else
the file's; one the change added is left out; a file all tests (`#![cfg(test)]`) is the base's whole.
"""

from __future__ import annotations

from tiergate.tier.content.rustsource import Item, all_tests, masked, modules, test_items


def with_base_tests(path: str, claim: str, base: str | None) -> str:
    """The file at `path` as `claim` holds its code, with the test items of `base` (None: the file is new,
    and keeps no test)."""
    base = base or ""
    claim_code, base_code = masked(claim), masked(base)
    if all_tests(path, claim_code) or all_tests(path, base_code):
        return base
    theirs = test_items(claim_code)
    free = {(item.modules, item.key): item for item in reversed(theirs)}  # the first of a header wins
    inserts: list[tuple[int, str]] = []
    for item in test_items(base_code):
        text = base[item.start : item.end]
        same = free.pop((item.modules, item.key), None)
        if same is not None:
            inserts.append((same.start, text))
        else:
            inserts.append((_module_end(claim, claim_code, item), f"\n{text}\n"))
    return _rebuilt(claim, [(item.start, item.end) for item in theirs], inserts)


def holds_tests(path: str, source: str) -> bool:
    """Whether the Rust file at `path` holds a test item, or is all tests."""
    code = masked(source)
    return all_tests(path, code) or bool(test_items(code))


def _module_end(claim: str, code: str, item: Item) -> int:
    """Where a base test item whose place the claim no longer has goes: before the closing brace of its
    module in the claim's file, else at the file's end."""
    if item.modules:
        mods = modules(code)
        paths = {(*(n for n, s, e in mods if s < start < e), name): stop for name, start, stop in mods}
        stop = paths.get(item.modules)
        if stop is not None:
            return stop - 1
    return len(claim)


def _rebuilt(text: str, removed: list[tuple[int, int]], inserts: list[tuple[int, str]]) -> str:
    """`text` without the spans `removed`, with each insert's text put at its offset (in their order)."""
    ends = dict(removed)
    points = sorted({start for start, _ in removed} | {at for at, _ in inserts})
    parts = []
    at = 0
    for point in points:
        if point < at:
            continue  # within a span removed (never an insert's place: those are outside every item)
        parts.append(text[at:point])
        if point == len(text) and not text.endswith("\n"):
            parts.append("\n")
        parts.extend(inserted for where, inserted in inserts if where == point)
        at = ends.get(point, point)
    parts.append(text[at:])
    return "".join(parts)
