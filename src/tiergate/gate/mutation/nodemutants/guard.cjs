// The runs' surroundings: the guard kept for the whole step, and the watchdog thread that ends a run
// that never yields.

"use strict";

const { END_SLOT, GRACE_MS, LEAST_LIMIT_MS, RUN_SLOT, state, timers } = require("./state.cjs");
const { finish } = require("./report.cjs");
const { putFilesBack, removeGlobals } = require("./restore.cjs");
const { phaseCoverage } = require("./coverage.cjs");
const { freshOriginals, instance } = require("./instances.cjs");
const rerunning = require("./rerun.cjs"); // its class complete once it has loaded
const { rerun } = rerunning;

// Kept for the whole step: the console and warnings silenced, process.exit() a failure, an uncaught error
// or rejection a failure of the run it came from (node:test's own handlers are gone by now), the exit
// code put back after each run, and what each run scheduled and left (timers) cleared.
class Guard {
  constructor() {
    const asyncHooks = require("node:async_hooks");
    this.saved = { exit: process.exit, exitCode: process.exitCode, emitWarning: process.emitWarning };
    this.console = {};
    for (const name of ["log", "info", "warn", "error", "debug", "trace", "dir", "table"]) {
      this.console[name] = console[name];
      console[name] = () => {};
    }
    process.emitWarning = () => {};
    process.exit = (code) => {
      throw this.fail(new Error(`process.exit(${code}) in a mutant's run`));
    };
    this.onError = (error) => this.fail(error);
    process.on("uncaughtException", this.onError);
    process.on("unhandledRejection", this.onError);
    this.runs = new asyncHooks.AsyncLocalStorage();
    this.scheduled = { timeouts: new Set(), immediates: new Set() };
    const init = (_id, type, _trigger, resource) => this.track(type, resource);
    this.tracker = asyncHooks.createHook({ init });
    this.script = new (require("node:vm").Script)(`globalThis[Symbol.for("tiergate.mutants.run")]()`);
    this.watchdog = new Watchdog(this);
    this.closeTests();
  }

  track(type, resource) {
    if (type === "Timeout") this.scheduled.timeouts.add(resource);
    else if (type === "Immediate") this.scheduled.immediates.add(resource);
  }

  fail(error) {
    const run = this.runs.getStore() || state.current;
    if (run && !run.error) run.error = error || new Error(`failed (${String(error)})`);
    return error;
  }

  // The test run again with `compiled`'s fresh instance active: "passed", "failed" (a failure, a time
  // out) or "cannot" (it uses what a run again cannot give). A test that passes without calling into the
  // module is noted: its other mutants' runs leave it out.
  async attempt(test, file, compiled) {
    const outcome = await this.body(
      (run) => {
        state.touched = new Set();
        freshOriginals(file);
        file.active = instance(file, compiled);
        return rerun(test, run);
      },
      Math.max(LEAST_LIMIT_MS, 10 * (test.kept.ms + state.loadMs)),
    );
    if (outcome === "cannot") test.cannot = true;
    if (outcome === "passed" && !(state.touched && state.touched.has(file.index))) file.untouchedBy.add(test);
    state.touched = null;
    return outcome;
  }

  // `fn(run)` in a task of its own (one the watchdog ends takes nothing else with it), within `limit`
  // milliseconds: "passed", "failed" or "cannot"; every planned file's original active again after.
  async body(fn, limit) {
    const ms = Math.ceil(limit); // (vm takes whole milliseconds)
    putFilesBack(); // what the tests' own run and each run before made or changed
    removeGlobals();
    const run = { error: null, cannot: "", context: null, subtests: [] };
    state.current = run;
    let timer;
    const late = new Promise((resolve) => {
      timer = timers.setTimeout(() => resolve("failed"), ms);
    });
    const done = new Promise((resolve) => {
      const start = () => this.start(fn, run, ms);
      timers.setImmediate(() => this.runs.run(run, start).then(resolve));
    });
    this.watchdog.arm(ms + GRACE_MS);
    const outcome = await Promise.race([done, late]);
    this.watchdog.disarm();
    timers.clearTimeout(timer);
    this.after(run);
    return outcome;
  }

  async start(fn, run, ms) {
    this.tracker.enable();
    try {
      // Its synchronous part under vm's own time limit: a loop that never ends is stopped cleanly.
      globalThis[RUN_SLOT] = () => fn(run);
      let pending;
      try {
        pending = this.script.runInThisContext({ timeout: ms, displayErrors: false });
      } finally {
        globalThis[RUN_SLOT] = undefined;
      }
      await pending;
    } catch (error) {
      if (!run.cannot) this.fail(error);
    }
    if (run.cannot) return "cannot";
    if ((process.exitCode || 0) !== (this.saved.exitCode || 0)) this.fail(new Error("it set the exit code"));
    return run.error ? "failed" : "passed";
  }

  after(run) {
    this.tracker.disable();
    if (run.context) run.context.done(); // a run that did not end: its mocks put back all the same
    for (const timer of this.scheduled.timeouts) timers.clearTimeout(timer);
    for (const immediate of this.scheduled.immediates) timers.clearImmediate(immediate);
    this.scheduled.timeouts.clear();
    this.scheduled.immediates.clear();
    for (const planned of state.files.values()) planned.active = null;
    if (state.current === run) state.current = null;
    process.exitCode = this.saved.exitCode;
  }

