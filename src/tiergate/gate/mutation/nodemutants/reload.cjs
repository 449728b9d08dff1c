// The test file loaded again: compiled anew, its `node:test` a stand-in that collects its tests, its
// requires answered by dispatchers and fresh helpers.

"use strict";

module.exports = { collector, evaluateTestFile, loadAgain, makeRequire, newModule, ownHelper, testArguments };

const { LEAST_LIMIT_MS, state } = require("./state.cjs");
const { definedAgain, planned } = require("./tests.cjs");
const { compileSource, dispatcherOf, runCompiled } = require("./instances.cjs");

// The test file compiled anew and run once more, the original code active, to find its tests again: each
// test that passed, found by its names (`runnable`); `unsure` when one is not found (a survivor here would
// not be one). A string: why not. Each run again loads the file anew in its turn (`rerun`).
async function loadAgain(guard) {
  const collected = collector();
  const started = performance.now();
  const outcome = await guard.body(() => evaluateTestFile(collected.fake), LEAST_LIMIT_MS);
  if (outcome !== "passed" || collected.async) return "the test file could not be loaded again";
  state.loadMs = performance.now() - started;
  const runnable = [];
  let unsure = "";
  for (const kept of state.kept) {
    if (definedAgain(kept, collected)) runnable.push({ kept });
    else if (collected.tests.has(kept.path) || !enclosed(kept.path, collected)) {
      unsure = `${kept.id} cannot run again`;
    }
  }
  return { runnable, unsure };
}

// Whether a test not found again is a subtest (`t.test`) of one found: it runs again within it.
function enclosed(path, collected) {
  const names = path.split(" > ");
  for (let end = names.length - 1; end > 0; end--) {
    if (collected.tests.has(names.slice(0, end).join(" > "))) return true;
  }
  return false;
}

// The test file run anew, its `node:test` the stand-in `fake`, its requires of the planned files answered
// by their dispatchers, and of the tests' own helpers (`ownHelper`) by instances of this load's own: what
// the tests' own run (or an earlier run again) left in the file's or a helper's module-level state (a
// memo of the answers it saw) is not there.
function evaluateTestFile(fake) {
  const { filename, content } = state.main;
  const module = newModule(filename);
  state.mainWrapper = state.mainWrapper || compileSource(content, `tiergate-tests:${filename}`);
  const fresh = new Map(); // a helper's file name -> its instance for this load
  const requireIt = makeRequire(module, loader(module, fake, fresh));
  requireIt.main = module; // as the test file's own `require.main` was
  const { exports } = module;
  const dirname = require("node:path").dirname(filename);
  Reflect.apply(state.mainWrapper(), exports, [exports, requireIt, module, filename, dirname]);
}

function newModule(filename, parent = null) {
  const Module = require("node:module");
  const module = new Module(filename, parent);
  module.filename = filename;
  module.paths = Module._nodeModulePaths(require("node:path").dirname(filename));
  return module;
}

function loader(module, fake, fresh) {
  // Node's own require (a fresh helper's `module.require` is this loader)
  const cached = (request) => require("node:module").prototype.require.call(module, request);
  return (request) => {
    if (request === "node:test") return fake;
    const filename = resolved(request, module);
    const file = filename && planned(filename);
    if (file && file.module) {
      const exported = dispatcherOf(file, cached(request));
      // No dispatcher (a Map exported): its mutants are left undecided, its original loaded anew.
      return file.why ? freshHelper(filename, module, fake, fresh) : exported;
    }
    if (!filename || !ownHelper(filename)) return cached(request);
    return freshHelper(filename, module, fake, fresh);
  };
}

function resolved(request, module) {
  try {
    return require("node:module")._resolveFilename(request, module, false);
  } catch {
    return "";
  }
}

// A helper of the tests' own: a CommonJS file of the project (the folder the process began in) outside
// node_modules, neither planned nor loaded by a planned file (what the code under test holds, the tests
// share with it, as they did in their own run).
function ownHelper(filename) {
  const path = require("node:path");
  if (![".js", ".cjs", ".json"].includes(path.extname(filename))) return false;
  if (!filename.startsWith(state.root + path.sep) || filename.split(path.sep).includes("node_modules")) {
    return false;
  }
  return !plannedTree().has(filename);
}

function plannedTree() {
  if (state.tree) return state.tree;
  const tree = new Set();
  const walk = (module) => {
    if (!module || tree.has(module.filename)) return;
    tree.add(module.filename);
    for (const child of module.children || []) walk(child);
  };
  for (const file of state.files.values()) walk(file.module);
  state.tree = tree;
  return tree;
}

