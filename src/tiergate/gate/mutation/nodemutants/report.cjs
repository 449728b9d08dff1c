// The process's report of its mutants' fates, written to the plan's folder.

"use strict";

module.exports = { finish, newReport };

const { state } = require("./state.cjs");
const { realpath } = require("./tests.cjs");

function newReport(files) {
  const report = { test_file: realpath(process.argv[1] || ""), fates: {}, started: performance.now() };
  for (const file of files) {
    for (const mutant of file.mutants) report.fates[mutant.id] = ["undecided", "not run"];
  }
  state.report = report;
  return report;
}

function finish(incomplete = "", off = "") {
  if (state.phase === "done") return;
  state.phase = "done";
  const report = state.report || { test_file: realpath(process.argv[1] || ""), fates: {} };
  if (report.started !== undefined) report.seconds = (performance.now() - report.started) / 1000;
  delete report.started;
  report.incomplete = incomplete;
  report.off = off;
  report.key = state.key;
  try {
    const fs = require("node:fs");
    const name = require("node:path").join(state.plan.out, `node-${process.pid}-${Date.now()}.json`);
    fs.writeFileSync(`${name}.part`, JSON.stringify(report));
    fs.renameSync(`${name}.part`, name);
  } catch {}
}
