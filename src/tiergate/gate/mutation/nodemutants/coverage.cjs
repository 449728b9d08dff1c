// Coverage: the tests' own run's written first, the mutants' runs' read to tell whether a change ran.

"use strict";

module.exports = { flushCoverage, phaseCoverage, reached, unreached };

const { MAKER_HEAD, state } = require("./state.cjs");

// Coverage: the original run's, written before any mutant runs; then the mutants' runs', read here to

// The coverage this process counted since it was last taken, taken now: the names of the files V8 wrote
// for it in `folder` (NODE_V8_COVERAGE).
function takeCoverage(folder) {
  const fs = require("node:fs");
  const before = new Set(fs.readdirSync(folder));
  require("node:v8").takeCoverage();
  const mine = `coverage-${process.pid}-`;
  return fs.readdirSync(folder).filter((name) => !before.has(name) && name.startsWith(mine));
}

// The tests' own run's coverage written for the gate, and read back: each planned file's scripts by its
// path (a test may load a file anew), or null when none was measured.
function flushCoverage() {
  const folder = process.env.NODE_V8_COVERAGE;
  if (!folder) return null;
  const fs = require("node:fs");
  const path = require("node:path");
  const { pathToFileURL } = require("node:url");
  const byUrl = new Map([...state.files.values()].map((file) => [pathToFileURL(file.file).href, file.file]));
  try {
    const written = takeCoverage(folder);
    const scripts = new Map();
    for (const name of written) {
      for (const script of JSON.parse(fs.readFileSync(path.join(folder, name), "utf8")).result) {
        const file = byUrl.get(script.url);
        if (file !== undefined) scripts.set(file, [...(scripts.get(file) || []), script]);
      }
    }
    return written.length > 0 ? scripts : null;
  } catch {
    return null;
  }
}

// Whether the tests' own run here never ran the mutant's place (`own`: flushCoverage's). Then no test of
// this file can tell it from the original: running up to its place, the code does the same either way.
// Only for a file loaded once: the coverage of an instance no longer held (a test that loaded the file
// anew) is gone with it.
function unreached(own, file, mutant) {
  if (own === null || file.loads !== 1) return false;
  const scripts = own.get(file.file);
  return scripts !== undefined && !scripts.some((script) => ran(script, mutant.start));
}

function phaseCoverage() {
  const folder = process.env.NODE_V8_COVERAGE;
  if (!folder || state.phaseScripts) return state.phaseScripts || null;
  const fs = require("node:fs");
  const path = require("node:path");
  const scripts = [];
  try {
    for (const name of takeCoverage(folder)) {
      // Out of the gate's sight at once (it reads coverage-*.json), in the same folder: the check's
      // folders can be mounts of their own, between which a file cannot be renamed.
      const moved = path.join(folder, `tiergate-phase-${name}`);
      fs.renameSync(path.join(folder, name), moved);
      scripts.push(...JSON.parse(fs.readFileSync(moved, "utf8")).result);
      fs.unlinkSync(moved);
    }
  } catch {
    return null;
  }
  state.phaseScripts = scripts;
  return scripts;
}

// A survivor counts only when its change ran: the innermost V8 block holding its place ran at least once.
function reached(report) {
  const byUrl = new Map();
  for (const script of phaseCoverage() || []) byUrl.set(script.url, script);
  for (const mutant of state.plan.mutants) {
    const found = report.fates[mutant.id];
    if (state.unreached.has(mutant.id) || !found || found[0] !== "survived") continue;
    if (!ran(byUrl.get(`tiergate-mutant:${mutant.id}`), MAKER_HEAD.length + mutant.start)) {
      report.fates[mutant.id] = ["undecided", "its change did not run in the tests run again"];
    }
  }
}

function ran(script, offset) {
  if (!script) return false;
  let best = null;
  for (const fn of script.functions) {
    for (const range of fn.ranges) {
      const holds = range.startOffset <= offset && offset < range.endOffset;
      const size = range.endOffset - range.startOffset;
      if (holds && (!best || size <= best.endOffset - best.startOffset)) best = range;
    }
  }
  return best !== null && best.count > 0;
}
