"""The JavaScript mutator: the exact mutants of small snippets, and every mutant of a realistic CommonJS
module still JavaScript by `node --check` (node is on this machine: tests/gate/coverage/measuring_test.py).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tiergate.tier.mutation.javascript import mutants_of
from tiergate.tier.mutation.mutants import OPERATORS, Mutant

ALL = range(1, 1000)


def changes(js: str, lines: Collection[int] = ALL, per_line: int = 99) -> list[tuple[str, str, str]]:
    """(operator, original, replacement) of each mutant of `js`, in the mutator's order."""
    mutants = mutants_of("app.js", js.encode(), lines, per_line)
    return [(m.operator, m.original, m.replacement) for m in mutants]


@pytest.mark.parametrize(
    ("js", "expected"),
    [
        (
            "if (n >= limit) {}",
            [
                ("condition", "(n >= limit)", "(!(n >= limit))"),
                ("comparison", ">=", ">"),
                ("comparison", ">=", "<"),
            ],
        ),
        (
            "x = a < b; y = a == b; z = a !== b;",
            [
                ("comparison", "<", "<="),
                ("comparison", "<", ">="),
                ("comparison", "==", "!="),
                ("comparison", "!==", "==="),
            ],
        ),
        (
            "ok = !done && (a || b);",
            [("boolean", "!", ""), ("boolean", "&&", "||"), ("boolean", "||", "&&")],
        ),
        (
            "t = a * b / c % d; t += 1; t *= 2; t /= x; i++; --j;",
            [
                ("arithmetic", "*", "/"),
                ("arithmetic", "/", "*"),
                ("arithmetic", "%", "*"),
                ("arithmetic", "+=", "-="),
                ("constant", "1", "2"),
                ("arithmetic", "*=", "/="),
                ("constant", "2", "3"),
                ("arithmetic", "/=", "*="),
                ("arithmetic", "++", "--"),
                ("arithmetic", "--", "++"),
            ],
        ),
        (
            "const n = 400, m = 0, f = 1.5, g = .5, h = 10n, t = true;",
            [
                ("constant", "400", "401"),
                ("constant", "0", "1"),
                ("constant", "1.5", "2.5"),
                ("constant", ".5", "1.5"),
                ("constant", "10n", "11n"),
                ("constant", "true", "false"),
            ],
        ),
        ("if (a) {} else if (x) {}", [("condition", "(a)", "(!(a))"), ("condition", "(x)", "(!(x))")]),
        # a `/` after an `if`'s head starts a regex, after a parenthesised operand it divides
        (
            "if (ok) /x+1/.test(s); z = (a) / 2;",
            [("condition", "(ok)", "(!(ok))"), ("arithmetic", "/", "*"), ("constant", "2", "3")],
        ),
        (
            "function f(x) { return x + 1; }",
            [("return", "x + 1", "undefined"), ("arithmetic", "+", "-"), ("constant", "1", "2")],
        ),
        ("function f(x) { return(x); }", [("return", "(x)", " undefined")]),  # not `returnundefined`
        ("log(a);\n", [("statement", "log(a)", "void 0")]),
        ("{\n  this.log.info(a);\n}", [("statement", "this.log.info(a)", "void 0")]),
    ],
)
def test_each_operator_makes_its_mutants(js: str, expected: list[tuple[str, str, str]]) -> None:
    assert changes(js) == expected


@pytest.mark.parametrize(
    "js",
    [
        # inside strings, comments, regular expressions and template literals' text
        "const s = ['a < b', \"c > d\"]; // e <= f",
        "const r = /g > h && i/; /* x * y || !z */",
        "const t = `a + 1 < ${b}`;",
        "const m = require('./a-1'); import('./b+2');",
        # the operators left alone
        "f = (x) => x >> y >>> z << w; y = a ?? b?.c ** d; z **= e; w >>= f; v = g;",
        # unary `-` and `+`, a `*` that is no product
        "x = -a; y = +z; w = typeof -a, u = [+b]; function* g() { yield* h; }",
        # forms of numbers left as they are, keys, members
        "const k = [0x10, 1e3, 1_000, 07, { 400: x }, o.true, { true: y }];",
        # the replacement would run into its neighbour: `a--b`, `a++b`, `typeofa`
        "p = a+-b; q = a-+b; r = typeof!a;",
        # `return` then a line break returns nothing; `return x` then a call is two statements
        "function f() {\n  return\n  x\n}\nfunction g() {\n  return x\n  g()\n}",
        # calls that are not a statement of their own line
        "a(); b();\nx = c();\nnew D();\nasync function e() { await f(); }",
    ],
)
def test_no_mutants_where_there_is_nothing_to_mutate(js: str) -> None:
    assert changes(js) == []


