// The mutants' runs: each mutant's fate from the tests run again, and each line's copy that
// behaves the same, once node:test has reported.

"use strict";

module.exports = { onBeforeExit };

const { state, timers } = require("./state.cjs");
const { finish, newReport } = require("./report.cjs");
const { unsaved } = require("./restore.cjs");
const { flushCoverage, reached, unreached } = require("./coverage.cjs");
const ledger = require("./ledger.cjs");
const { compile, mutated } = require("./instances.cjs");
const { loadAgain } = require("./reload.cjs");
const guarding = require("./guard.cjs");

function onBeforeExit() {
  if (state.phase === "") {
    state.phase = "running";
    const failed = (error) => finish(`the mutation step failed (${error && error.name})`);
    timers.setImmediate(() => mutate().catch(failed));
  } else if (state.phase === "running") {
    finish("a mutant's run never ended"); // nothing is left to wait for, yet a run never settled
  }
}

function whyNot() {
  const passed = !state.failed && state.pending === 0 && (process.exitCode || 0) === 0;
  if (!passed) return "the tests did not all pass";
  if (state.testClass !== "patched") return "node:test's tests were not found in the process";
  if (state.main === null) return "the test file is not CommonJS: it cannot be loaded again";
  try {
    require("node:inspector"); // the watchdog ends a run that never yields through it
  } catch {
    return "this Node has no inspector";
  }
  return "";
}

async function mutate() {
  const files = [...state.files.values()].filter((file) => file.module);
  const off = whyNot() || (files.length === 0 ? "no planned file was loaded" : "");
  if (off) return finish("", off);
  const report = newReport(files);
  const own = flushCoverage();
  const rerun = new Rerun();
  try {
    const off = await mutants(report, rerun, own);
    if (off) return finish("", off);
  } finally {
    rerun.close();
  }
  reached(report);
  return finish();
}

// The runs' guard and the test file loaded again, both made once a mutant is to run: a process that has
// none to run (each killed or let live elsewhere) spares them.
class Rerun {
  constructor() {
    this.guard = null;
    this.tests = null;
  }

  // The tests found again (`loadAgain`), or why none can run.
  async ready() {
    if (!this.guard) {
      this.guard = new guarding.Guard();
      if (!this.guard.watchdog.worker) return "no watchdog thread could start";
    }
    this.tests = this.tests || (await loadAgain(this.guard));
    return this.tests;
  }

  close() {
    if (this.guard) this.guard.close();
  }
}

async function mutants(report, rerun, own) {
  const budget = new ledger.Budget(state.plan);
  const elsewhere = new ledger.Elsewhere(state.plan);
  for (const mutant of elsewhere.order(state.plan.mutants)) {
    const file = state.files.get(state.plan.files[mutant.file].file);
    if (!file.module) continue; // not loaded here: this process did not run it
    if (unreached(own, file, mutant)) {
      report.fates[mutant.id] = ["survived", ""]; // the tests here never ran its place: they cannot tell
      state.unreached.add(mutant.id);
      // Only where its line ran (its copy's place did) is this file one the gate asks about the mutant.
      if (!unreached(own, file, state.plan.sentinels[mutant.sentinel])) {
        if (elsewhere.lived(mutant)) budget.survived(mutant.id, 0); // a survivor there too, so far
        elsewhere.note(mutant.id, "survived");
      }
      continue;
    }
    elsewhere.read();
    const why =
      file.why || unsaved() || budget.over() || elsewhere.killedThere(mutant) || budget.enough(elsewhere);
    const found = why ? null : await rerun.ready();
    if (typeof found === "string") return found;
    const decided = why ? ["undecided", why] : await fate(file, mutant, found, rerun.guard, budget);
    // A file too big to keep changed in its runs: they may have seen it as an earlier run left it.
    report.fates[mutant.id] = unsaved() ? ["undecided", unsaved()] : decided;
    const outcome = report.fates[mutant.id][0];
    if (outcome === "survived") budget.survived(mutant.id, elsewhere.lived(mutant) ? 0 : 1);
    if (!why) elsewhere.note(mutant.id, outcome);
  }
  return "";
}

