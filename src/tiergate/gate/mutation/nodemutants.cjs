// tiergate: the claim's JavaScript mutants, run in a `node --test` test file's own process once its tests
// have all run and been reported (written for one run).
//
// Loaded by `--require` through NODE_OPTIONS (`tiergate.gate.mutation.nodestep`), the plan named by
// TIERGATE_NODE_MUTANTS; never loaded by tiergate itself. It acts only in a process `node --test` started
// for a test file (NODE_TEST_CONTEXT), on its main thread, and only on the plan's CommonJS files. No
// dependencies; Node 18 or later. See docs/judging.md, "Mutants of the changed lines". Its parts, one concept
// each, are in `nodemutants/`, copied beside it, loaded once the process is one to act in (`loadParts`).
//
// While the tests run, nothing they run is changed or stood in for: the preload notes the source of the
// test file and of each planned file as Node compiles them, and each test that passes (its name, its time).
//
// Once node:test has reported every test and set the exit code (at `beforeExit`, after its own handler),
// each test that passed runs again for each mutant, fastest first, with a fresh instance of its module
// compiled from the mutated source (under a name of its own, its requires resolved from the original's
// place) active, until one fails (killed) or every one passes. Each run again loads the test file anew,
// its `node:test` a stand-in that collects each test's function and its suites' hooks, its requires of
// the planned files answered by a dispatcher: a Proxy that reads and calls through to the module's active
// instance (the original, or a mutant's), so that what the file took at its top (`const { grade } =
// require(...)`) follows it; its own helpers fresh instances, the files the process made and the
// globals the tests added taken away, and the files it changed or deleted put back as they were.
// A test that did not call into the module is not run again for its other mutants. A test's kills on a
// line count once it passed the line's copy that behaves the same, run at a drawn place among its runs
// (`checkOf`); a test that fails a copy is set aside, its kills in the file saying nothing.
//
// Why after the reports, and on loads of the test file of their own: a run again cannot change what a later
// test sees, nor can a stand-in change what the tests' own run does (an identity, a clone, a frozen
// object). Each process writes its fates to a JSON file of its own in the plan's folder; the gate merges
// them, and runs what this could not decide in a process of its own, as before: ES modules (the code or
// the test file), a test that cannot run again, a mutant whose change no run reached.

"use strict";

const PLAN_VARIABLE = "TIERGATE_NODE_MUTANTS";
const KEY_VARIABLE = "TIERGATE_NODE_MUTANTS_KEY";
// Each part loads the parts it calls into, and exports its functions before it does (a circle of parts
// then finds them); a class is reached through its part's exports, complete once it has loaded.
const PARTS = ["state", "report", "restore", "tests", "coverage", "ledger", "instances", "reload", "rerun"];
const LAST_PARTS = ["guard", "mutants"];

function main() {
  const planPath = process.env[PLAN_VARIABLE];
  if (!planPath || !String(process.env.NODE_TEST_CONTEXT || "").startsWith("child")) return;
  // The plan's key goes into the report, and out of the environment before any of the tests' code runs:
  // a report the tests' code wrote cannot hold it (but that it reads the process's memory).
  const key = process.env[KEY_VARIABLE];
  delete process.env[KEY_VARIABLE];
  try {
    if (!key || !require("node:worker_threads").isMainThread) return;
    const plan = JSON.parse(require("node:fs").readFileSync(planPath, "utf8"));
    begin(loadParts(), plan, key, planPath);
  } catch {
    // A plan not read, a part missing or a Node not as expected: the gate runs every mutant in a process of
    // its own.
  }
}

// The parts, loaded, then out of `require.cache` and this module's children: the tests' code cannot reach
// them, and through them the key and what the process noted, as it could not reach this file's own state.
function loadParts() {
  const parts = {};
  for (const name of [...PARTS, ...LAST_PARTS]) Object.assign(parts, require(`./nodemutants/${name}.cjs`));
  const folder = require("node:path").join(__dirname, "nodemutants");
  for (const id of Object.keys(require.cache)) {
    if (id.startsWith(folder + require("node:path").sep)) delete require.cache[id];
  }
  module.children.splice(0);
  return parts;
}

function begin(parts, plan, key, planPath) {
  const { state, basename, hookCompile, watchCreated, watchForTests, finish } = parts;
  state.plan = plan;
  state.key = key;
  plan.files.forEach((file, index) => {
    state.files.set(file.file, { ...file, index, mutants: [], module: null });
  });
  for (const mutant of plan.mutants) state.files.get(plan.files[mutant.file].file).mutants.push(mutant);
  // A file compiled under another path (a symlink) is resolved only when its name is a planned one's.
  state.names = new Set(plan.files.map((file) => basename(file.file)));
  hookCompile();
  watchCreated(planPath);
  watchForTests();
  process.on("exit", () => state.phase === "running" && finish("the tests' process ended first"));
}

main();