def test_the_code_in_a_template_literal_is_mutated_not_its_text() -> None:
    # The red team's j5: `${score >= 50 ? ...}` is code that runs at each call.
    js = "const t = `${a + 1} < ${b ? `${c - 2}` : d}`;"
    assert changes(js, per_line=9) == [
        ("arithmetic", "+", "-"),
        ("constant", "1", "2"),
        ("arithmetic", "-", "+"),
        ("constant", "2", "3"),
    ]


def test_a_method_named_if_or_while_has_no_condition() -> None:
    js = "const o = {\n  if(a) { return a; },\n};\nclass C { while(b) { return b; } }"
    assert changes(js) == [("return", "a", "undefined"), ("return", "b", "undefined")]


def test_every_site_keeps_its_most_telling_mutant_and_per_line_bounds_the_rest() -> None:
    # The red team's R1: a line's cap let pinned comparisons crowd out a weak one on the same line.
    js = "if (a >= b && c) { n += 1; }\nreturn a >= b;"
    firsts = [
        ("condition", "(a >= b && c)", "(!(a >= b && c))"),
        ("comparison", ">=", ">"),
        ("boolean", "&&", "||"),
        ("arithmetic", "+=", "-="),
        ("constant", "1", "2"),
        ("return", "a >= b", "undefined"),
        ("comparison", ">=", ">"),
    ]
    assert changes(js, per_line=1) == firsts
    assert changes(js, per_line=3) == [*firsts, ("comparison", ">=", "<")]  # the 2nd line's third
    assert changes(js, per_line=0) == []


def test_only_the_given_lines_are_mutated() -> None:
    js = "a = b + 1;\nc = d - 2;\n"
    assert changes(js, lines={2}) == [("arithmetic", "-", "+"), ("constant", "2", "3")]
    assert [m.line for m in mutants_of("app.js", js.encode(), {2})] == [2, 2]
    assert changes(js, lines={3, 7}) == []
    assert changes(js, lines=()) == []


def test_a_condition_over_lines_starts_on_its_parenthesis_line() -> None:
    js = "while (a &&\n  b) {}\n"
    assert changes(js, lines={2}) == []
    assert changes(js, lines={1}) == [("condition", "(a &&\n  b)", "(!(a &&\n  b))"), ("boolean", "&&", "||")]


def test_offsets_are_bytes_after_non_ascii_text() -> None:
    content = "const s = 'héllo ✓'; // ≈\nif (n > 0) {}\n".encode()
    first = mutants_of("app.js", content, {2}, per_line=1)[1]
    assert (first.line, first.original, first.replacement) == (2, ">", ">=")
    assert first.start == content.index(b">") and first.end == first.start + 1
    assert first.apply(content) == "const s = 'héllo ✓'; // ≈\nif (n >= 0) {}\n".encode()


def test_apply_yields_the_mutated_file() -> None:
    content = b"function f(a, b) {\n  return a - b;\n}\n"
    mutated = [m.apply(content) for m in mutants_of("lib/f.mjs", content, {2})]
    assert mutated == [
        b"function f(a, b) {\n  return undefined;\n}\n",
        b"function f(a, b) {\n  return a + b;\n}\n",
    ]


@pytest.mark.parametrize("path", ["a.ts", "a.tsx", "a.jsx", "a.py", "Makefile", "a.js.map"])
def test_only_javascript_files_are_mutated(path: str) -> None:
    assert mutants_of(path, b"x = a + b;\n", {1}) == ()


@pytest.mark.parametrize("path", ["a.js", "a.mjs", "a.cjs", "A.JS"])
def test_javascript_suffixes(path: str) -> None:
    assert len(mutants_of(path, b"x = a + b;\n", {1})) == 1


@pytest.mark.parametrize(
    "content",
    [
        b"const el = <div>{a + b}</div>;\n",  # JSX
        b"// @flow\nconst xs: Array<number> = [a + b];\n",
        b"x = 'a + b;\n",  # an unclosed string
        b"x = a + b; /* unclosed\n",
        b"x = `${a + b`;\n",
        b"x = (a + b;\n",
        b"x = a + b; // \xff\n",  # not UTF-8
    ],
)
def test_what_is_not_read_with_confidence_gives_no_mutants(content: bytes) -> None:
    assert mutants_of("app.js", content, {1, 2}) == ()


