"""The JavaScript `grade` module the node mutants' tests claim on (its boundary `score >= 50` on line 2),
tests that run it without pinning the boundary (`WEAK`), and test files that judge it by a memo of their
first run's answers (`memo_tests`: the attacks on the in-process mutants)."""

from __future__ import annotations

GRADE = "function grade(score) {\n  if (score >= 50) {\n    return 'pass';\n  }\n  return 'fail';\n}\n"
GRADE_MODULE = GRADE + "\nmodule.exports = { grade };\n"
WEAK = """\
const test = require('node:test');
const assert = require('node:assert');
const { grade } = require('../calc.js');

test('grade', () => {
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
});
"""
# Why the step is incomplete when a kill of the tests' own process did not repeat in one of the gate's.
REPEATED_NOT = "a kill in the tests' own process did not repeat in a process of its own"


def memo_tests(keep: str, *, top: str = "") -> str:
    """A test file whose one test compares grade's answers of 0..100 with those its first run kept: `keep`
    is a function body that gets `now` (the answers as a string of 'p' and 'f') and returns the kept ones
    (storing `now` when there are none); `top`, lines before it (its requires)."""
    return f"""\
const test = require('node:test');
const assert = require('node:assert');
const {{ grade }} = require('../calc.js');
{top}
function kept(now) {{
{keep}
}}

test('grade as first seen', () => {{
  const now = Array.from({{ length: 101 }}, (_, score) => String(grade(score))[0]).join('');
  assert.strictEqual(now, kept(now));
}});
"""
