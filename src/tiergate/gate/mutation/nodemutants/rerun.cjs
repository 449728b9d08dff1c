// A test run again: its suites' hooks, its function and subtests, with a stand-in context of its own.

"use strict";

module.exports = { rerun };

const { definedAgain } = require("./tests.cjs");
const { collector, evaluateTestFile, testArguments } = require("./reload.cjs");

// A test run again: the test file loaded anew (the run's mutant active: what its top computes, the
// mutant's), its suites' `before` hooks, outermost first, its suites' beforeEach hooks, its function, the
// subtests it started (each run within it), its suites' afterEach then `after` hooks (these whatever came
// before), each as node:test calls them (a callback when it takes two arguments), with a context of its
// own. What is synchronous runs at once, within the caller's time limit.
function rerun(test, run) {
  const collected = collector();
  evaluateTestFile(collected.fake);
  const found = definedAgain(test.kept, collected);
  if (!found || collected.async) {
    run.cannot = "the test file loaded again";
    throw new CannotRunAgain(`${test.kept.id} not found again`);
  }
  const { fn, suite } = found;
  const chain = [];
  for (let at = suite; at; at = at.parent) chain.unshift(at);
  const context = stubContext(test.kept.id, run);
  run.context = context;
  // [hook, its context]: a suite's for `before` and `after`, the test's for the others.
  const hooks = (which, suites, own) =>
    suites.flatMap((one) => one.hooks[which].map((hook) => [hook, own || one.context]));
  const reversed = [...chain].reverse();
  const first = [...hooks("before", chain), ...hooks("beforeEach", chain, context)];
  const last = [...hooks("afterEach", reversed, context), ...hooks("after", reversed)];
  const after = (failed) =>
    then(
      () => sequence(last, 0),
      (failedAfter) => {
        context.done();
        const failure = failed || failedAfter;
        if (failure) throw failure.error;
      },
    );
  return then(
    () => sequence([...first, [fn, context]], 0),
    (failed) => then(() => subtestsEnded(run, 0), () => after(failed || planFailure(context))),
  );
}

// The subtests begun from `from` on, ended (those they begin too).
function subtestsEnded(run, from) {
  const count = run.subtests.length;
  if (count === from) return undefined;
  return Promise.all(run.subtests.slice(from)).then(() => subtestsEnded(run, count));
}

// `next(failure or null)` once `first()` ended, at once when it returned no promise; a failure is
// `{ error }`, whatever was thrown (`undefined` too: a test that throws it fails).
function then(first, next) {
  let result;
  try {
    result = first();
  } catch (error) {
    return next({ error });
  }
  if (result && typeof result.then === "function") {
    return result.then(
      () => next(null),
      (error) => next({ error }),
    );
  }
  return next(null);
}

// Each [function, its context] of `calls` from `from` on, in turn.
function sequence(calls, from) {
  for (let at = from; at < calls.length; at++) {
    const result = call(...calls[at]);
    if (result && typeof result.then === "function") return result.then(() => sequence(calls, at + 1));
  }
  return undefined;
}

function call(fn, context) {
  if (typeof fn !== "function") throw new Error("not a function");
  if (fn.length !== 2) return Reflect.apply(fn, context, [context]);
  return new Promise((resolve, reject) => {
    const returned = Reflect.apply(fn, context, [context, (error) => (error ? reject(error) : resolve())]);
    if (returned && typeof returned.then === "function") reject(new Error("a callback and a promise"));
  });
}

class CannotRunAgain extends Error {}

// The test's context (`t`) for a run again: what only reads or mocks is there, and a subtest runs within
// its test (a failure of it fails the test); what would add to the run's report (hooks, skip, todo) makes
// the test one that cannot run again. `t.plan(n)` as node:test keeps it: each call of `t.assert`'s
// functions and each subtest begun counts one (a subtest's own assertions count for it), and a test whose
// count is not `n` when it ends fails (`planFailure`; the count kept out of the test's sight, in `PLANS`).
function stubContext(id, run) {
  const controller = new AbortController();
  let tracker = null;
  let assertions = null;
  const plan = { expected: null, actual: 0 };
  const own = {
    name: id.slice(id.lastIndexOf(" > ") + 3),
    fullName: id,
    signal: controller.signal,
    error: null,
    passed: false,
    filePath: process.argv[1],
    diagnostic() {},
    runOnly() {},
    test: (...args) => ((plan.actual += 1), subtest(id, run, args)),
    plan(count) {
      if (!Number.isInteger(count) || count < 0) throw new TypeError(`t.plan(${String(count)})`);
      plan.expected = count;
    },
    get assert() {
      assertions = assertions || countingAssert(plan);
      return assertions;
    },
    get mock() {
      tracker = tracker || new (require("node:test").mock.constructor)();
      return tracker;
    },
    done() {
      if (controller.signal.aborted) return;
      controller.abort();
      if (tracker) tracker.reset();
    },
  };
  const context = new Proxy(own, {
    get(target, key) {
      if (typeof key === "symbol" || key === "then" || key in target) return target[key];
      run.cannot = `t.${key}`;
      throw new CannotRunAgain(`t.${key} in a run again`);
    },
  });
  PLANS.set(context, plan);
  return context;
}

// node:assert's functions, each call counted for `plan` (a failing one too, as node:test counts it).
function countingAssert(plan) {
  const assert = require("node:assert");
  const counting = {};
  for (const [key, value] of Object.entries(assert)) {
    if (typeof value !== "function" || /^[A-Z]/.test(key)) continue;
    counting[key] = (...args) => ((plan.actual += 1), Reflect.apply(value, assert, args));
  }
  return counting;
}

const PLANS = new WeakMap(); // a stand-in context -> its plan: { expected, actual }

function planFailure(context) {
  const plan = PLANS.get(context);
  if (plan.expected === null || plan.expected === plan.actual) return null;
  return { error: new Error(`plan expected ${plan.expected} assertions but received ${plan.actual}`) };
}

// `t.test(...)` in a run again: the subtest run at once; its promise resolves whatever became of it.
function subtest(id, run, args) {
  const [name, options, fn] = testArguments(args);
  if (options.skip || options.todo || typeof fn !== "function") return Promise.resolve();
  const context = stubContext(`${id} > ${name}`, run);
  const ended = then(
    () => call(fn, context),
    (ended) => {
      context.done();
      const failed = ended || planFailure(context);
      if (failed && !run.error) run.error = failed.error || new Error(`failed (${String(failed.error)})`);
    },
  );
  const settled = Promise.resolve(ended);
  run.subtests.push(settled);
  return settled;
}

Object.assign(module.exports, { CannotRunAgain });