def test_the_mutants_are_in_order_and_stable() -> None:
    content = MODULE.encode()
    mutants = mutants_of("ledger.js", content, ALL)
    assert mutants == mutants_of("ledger.js", content, ALL)
    assert [m.start for m in mutants] == sorted(m.start for m in mutants)
    assert all(content[m.start : m.end].decode() == m.original for m in mutants)
    assert all(m.unit == "" and m.first == 0 for m in mutants)
    assert len({m.key for m in mutants}) == len(mutants)


NODE = shutil.which("node")


def node_checks(tmp_path: Path, files: dict[str, bytes]) -> dict[str, str]:
    """`node --check` of each file: the name of each it refused, with what node said."""
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    assert NODE is not None, "node is on this machine (v20)"

    def check(name: str) -> tuple[str, subprocess.CompletedProcess[str]]:
        command = [NODE, "--check", str(tmp_path / name)]
        return name, subprocess.run(command, capture_output=True, text=True, check=False)

    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(check, files))
    return {name: run.stderr for name, run in runs if run.returncode != 0}


def test_every_mutant_of_a_module_is_still_javascript(tmp_path: Path) -> None:
    content = MODULE.encode()
    mutants = mutants_of("ledger.js", content, ALL, per_line=8)
    assert {m.operator for m in mutants} == set(OPERATORS)
    assert len(mutants) > 80
    # The check itself refuses what is not JavaScript: the module with `400 400` for `400`.
    at = MODULE.index("400")
    broken = Mutant("ledger.js", 6, at, at + 3, "400", "400 400", "constant")
    files = {f"m{n}.js": m.apply(content) for n, m in enumerate((*mutants, broken))}

    refused = node_checks(tmp_path, files)

    assert list(refused) == [f"m{len(mutants)}.js"]  # the broken one, and no mutant
    assert "SyntaxError" in refused[f"m{len(mutants)}.js"]


# A CommonJS module of the kind an agent writes: classes, loops, a switch, regexes, template literals
# with expressions, comments and strings holding operators, non-ASCII text, unary operators, keys.
MODULE = """\
'use strict';
// A ledger of payments: totals, limits and a report (the fixture of javascript_test.py).
const path = require('node:path');
const { format } = require('./format-1.2');

const LIMIT = 400;
const RATE = 1.5;
const CURRENCY = /^[A-Z]{3}$/; // three capitals, e.g. "EUR"

class Ledger {
  constructor(owner, entries = []) {
    this.owner = owner;
    this.entries = entries.slice();
    this.closed = false;
  }

  add(amount, currency = 'EUR') {
    if (this.closed || !CURRENCY.test(currency)) {
      throw new Error(`ledger of ${this.owner} is closed or "${currency}" is not a currency`);
    }
    this.entries.push({ amount, currency, at: Date.now() });
    return this.entries.length;
  }

  total() {
    let sum = 0;
    for (let i = 0; i < this.entries.length; i++) {
      sum += this.entries[i].amount;
    }
    return sum;
  }

  overLimit() {
    return this.total() >= LIMIT && !this.closed;
  }

  fee(amount) {
    if (amount <= 0) return 0;
    else if (amount > LIMIT * 2) return Math.round(amount / 100) * RATE;
    return amount % 7 === 0 ? 1 : 2;
  }
}

function describe(ledger) {
  const parts = [];
  let i = ledger.entries.length;
  while (i > 0) {
    i -= 1;
    const entry = ledger.entries[i];
    parts.push(`${entry.amount} ${entry.currency} (≈ ${entry.amount * RATE} €)`);
  }
  const shift = ledger.entries.length >> 1;
  const half = (n) => n / 2 + shift;
  return parts.join(', ') + ' / ' + half(parts.length);
}

function classify(amount) {
  switch (true) {
    case amount < 0:
      return 'refund';
    case amount === 0:
      return 'empty';
    default:
      return amount > LIMIT ? 'large' : 'small';
  }
}

const report = (ledger, verbose = false) => {
  const lines = [format(ledger.owner), path.basename('/tmp/ledger-2.txt')];
  if (verbose) lines.push(describe(ledger));
  const keys = { 0: 'none', 1: 'one', many: ledger.entries.length != 1 };
  console.log(lines.join('\\n'));
  return keys;
};

let opened = 0;
opened++;
const unary = -1 + +'2' - -opened;
const ratio = unary ** 2 / (opened || 1) ?? 0.5;
module.exports = { Ledger, describe, classify, report, ratio, LIMIT };
"""
