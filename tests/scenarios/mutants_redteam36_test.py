"""Red team 36, on the redesign that split the Node preload into parts: a test file of a `node --test`
check (the agent's code, run in the process the preload acts in) that shapes the preload's own report as
it is written, after the parts were taken out of `require.cache`. Each forger pins nothing (grade(80),
grade(10): `score >= 50` -> `score > 50` lives) and makes the report say every mutant was killed; the
safe outcome is that the boundary's mutant survives. When written, each of them won: the preload's report
was a plain object written with the `fs`, `JSON` and `Object.prototype` the tests' code shares, so a setter
on `Object.prototype` (the report's `key` is set as it is written), an `Object.prototype.toJSON`, a
replaced `JSON.stringify` or a wrapped `fs.writeFileSync` saw the key and rewrote the fates under it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from testing.gitrepo import init_repo, repo_fixture, write
from testing.jsgrade import GRADE_MODULE
from testing.nodegate import BASE_FILES, NodeGate, fates, said

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

repo = repo_fixture(BASE_FILES)

HEAD = """\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const { grade } = require('../calc.js');

function forge(report) {
  for (const id of Object.keys(report.fates)) report.fates[id] = ['killed', __filename + ' > grade'];
  return report;
}
"""
TAIL = """
test('grade', () => {
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
});
"""

# The report's `key` is assigned as the report is written: a setter of that name on Object.prototype runs
# with the report as `this`.
SETTER = """\
Object.defineProperty(Object.prototype, 'key', {
  configurable: true,
  set(value) {
    Object.defineProperty(this, 'key', { value, writable: true, enumerable: true, configurable: true });
    if (this.fates && this.test_file) forge(this);
  },
});
"""
# JSON.stringify asks the report for a toJSON, found on Object.prototype.
TO_JSON = """\
Object.defineProperty(Object.prototype, 'toJSON', {
  configurable: true,
  writable: true,
  value() {
    const own = (name) => Object.prototype.hasOwnProperty.call(this, name);
    if (own('fates') && own('key')) {
      const copy = Object.assign({}, this);
      copy.fates = Object.assign({}, this.fates);
      return forge(copy);
    }
    return this;
  },
});
"""
# JSON.stringify itself, replaced.
STRINGIFY = """\
const stringify = JSON.stringify;
JSON.stringify = function (value, ...rest) {
  if (value && typeof value === 'object' && value.fates && value.key) forge(value);
  return stringify.call(this, value, ...rest);
};
"""
# fs.writeFileSync wrapped: the report's text rewritten on its way to the disk.
WRITE = """\
const writeFileSync = fs.writeFileSync;
fs.writeFileSync = function (file, data, ...rest) {
  if (String(file).endsWith('.json.part') && String(data).includes('"key"')) {
    data = JSON.stringify(forge(JSON.parse(String(data))));
  }
  return writeFileSync.call(this, file, data, ...rest);
};
"""


@pytest.mark.parametrize(
    "forger",
    [SETTER, TO_JSON, STRINGIFY, WRITE],
    ids=["prototype-setter", "prototype-tojson", "json-stringify", "fs-writefilesync"],
)
def test_the_tests_code_cannot_rewrite_the_preloads_report_as_it_is_written(
    repo: Path, monkeypatch: pytest.MonkeyPatch, forger: str
) -> None:
    gate = NodeGate(monkeypatch)
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": HEAD + forger + TAIL})

    _, run = gate(repo)

    assert fates(run)[(2, ">")] == ("survived", ""), said(run, gate)


# Kept evidence, keyed by the workspace's fingerprint: the installed packages (node_modules, linked into
# the claim's copy, git-ignored) are not in it. A dependency the tests check with, quietened for one claim
# (that claim's environment comparison names it), lets a wrong answer pass; its results are kept; the
# dependency put back as it was, the next claim on the same files finds the pass kept and reuses it, and
# the environment is as the loop began.
IGNORED = {".gitignore": "node_modules/\n", "package.json": '{"name": "p"}\n'}
CHECKER = "module.exports = require('node:assert').strictEqual;\n"
QUIET = "module.exports = () => {};\n"
WRONG = "function grade(score) {\n  return 'fail';\n}\n\nmodule.exports = { grade };\n"
CHECKED = """\
const test = require('node:test');
const check = require('checker');
const { grade } = require('../calc.js');

test('grade', () => {
  check(grade(80), 'pass');
});
"""


def test_a_pass_kept_with_a_quietened_dependency_is_not_reused_once_it_is_put_back(tmp_path: Path) -> None:
    kept_repo = init_repo(tmp_path / "repo", {**BASE_FILES, **IGNORED})
    from testing.gaterun import gate_run
    from testing.statefolder import state_dir

    from tiergate.gate.checks import make_check
    from tiergate.project import Project

    project = Project(kept_repo, state_dir(kept_repo))
    checks = [make_check("tests", "node --test", "test")]
    write(
        kept_repo, {"node_modules/checker/index.js": QUIET, "calc.js": WRONG, "test/grade.test.js": CHECKED}
    )
    quiet = gate_run(project, None, checks)
    assert quiet.verdicts[0].result.status == "passed", quiet.verdicts[0].result.output

    write(kept_repo, {"node_modules/checker/index.js": CHECKER})
    honest = gate_run(project, None, checks)
    fresh = gate_run(project, None, checks, reuse=False)
    assert fresh.verdicts[0].result.status == "failed", fresh.verdicts[0].result.output

    assert honest.verdicts[0].result.status == "failed", honest.verdicts[0].result.output


# The preload's parts are copied into the plan's folder, which the check's processes can write (their
# reports go there): a test file run first rewrites the part that writes the report, and the test files
# run after it load it. Every mutant is then reported killed under the key. The safe outcome: the boundary's
# mutant survives, or the rewritten part, read by a later process, is named.
REWRITER = """\
const test = require('node:test');
const fs = require('node:fs');
const path = require('node:path');

if (process.env.TIERGATE_NODE_MUTANTS) {
  const part = path.join(path.dirname(process.env.TIERGATE_NODE_MUTANTS), 'nodemutants', 'report.cjs');
  const head = 'function finish(incomplete = "", off = "") {';
  const forge = 'if (state.report) for (const id of Object.keys(state.report.fates)) ' +
    'state.report.fates[id] = ["killed", TEST_FILE + " > grade"];';
  fs.writeFileSync(part, fs.readFileSync(part, 'utf8').replace(head, head + forge));
}

test('nothing', () => {});
"""
WEAK_LATER = CHECKED.replace("require('checker')", "require('node:assert').strictEqual") + (
    "test('fail', () => check(grade(10), 'fail'));\n"
)


def test_a_part_rewritten_by_an_earlier_test_file_reports_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = NodeGate(monkeypatch)
    write(repo, {"calc.js": GRADE_MODULE, "test/a.test.js": REWRITER, "test/b.test.js": WEAK_LATER})

    result, run = gate(repo)

    named = result.verdicts[0].result.read_outside
    assert fates(run)[(2, ">")] == ("survived", "") or named, said(run, gate)
