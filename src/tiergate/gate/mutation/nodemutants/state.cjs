// What the preload's parts share: the limits, the words of its reports, and the process's one `state`.

"use strict";

// A run that does not end in ten times its test's own time (at least 2 s) kills its mutant.
const LEAST_LIMIT_MS = 2000;
// How long past a run's limit the watchdog thread waits before it ends the process (see Watchdog).
const GRACE_MS = 1000;
// Why a mutant is left undecided once another survived (`Budget.enough`): `step.NOT_NEEDED`.
const NOT_NEEDED = "not needed: a mutant survived already";
const KILLED_ELSEWHERE = "killed in another test file's process";
const PARAMS = ["exports", "require", "module", "__filename", "__dirname"];
// What comes before a module's code in the script compiled of it (see compileSource): a place in the
// code is this many characters further in the script.
const MAKER_HEAD = `(function () { return function (${PARAMS.join(", ")}) {\n`;
// The timers as Node gives them: a test run again may install fake ones (`t.mock.timers`) and, when it
// does not end, leave them in.
const timers = { setTimeout, clearTimeout, setImmediate, clearImmediate };
const RUN_SLOT = Symbol.for("tiergate.mutants.run");
const END_SLOT = Symbol.for("tiergate.mutants.end");

const state = {
  plan: null,
  files: new Map(), // real path -> the planned file: its source, its dispatcher, its compiled mutants
  names: new Set(), // the planned files' base names
  main: null, // the test file as Node compiled it: { filename, content }
  kept: [], // the tests that passed: { path, nth (the nth of its path to begin), id, ms }
  begun: new Map(), // a test's path -> how many tests of that path began
  failed: false, // a test did not pass: no mutant runs
  pending: 0, // tests begun and not yet ended
  phase: "", // "", "running", "done"
  report: null,
  current: null, // the run in progress
  touched: null, // the indexes of the planned files the run in progress called into
  root: process.cwd(), // the project: the tests' helpers are its files outside node_modules
  loadMs: 0, // how long the test file took to load again
  created: new Set(), // the paths this process made (see watchCreated)
  saved: new Map(), // path -> what it held when this process first changed it (see saveFirst)
  savedBytes: 0, // the bytes kept in `saved`, at most SAVE_LIMIT
  unsaved: "", // a path this process changed that was too big to keep: its mutants are left undecided
  putting: false, // the files being put back: what that does is not noted
  own: [], // the folders of tiergate's own files, never taken away: "/a/b/"
  firstGlobals: new Set(Reflect.ownKeys(globalThis)), // globalThis's keys as the preload began
  globalsBy: [], // [file name, key]: the globals each module added as it loaded in the tests' own run
  globals: null, // the globals that stay for the runs again (see removeGlobals)
  unreached: new Set(), // the mutants whose place the tests' own run never ran (see unreached)
};

module.exports = {
  END_SLOT,
  GRACE_MS,
  KILLED_ELSEWHERE,
  LEAST_LIMIT_MS,
  MAKER_HEAD,
  NOT_NEEDED,
  PARAMS,
  RUN_SLOT,
  state,
  timers,
};
