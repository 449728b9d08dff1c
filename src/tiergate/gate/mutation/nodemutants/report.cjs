// The process's report of its mutants' fates, written to the plan's folder.
//
// The report holds the plan's key, and the tests' code shares this process's built-ins and modules: what
// writes it is taken as this part loads, before any of the tests' code runs (the preload is loaded by
// `--require`), and its objects have no prototype. So a setter or a `toJSON` the tests put on
// `Object.prototype`, a `JSON.stringify`, `fs.writeFileSync` or `Module._load` they replaced, or a
// `process.argv` they rewrote, neither sees the key nor changes a fate as the report is written (red team 36,
// `tests/scenarios/mutants_redteam36_test.py`).

"use strict";

module.exports = { finish, newReport };

const { state } = require("./state.cjs");
const { realpath } = require("./tests.cjs");

const fs = require("node:fs");
const writeFileSync = fs.writeFileSync;
const renameSync = fs.renameSync;
const join = require("node:path").join;
const stringify = JSON.stringify;
const keysOf = Object.keys;
const create = Object.create;
const now = performance.now.bind(performance);
const dateNow = Date.now;
const isArray = Array.isArray;
const PID = process.pid;
const TEST_FILE = realpath(process.argv[1] || "");

function newReport(files) {
  const fates = create(null);
  for (const file of files) {
    for (const mutant of file.mutants) fates[mutant.id] = ["undecided", "not run"];
  }
  const report = create(null);
  report.test_file = TEST_FILE;
  report.fates = fates;
  report.started = now();
  state.report = report;
  return report;
}

function finish(incomplete = "", off = "") {
  if (state.phase === "done") return;
  state.phase = "done";
  const report = state.report;
  const fates = report ? report.fates : create(null);
  const seconds = report && typeof report.started === "number" ? (now() - report.started) / 1000 : 0;
  try {
    const text = written(fates, seconds, String(incomplete), String(off), String(state.key));
    const name = join(String(state.plan.out), `node-${PID}-${dateNow()}.json`);
    writeFileSync(`${name}.part`, text);
    renameSync(`${name}.part`, name);
  } catch {}
}

// The report's JSON, made of strings and numbers alone (no object of it is handed to code that could be
// the tests'): a fate that is not two strings is left undecided.
function written(fates, seconds, incomplete, off, key) {
  let body = "";
  const ids = keysOf(fates);
  for (let index = 0; index < ids.length; index += 1) {
    const id = ids[index];
    const found = fates[id];
    const fate = isArray(found) && found.length === 2 ? found : ["undecided", "not written"];
    const pair = `[${stringify(String(fate[0]))},${stringify(String(fate[1]))}]`;
    body += `${index ? "," : ""}${stringify(String(id))}:${pair}`;
  }
  return (
    `{"test_file":${stringify(TEST_FILE)},"fates":{${body}},"seconds":${stringify(Number(seconds) || 0)},` +
    `"incomplete":${stringify(incomplete)},"off":${stringify(off)},"key":${stringify(key)}}`
  );
}