function freshHelper(filename, parent, fake, fresh) {
  const known = fresh.get(filename);
  if (known) return known.exports;
  const module = newModule(filename, parent);
  module.require = loader(module, fake, fresh); // the `require` its code gets calls it
  fresh.set(filename, module);
  try {
    const wrapper = helperCode(filename);
    if (wrapper === null) module.load(filename);
    else runCompiled(module, wrapper);
  } catch (error) {
    fresh.delete(filename);
    throw error;
  }
  return module.exports;
}

// A helper's CommonJS code compiled once for all the loads (each runs it anew): V8 then compiles its
// functions once too, where a load through Node compiles them all again for each run. Null where Node's
// own load is needed (JSON, code that does not compile as a function body): it is used.
function helperCode(filename) {
  state.helperCode = state.helperCode || new Map();
  if (!state.helperCode.has(filename)) {
    let wrapper = null;
    if (filename.endsWith(".js") || filename.endsWith(".cjs")) {
      try {
        const content = require("node:fs").readFileSync(filename, "utf8");
        wrapper = compileSource(content.charCodeAt(0) === 0xfeff ? content.slice(1) : content, filename);
      } catch {}
    }
    state.helperCode.set(filename, wrapper);
  }
  return state.helperCode.get(filename);
}

function makeRequire(module, load) {
  const Module = require("node:module");
  const requireIt = (id) => load(id);
  requireIt.resolve = (request, options) => Module._resolveFilename(request, module, false, options);
  requireIt.cache = Module._cache;
  requireIt.main = require.main;
  requireIt.extensions = Module._extensions;
  return requireIt;
}

// A stand-in for `node:test` that collects what the test file defines: each test's function under its
// path of names, each suite's hooks. A suite's body runs at once, as node:test runs it; one that returns
// a promise (its tests defined later) makes the collection unsure. What it does not define is node:test's.
function collector() {
  const collected = { tests: new Map(), suites: [], async: false };
  const root = newSuite("", null, collected);
  let current = root;
  const define = (kind, flag) => (...args) => {
    const [name, options, fn] = testArguments(args);
    if (flag === "skip" || flag === "todo" || options.skip || options.todo) return Promise.resolve();
    if (kind === "test") {
      const key = [...current.path, name].join(" > ");
      const same = collected.tests.get(key) || [];
      if (typeof fn === "function") collected.tests.set(key, [...same, { fn, suite: current }]);
      return Promise.resolve();
    }
    const previous = current;
    current = newSuite(name, previous, collected);
    try {
      const { context } = current;
      const result = typeof fn === "function" ? Reflect.apply(fn, context, [context]) : undefined;
      if (result && typeof result.then === "function") collected.async = true;
    } finally {
      current = previous;
    }
    return Promise.resolve();
  };
  const hook = (which) => (fn) => {
    if (typeof fn === "function") current.hooks[which].push(fn);
  };
  const variants = (kind) => {
    const flags = { skip: define(kind, "skip"), todo: define(kind, "todo"), only: define(kind, "only") };
    return Object.assign(define(kind, ""), flags);
  };
  const test = variants("test");
  const describe = variants("suite");
  Object.assign(test, { test, it: variants("test"), describe, suite: describe });
  for (const which of ["before", "after", "beforeEach", "afterEach"]) test[which] = hook(which);
  const real = require("node:test");
  collected.fake = new Proxy(test, { get: (target, key) => (key in target ? target[key] : real[key]) });
  collected.root = root;
  return collected;
}

function newSuite(name, parent, collected) {
  const path = parent === null ? [] : [...parent.path, name];
  const hooks = { before: [], after: [], beforeEach: [], afterEach: [] };
  const suite = { name, parent, path, hooks, children: [] };
  suite.context = { name, fullName: path.join(" > "), signal: new AbortController().signal };
  if (parent) parent.children.push(suite);
  collected.suites.push(suite);
  return suite;
}

// `test(name, options, fn)` as node:test reads its arguments (any may be left out).
function testArguments(args) {
  let [name, options, fn] = args;
  if (typeof name === "function") [fn, name, options] = [name, undefined, undefined];
  else if (name !== null && typeof name === "object") [fn, options, name] = [options, name, undefined];
  else if (typeof options === "function") [fn, options] = [options, undefined];
  if (options === null || typeof options !== "object") options = {};
  if (typeof name !== "string" || name === "") name = (fn && fn.name) || "<anonymous>";
  return [name, options, fn];
}