  // node:test's own run is over: a test or hook made now (by code the test file calls, holding node:test
  // itself) would be added to a run already reported. It makes the run in progress one that cannot run
  // again instead.
  closeTests() {
    const proto = state.testProto;
    this.saved.tests = { createSubtest: proto.createSubtest, createHook: proto.createHook };
    const refuse = () => {
      const run = this.runs.getStore() || state.current;
      if (run) run.cannot = "node:test itself";
      throw new rerunning.CannotRunAgain("node:test itself in a run again");
    };
    proto.createSubtest = refuse;
    proto.createHook = refuse;
  }

  close() {
    this.watchdog.close();
    putFilesBack();
    Object.assign(state.testProto, this.saved.tests);
    for (const [name, method] of Object.entries(this.console)) console[name] = method;
    process.exit = this.saved.exit;
    process.emitWarning = this.saved.emitWarning;
    process.exitCode = this.saved.exitCode;
    // The error handlers stay: what a mutant's code scheduled and no run cleared fails nothing from here.
    // A handle a mutant's code left open (a server) would hold the process: it ends as it was to end.
    timers.setTimeout(() => process.exit(), 2000).unref();
  }

  // The watchdog's last resort, called on this thread through the inspector while a run's code holds it
  // (a chain of promises that never yields, which no timer here can stop): what is known is written, the
  // run's mutant left undecided, and the process ends as its tests did.
  end() {
    const flight = state.inFlight || {};
    if (flight.mutant !== undefined && state.report) {
      state.report.fates[flight.mutant] = ["undecided", `its run by ${flight.test} never yielded`];
    }
    try {
      phaseCoverage();
    } catch {}
    finish("a mutant's run never yielded");
    process.exitCode = this.saved.exitCode;
    this.saved.exit.call(process);
  }
}

// A thread that waits out each run's limit (and a grace) and, when the run still holds the main thread,
// asks the inspector to call `Guard.end` there: ending the code that holds it instead (terminating it)
// leaves Node's own bookkeeping of the interrupted callback broken. Shared: [sequence, armed, deadline].
const WATCHDOG = `
const { workerData } = require("node:worker_threads");
const session = new (require("node:inspector").Session)();
session.connectToMainThread();
const shared = workerData.shared;
for (;;) {
  const seq = Atomics.load(shared, 0);
  if (Atomics.load(shared, 1) !== 1) { Atomics.wait(shared, 0, seq); continue; }
  const wait = Atomics.load(shared, 2) - (Date.now() - workerData.base);
  if (wait > 0) { Atomics.wait(shared, 0, seq, wait); continue; }
  if (Atomics.compareExchange(shared, 1, 1, 2) === 1) {
    session.post("Runtime.evaluate", { expression: 'globalThis[Symbol.for("tiergate.mutants.end")]()' });
  }
  // A main thread blocked in native code waiting on a child (spawnSync) takes no inspector call: while
  // the end is still due, this process's children are ended, the blocking call returns and the end runs.
  while (Atomics.load(shared, 1) === 2 && Atomics.wait(shared, 0, seq, workerData.grace) === "timed-out") {
    endChildren(process.pid);
  }
  Atomics.wait(shared, 0, seq);
}

function endChildren(pid) {
  const fs = require("node:fs");
  let tasks = [];
  try {
    tasks = fs.readdirSync(\`/proc/\${pid}/task\`);
  } catch {}
  for (const task of tasks) {
    let children = [];
    try {
      children = fs.readFileSync(\`/proc/\${pid}/task/\${task}/children\`, "utf8").split(" ").filter(Boolean);
    } catch {}
    for (const child of children) {
      endChildren(Number(child));
      try {
        process.kill(Number(child), "SIGKILL");
      } catch {}
    }
  }
}
`;

class Watchdog {
  constructor(guard) {
    this.shared = new Int32Array(new SharedArrayBuffer(12));
    this.base = Date.now();
    globalThis[END_SLOT] = () => guard.end();
    try {
      const { Worker } = require("node:worker_threads");
      const workerData = { shared: this.shared, base: this.base, grace: GRACE_MS };
      // No coverage of its own (NODE_V8_COVERAGE in its environment): it runs none of the tests' code, and
      // would pay for a collection as it ends and leave a file for the gate to read.
      const env = { ...process.env };
      delete env.NODE_V8_COVERAGE;
      this.worker = new Worker(WATCHDOG, { eval: true, workerData, env, stdout: true, stderr: true });
      this.worker.on("error", () => {});
      this.worker.unref();
    } catch {
      this.worker = null;
    }
  }

  arm(ms) {
    Atomics.store(this.shared, 2, Date.now() - this.base + ms);
    Atomics.store(this.shared, 1, 1);
    this.bump();
  }

  disarm() {
    Atomics.store(this.shared, 1, 0);
    this.bump();
  }

  bump() {
    Atomics.add(this.shared, 0, 1);
    Atomics.notify(this.shared, 0);
  }

  close() {
    globalThis[END_SLOT] = undefined;
    // Not waited for: a thread still starting takes tens of milliseconds to end, and the process may end
    // before it (it does not hold the process).
    if (this.worker) this.worker.terminate().catch(() => {});
  }
}

Object.assign(module.exports, { Guard });
