// The tests' own run, noted and not changed: the sources Node compiles, each test that passes.

"use strict";

module.exports = { basename, definedAgain, hookCompile, planned, realpath, watchForTests };

const { state } = require("./state.cjs");
const { noteGlobals } = require("./restore.cjs");
const { onBeforeExit } = require("./mutants.cjs");

function hookCompile() {
  const Module = require("node:module");
  const compile = Module.prototype._compile;
  Module.prototype._compile = function tiergateCompile(content, filename, ...rest) {
    const before = state.phase === "" ? new Set(Reflect.ownKeys(globalThis)) : null;
    const result = compile.call(this, content, filename, ...rest);
    if (before) noteGlobals(filename, before);
    // (`format` "module": an ES module required; it is not CommonJS code)
    if (typeof content === "string" && rest[0] !== "module") noteCompiled(this, content, filename);
    return result;
  };
}

function noteCompiled(module, content, filename) {
  if (module.id === "." && state.main === null) state.main = { filename, content };
  const file = planned(filename);
  if (file && state.phase === "") file.loads = (file.loads || 0) + 1;
  if (file && !file.module) {
    file.module = module;
    file.original = content;
  }
}

function planned(filename) {
  const file = state.files.get(filename);
  if (file || !state.names.has(basename(filename))) return file;
  return state.files.get(realpath(filename));
}

function basename(name) {
  return require("node:path").basename(String(name));
}

function realpath(name) {
  try {
    return require("node:fs").realpathSync(name);
  } catch {
    return name;
  }
}

// node:test's Test class is not exported: it is found as the resource of the first async resource of type
// "Test" (its root, made at the first `test()`), and its `run` wrapped to note each test that passes.
function watchForTests() {
  const hook = require("node:async_hooks").createHook({
    init(_id, type, _trigger, resource) {
      if (type !== "Test" || state.testClass) return;
      try {
        state.testClass = patchTestClass(resource);
      } catch {
        state.testClass = "unknown";
      }
      process.nextTick(() => hook.disable());
    },
  });
  hook.enable();
}

function patchTestClass(resource) {
  let proto = Object.getPrototypeOf(resource);
  while (proto && !(Object.hasOwn(proto, "run") && Object.hasOwn(proto, "createSubtest"))) {
    proto = Object.getPrototypeOf(proto);
  }
  if (!proto || typeof proto.run !== "function") return "unknown";
  state.testProto = proto;
  const run = proto.run;
  proto.run = function tiergateRun(...args) {
    if (!isPlainTest(this)) return run.apply(this, args);
    if (!state.listening) {
      state.listening = true; // after node:test's own `beforeExit` handler, set up with its root
      process.on("beforeExit", onBeforeExit);
    }
    state.pending += 1;
    // Tests of one name are told apart by the order they began in, the order the file defines them in.
    const path = namesOf(this);
    const nth = state.begun.get(path) || 0;
    state.begun.set(path, nth + 1);
    const started = performance.now();
    const done = () => ended(this, path, nth, performance.now() - started);
    const result = run.apply(this, args);
    Promise.resolve(result).then(done, done);
    return result;
  };
  return "patched";
}

function isPlainTest(test) {
  const plain = test.parent != null && typeof test.hookType !== "string" && test.reportedType !== "suite";
  return plain && typeof test.fn === "function";
}

function namesOf(test) {
  const names = [];
  for (let at = test; at && at.parent; at = at.parent) names.unshift(String(at.name));
  return names.join(" > ");
}

function ended(test, path, nth, ms) {
  state.pending -= 1;
  if (test.skipped || test.isTodo) return;
  if (!test.passed || test.error != null) {
    state.failed = true;
    return;
  }
  const file = (test.loc && test.loc.file) || process.argv[1] || "";
  state.kept.push({ path, nth, id: [file, path].join(" > "), ms });
}

// The test `kept` in what the test file defined when loaded again (`collected`), or null: the one of its
// name in the place it began in, when the file defined as many of that name as the tests' own run began.
function definedAgain(kept, collected) {
  const found = collected.tests.get(kept.path) || [];
  return found.length === state.begun.get(kept.path) ? found[kept.nth] : null;
}