// Whether a test kills the mutant: killed, survived, or undecided (and why). The tests run again with the
// mutant in, those that killed its file's other mutants first, then the quickest; those that did not call
// into its module under another of its mutants are left out; a survivor needs every other one to pass,
// and every test that passed to have been found again (`found.unsure`).
async function fate(file, mutant, found, guard, budget) {
  const compiled = compile(file, mutant.id, mutated(file, mutant));
  if (typeof compiled === "string") return ["undecided", compiled];
  const tests = found.runnable.filter((test) => !file.untouchedBy.has(test));
  tests.sort((a, b) => rank(file, a) - rank(file, b) || a.kept.ms - b.kept.ms);
  let unsure = found.unsure;
  for (const test of tests) {
    const why = budget.over();
    if (why) return ["undecided", why];
    if (test.cannot || file.setAside.has(test) || !(await copyFirst(file, mutant, test, guard, budget))) {
      unsure = `${test.kept.id} cannot run again, or fails on a copy of the file that behaves the same`;
      continue;
    }
    state.inFlight = { mutant: mutant.id, test: test.kept.id };
    const outcome = await guard.attempt(test, file, compiled);
    budget.spent();
    if (outcome === "cannot") unsure = `${test.kept.id} cannot run again`;
    if (outcome !== "failed") continue;
    if (await killsCount(file, mutant, test, guard)) {
      if (!file.killers.includes(test)) file.killers.push(test);
      return ["killed", test.kept.id];
    }
    unsure = `${test.kept.id} fails on a copy of the file that behaves the same`;
  }
  return unsure ? ["undecided", unsure] : ["survived", ""];
}

function rank(file, test) {
  const at = file.killers.indexOf(test);
  return at === -1 ? file.killers.length : at;
}

// Each test's kills on a line are checked with the line's copy that behaves the same (its plain operands
// in parentheses: the same values, another source): the test must pass with it. When the copy runs is
// drawn for each (test, line) pair with crypto's randomness: before the test's first mutant run of the
// line, or right after its first kill there. A test that tells the copy's run by its place in the order
// (a count of its runs kept where nothing clears it, on `process`) guesses right with probability 1/2 for
// each pair, and every mutant of each line must die for the line to count: a wrong guess fails the copy
// (the test set aside, its kills in the file said nothing) or passes a mutant (it survives).
// `file.checks`: sentinel -> test -> "before", "after" (not yet run) or "passed".
function checkOf(file, mutant, test) {
  const checks = file.checks.get(mutant.sentinel) || new Map();
  file.checks.set(mutant.sentinel, checks);
  if (!checks.has(test)) checks.set(test, require("node:crypto").randomInt(2) === 0 ? "before" : "after");
  return checks;
}

// Before the test's first run of a mutant of the line, when so drawn: whether the test may run it.
async function copyFirst(file, mutant, test, guard, budget) {
  if (checkOf(file, mutant, test).get(test) !== "before") return true;
  const passed = await runCopy(file, mutant, test, guard);
  budget.spent();
  return passed;
}

// A test's kill of a mutant counts when the test passed (or now passes) its line's copy.
async function killsCount(file, mutant, test, guard) {
  if (checkOf(file, mutant, test).get(test) === "passed") return true;
  return runCopy(file, mutant, test, guard);
}

async function runCopy(file, mutant, test, guard) {
  const sentinel = state.plan.sentinels[mutant.sentinel];
  const copy = compile(file, `sentinel-${mutant.sentinel}`, mutated(file, sentinel));
  state.inFlight = { sentinel: mutant.sentinel, test: test.kept.id };
  const outcome = typeof copy === "string" ? "failed" : await guard.attempt(test, file, copy);
  if (outcome === "passed") {
    file.checks.get(mutant.sentinel).set(test, "passed");
    return true;
  }
  file.setAside.add(test);
  return false;
}
