// tiergate: the claim's JavaScript mutants, run in a `node --test` test file's own process once its tests
// have all run and been reported (written for one run).
//
// Loaded by `--require` through NODE_OPTIONS (`tiergate.gate.mutation.nodestep`), the plan named by
// TIERGATE_NODE_MUTANTS; never loaded by tiergate itself. It acts only in a process `node --test` started
// for a test file (NODE_TEST_CONTEXT), on its main thread, and only on the plan's CommonJS files. No
// dependencies; Node 18 or later. See docs/judging.md, "Mutants of the changed lines".
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
  } catch {
    // A plan not read or a Node not as expected: the gate runs every mutant in a process of its own.
  }
}

// The tests' own run: noted, not changed ------------------------------------------------------------------

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

// The globals a module added as it loaded, by its file name: those of a module loaded once (a library's,
// the code under test's) stay for the runs again; those of the tests' own files, run again, do not.
function noteGlobals(filename, before) {
  for (const key of Reflect.ownKeys(globalThis)) {
    if (!before.has(key)) state.globalsBy.push([filename, key]);
  }
}

// What the tests' own run (or a run before) left on globalThis, taken away before each run again: a memo
// of the answers seen first there would judge every mutant. The globals there as the preload began, and
// those a module loaded once added as it loaded, stay.
function removeGlobals() {
  if (state.globals === null) {
    const again = (filename) => filename === state.main.filename || ownHelper(filename);
    const kept = state.globalsBy.filter(([filename]) => !again(filename)).map(([, key]) => key);
    state.globals = new Set([...state.firstGlobals, ...kept, RUN_SLOT, END_SLOT]);
  }
  for (const key of Reflect.ownKeys(globalThis)) {
    if (!state.globals.has(key)) Reflect.deleteProperty(globalThis, key);
  }
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

// The files and folders this process makes (where nothing was), noted as it makes them (`fs`'s functions
// that write, open, copy, rename, link or make a folder; sync, callback and promise forms) and taken away
// before each run again: a file a test keeps between runs (a snapshot of the answers it saw first) is
// made anew by each run, as a fresh run would make it. tiergate's own folders are left alone.
const MAKERS = {
  writeFile: 0,
  appendFile: 0,
  open: 0,
  copyFile: 1,
  cp: 1,
  rename: 1,
  mkdir: 0,
  symlink: 1,
  link: 1,
  createWriteStream: 0,
};

// The files and folders that were there and that this process changes, replaces, moves or deletes: the
// arguments naming them. Each is kept as it was before the first such call, and put back before each run
// again: answers a test records into a file the claim ships (`{}` at first) are recorded anew by each
// run, and a file the first run deleted is there again, as in a fresh process.
const CHANGERS = {
  writeFile: [0],
  appendFile: [0],
  open: [0],
  createWriteStream: [0],
  truncate: [0],
  copyFile: [1],
  cp: [1],
  rename: [0, 1],
  symlink: [1],
  link: [1],
  rm: [0],
  rmdir: [0],
  unlink: [0],
};
// What is kept in memory, in all: a file past it that this process changes leaves its mutants undecided
// (run by the fallback, each in a fresh copy) rather than judged with the file as a run left it.
const SAVE_LIMIT = 64 * 1024 * 1024;

function watchCreated(planPath) {
  const fs = require("node:fs");
  const path = require("node:path");
  const named = Object.entries(process.env).filter(([key, value]) => key.startsWith("TIERGATE_") && value);
  const folders = [path.dirname(planPath), process.env.NODE_V8_COVERAGE || ""];
  folders.push(...named.map((pair) => pair[1]));
  const absolute = folders.filter((one) => path.isAbsolute(one) && path.resolve(one) !== "/");
  state.own = absolute.map((one) => `${path.resolve(one)}/`);
  for (const name of new Set([...Object.keys(MAKERS), ...Object.keys(CHANGERS)])) {
    for (const [holder, key] of [
      [fs, name],
      [fs, `${name}Sync`],
      [fs.promises, name],
    ]) {
      const original = holder[key];
      if (typeof original !== "function") continue;
      holder[key] = function tiergateMakes(...args) {
        if (!state.putting) noteWrite(name, args);
        return Reflect.apply(original, this, args);
      };
    }
  }
}

// Before the call: what it may change is kept first, what it may make noted.
function noteWrite(name, args) {
  if (name === "open" && !opensToWrite(args[1])) return;
  for (const at of CHANGERS[name] || []) saveFirst(args[at]);
  if (name in MAKERS && (name !== "open" || writes(args[1]))) noteCreated(name, args[MAKERS[name]]);
}

function writes(flags) {
  const { O_CREAT } = require("node:fs").constants;
  return typeof flags === "number" ? (flags & O_CREAT) !== 0 : /[wax]/.test(String(flags));
}

// `open`'s flags (`r` when none) allow writing: `r+` too, which changes a file without making one.
function opensToWrite(flags) {
  const { O_WRONLY, O_RDWR, O_APPEND, O_TRUNC } = require("node:fs").constants;
  if (typeof flags === "number") return (flags & (O_WRONLY | O_RDWR | O_APPEND | O_TRUNC)) !== 0;
  return typeof flags === "string" && /[wa+]/.test(flags); // not a callback in the flags' place
}

// The absolute path a call names, or "" (a file descriptor, nothing).
function pathOf(target) {
  let name = target instanceof URL ? require("node:url").fileURLToPath(target) : target;
  if (Buffer.isBuffer(name)) name = name.toString();
  return typeof name === "string" && name !== "" ? require("node:path").resolve(name) : "";
}

function noteCreated(name, target) {
  if (state.phase === "done") return;
  try {
    const path = require("node:path");
    let made = pathOf(target);
    if (!made) return;
    // A folder made with its parents: the first of them that was not there.
    while (name === "mkdir" && !exists(path.dirname(made)) && path.dirname(made) !== made) {
      made = path.dirname(made);
    }
    if (exists(made) || ownFolder(made)) return;
    state.created.add(made);
  } catch {}
}

function ownFolder(name) {
  return state.own.some((folder) => `${name}/`.startsWith(folder));
}

function exists(name) {
  try {
    require("node:fs").lstatSync(name);
    return true;
  } catch {
    return false;
  }
}

class TooBig extends Error {}

// A path that is there, kept once, as it is before this process's first change to it. Not one this
// process made (taken away instead), nor one inside a folder already kept whole (putting that back puts
// back what is in it), nor tiergate's own.
function saveFirst(target) {
  if (state.phase === "done") return;
  let name = "";
  try {
    name = pathOf(target);
    if (!name || state.saved.has(name) || !exists(name) || ownFolder(name) || keptWithin(name)) return;
    state.saved.set(name, snapshot(name));
  } catch (error) {
    if (error instanceof TooBig && !state.unsaved) state.unsaved = name;
  }
}

function keptWithin(name) {
  const path = require("node:path");
  for (let at = name; ; at = path.dirname(at)) {
    if (state.created.has(at) || (at !== name && state.saved.get(at)?.kind === "dir")) return true;
    if (path.dirname(at) === at) return false;
  }
}

// A file's bytes and mode, a symlink's target, a folder's mode and what is in it (each kept alike).
function snapshot(name) {
  const fs = require("node:fs");
  const stat = fs.lstatSync(name);
  const mode = stat.mode & 0o7777;
  if (stat.isSymbolicLink()) return { kind: "link", target: fs.readlinkSync(name) };
  if (stat.isDirectory()) {
    const children = new Map();
    for (const child of fs.readdirSync(name)) children.set(child, snapshot(`${name}/${child}`));
    return { kind: "dir", mode, children };
  }
  if (!stat.isFile()) return { kind: "other" }; // a socket, a pipe: nothing to put back
  if (state.savedBytes + stat.size > SAVE_LIMIT) throw new TooBig();
  const bytes = fs.readFileSync(name);
  state.savedBytes += bytes.length;
  return { kind: "file", mode, bytes };
}

// The files as this process first found them, as far as it changed them: what it made taken away, what
// it changed put back (folders before what is in them).
function putFilesBack() {
  state.putting = true;
  try {
    removeCreated();
    const names = [...state.saved.keys()].sort((a, b) => a.length - b.length);
    for (const name of names) {
      try {
        putBack(name, state.saved.get(name));
      } catch {}
    }
  } finally {
    state.putting = false;
  }
}

function removeCreated() {
  // The deepest first: a folder made goes with what was made in it.
  for (const made of [...state.created].sort((a, b) => b.length - a.length)) {
    try {
      require("node:fs").rmSync(made, { recursive: true, force: true });
    } catch {}
  }
  state.created.clear();
}

function putBack(name, saved) {
  const fs = require("node:fs");
  if (saved.kind === "other") return;
  const now = fs.lstatSync(name, { throwIfNoEntry: false });
  if (saved.kind === "dir") return putBackFolder(name, saved, now);
  if (saved.kind === "file" && now && now.isFile() && unchanged(name, saved, now)) return;
  // Made anew, not written over: a file kept read-only is put back all the same.
  if (now) fs.rmSync(name, { recursive: true, force: true });
  fs.mkdirSync(require("node:path").dirname(name), { recursive: true });
  if (saved.kind === "link") return fs.symlinkSync(saved.target, name);
  fs.writeFileSync(name, saved.bytes, { mode: saved.mode });
  fs.chmodSync(name, saved.mode); // (the mode as kept, not as the umask leaves it)
}

// A file as it was kept, its mode and bytes: left as it is (a run that only read it).
function unchanged(name, saved, now) {
  if ((now.mode & 0o7777) !== saved.mode || now.size !== saved.bytes.length) return false;
  return require("node:fs").readFileSync(name).equals(saved.bytes);
}

// A folder kept whole: made again if gone, what was not in it taken away, what was put back.
function putBackFolder(name, saved, now) {
  const fs = require("node:fs");
  if (now && !now.isDirectory()) fs.rmSync(name, { force: true });
  fs.mkdirSync(name, { recursive: true });
  for (const child of fs.readdirSync(name)) {
    if (!saved.children.has(child)) fs.rmSync(`${name}/${child}`, { recursive: true, force: true });
  }
  for (const [child, kept] of saved.children) putBack(`${name}/${child}`, kept);
  fs.chmodSync(name, saved.mode);
}

// Why this process's mutants cannot be judged here: a file it changed was too big to keep.
function unsaved() {
  return state.unsaved ? `the tests changed ${state.unsaved}, too big to put back between runs` : "";
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

// The dispatchers, for the test file loaded again -----------------------------------------------------------

// `exported` (a planned file's exports) behind a dispatcher, made once; the exports as they are when they
// cannot be (why noted).
function dispatcherOf(file, exported) {
  if (file.dispatcher && file.exported === exported) return file.dispatcher;
  file.why = dispatchable(exported);
  if (file.why) return exported;
  file.exported = exported;
  file.active = null; // null: the original; else the exports of the instance in use
  file.functions = new Map(); // key -> { from, proxy }: a function's stand-in, the same at each read
  file.data = new Map(); // key -> whether the original holds it as a plain value (no getter)
  file.fixed = new Set(); // the keys the original holds non-configurable and read-only: a Proxy keeps them
  for (const key of Reflect.ownKeys(exported)) noteFixed(file, key);
  file.dispatcher = dispatcher(file, exported);
  return file.dispatcher;
}

function dispatchable(exported) {
  if (typeof exported !== "function") {
    if (exported === null || typeof exported !== "object") return "its module exports no object";
    const proto = Object.getPrototypeOf(exported);
    if (proto !== Object.prototype && proto !== null) return "its module exports an object of a class";
  }
  if (!Object.isExtensible(exported)) return "its module's exports are frozen";
  return "";
}

function noteFixed(file, key) {
  const own = Reflect.getOwnPropertyDescriptor(file.exported, key);
  if (own && !own.configurable && "value" in own && !own.writable) file.fixed.add(key);
  file.data.delete(key);
}

// A run again that calls into a planned file, noted: a test that does not is left out of its other
// mutants' runs.
function touch(file) {
  if (state.touched) state.touched.add(file.index);
}

function activeExports(file) {
  return file.active === null ? file.exported : file.active;
}

// What requirers get: every read, write, call and construction goes to the active instance's exports.
function dispatcher(file, target) {
  const handler = {
    get(_, key) {
      touch(file);
      if (file.fixed.has(key)) return target[key];
      if (key === Symbol.hasInstance && file.active !== null) return hasInstance(file.active, target);
      return standIn(file, key, Reflect.get(activeExports(file), key));
    },
    set: (_, key, value) => (file.data.delete(key), Reflect.set(activeExports(file), key, value)),
    has: (_, key) => Reflect.has(activeExports(file), key) || file.fixed.has(key),
    deleteProperty: (_, key) => (file.data.delete(key), Reflect.deleteProperty(activeExports(file), key)),
    defineProperty(_, key, how) {
      const done = Reflect.defineProperty(activeExports(file), key, how);
      if (file.active === null) noteFixed(file, key);
      return done;
    },
    ownKeys: () => ownKeys(file, target),
    getOwnPropertyDescriptor: (_, key) => descriptor(file, target, key),
    getPrototypeOf: () => Reflect.getPrototypeOf(activeExports(file)),
  };
  if (typeof target === "function") {
    handler.apply = (_, self, args) => (touch(file), Reflect.apply(activeExports(file), self, args));
    handler.construct = (_, args, newTarget) => construct(file, activeExports(file), args, newTarget, proxy);
  }
  const proxy = new Proxy(target, handler);
  return proxy;
}

function hasInstance(active, original) {
  return (thing) => thing instanceof active || thing instanceof original;
}

function ownKeys(file, target) {
  const keys = Reflect.ownKeys(activeExports(file));
  for (const key of Reflect.ownKeys(target)) {
    const own = Reflect.getOwnPropertyDescriptor(target, key);
    if (own && !own.configurable && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

function descriptor(file, target, key) {
  const own = Reflect.getOwnPropertyDescriptor(target, key);
  if (own && !own.configurable) return own;
  // The value as it is, no stand-in: a mock that puts a method back puts back what it found.
  const found = Reflect.getOwnPropertyDescriptor(activeExports(file), key);
  return found === undefined ? undefined : { ...found, configurable: true };
}

// A function the original holds as a plain value is handed out as a stand-in that calls the active
// instance's function of the same name: a test that destructured its import at the top of its file
// reaches the mutant all the same. The stand-in is the same at each read, as the function was.
function standIn(file, key, value) {
  if (typeof value !== "function") return value;
  let known = file.functions.get(key);
  if (file.active !== null) return known ? known.proxy : value;
  if (!isData(file, key)) return value; // a getter's: read anew at each use, as it is now
  if (!known || known.from !== value) {
    known = { from: value, proxy: functionProxy(file, key, value) };
    file.functions.set(key, known);
  }
  return known.proxy;
}

function isData(file, key) {
  let data = file.data.get(key);
  if (data === undefined) {
    const own = Reflect.getOwnPropertyDescriptor(file.exported, key);
    data = own !== undefined && "value" in own;
    file.data.set(key, data);
  }
  return data;
}

function functionProxy(file, key, original) {
  const current = () => {
    const value = file.active === null ? original : file.active[key];
    return typeof value === "function" ? value : original;
  };
  // `this` the dispatcher (`lib.f()`): the function sees its own module's exports, as it would unproxied.
  const self = (thisArg) => (thisArg === file.dispatcher ? activeExports(file) : thisArg);
  const proxy = new Proxy(original, {
    apply: (_, thisArg, args) => (touch(file), Reflect.apply(current(), self(thisArg), args)),
    construct: (_, args, newTarget) => construct(file, current(), args, newTarget, proxy),
    get(target, name) {
      const own = Reflect.getOwnPropertyDescriptor(target, name);
      if (own && !own.configurable && "value" in own && !own.writable) return own.value;
      if (name === Symbol.hasInstance && file.active !== null) return hasInstance(current(), original);
      return Reflect.get(current(), name);
    },
  });
  return proxy;
}

// `new` through a dispatcher builds the active instance's class, with that class's prototype (a
// subclass's own `new` keeps the subclass's).
function construct(file, active, args, newTarget, proxy) {
  touch(file);
  return Reflect.construct(active, args, newTarget === proxy ? active : newTarget);
}

// The mutants' runs --------------------------------------------------------------------------------------

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
      this.guard = new Guard();
      if (!this.guard.watchdog.worker) return "no watchdog thread could start";
    }
    this.tests = this.tests || (await loadAgain(this.guard));
    return this.tests;
  }

  close() {
    if (this.guard) this.guard.close();
  }
}

function newReport(files) {
  const report = { test_file: realpath(process.argv[1] || ""), fates: {}, started: performance.now() };
  for (const file of files) {
    for (const mutant of file.mutants) report.fates[mutant.id] = ["undecided", "not run"];
  }
  state.report = report;
  return report;
}

async function mutants(report, rerun, own) {
  const budget = new Budget(state.plan);
  const elsewhere = new Elsewhere(state.plan);
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

// The test file loaded again ------------------------------------------------------------------------------

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

function mutated(file, mutant) {
  const { original } = file;
  if (original.slice(mutant.start, mutant.end) !== mutant.original) return null;
  return original.slice(0, mutant.start) + mutant.replacement + original.slice(mutant.end);
}

// The module's code from `source`, compiled once under a name of its own ("tiergate-mutant:ID"): V8's
// coverage then tells its runs from the original's, and the gate, which reads file URLs only, skips it.
function compile(file, id, source) {
  if (source === null) return "the file is not the one the mutant was made of";
  file.compiled = file.compiled || new Map();
  file.killers = file.killers || [];
  file.setAside = file.setAside || new Set();
  file.checks = file.checks || new Map();
  file.untouchedBy = file.untouchedBy || new Set();
  if (!file.compiled.has(id)) {
    try {
      file.compiled.set(id, { wrapper: compileSource(source, `tiergate-mutant:${id}`) });
    } catch (error) {
      file.compiled.set(id, { error }); // it fails every test that runs it, as a file that does not load
    }
  }
  return file.compiled.get(id);
}

// The module's code compiled once, as a maker of its function: each call gives a function of its own
// (its bytecode shared), so that nothing a load keeps on its function (`arguments.callee`) is there for
// the next. The line before the code keeps its lines numbered as in the file. The code compiles as a
// function's body by itself first: none can close the maker's function and keep something beside it.
function compileSource(source, filename) {
  const vm = require("node:vm");
  vm.compileFunction(source, PARAMS, { filename }); // throws where it is no function's body
  const options = { filename, lineOffset: -1 };
  const loader = vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (loader) options.importModuleDynamically = loader; // `import()` in CommonJS code
  return new vm.Script(`${MAKER_HEAD}${source}\n}; })`, options).runInThisContext();
}

// The planned files but `file`, each a fresh instance of its original for a run: what the tests' own run
// (or a run before) left in one (a memo it holds) is not there.
function freshOriginals(file) {
  for (const other of state.files.values()) {
    if (other === file || !other.dispatcher) continue;
    const compiled = compile(other, `original-${other.index}`, other.original);
    if (typeof compiled !== "string") other.active = instance(other, compiled);
  }
}

// A fresh instance of the compiled module, its exports: a run never sees what another run left in it.
function instance(file, compiled) {
  if (compiled.error) throw compiled.error;
  const module = newModule(file.file);
  runCompiled(module, compiled.wrapper);
  return module.exports;
}

// A module's code compiled once (`compileSource`: a maker of its function) run in `module`, as Node's
// own load runs it.
function runCompiled(module, wrapper) {
  const requireIt = makeRequire(module, (id) => module.require(id));
  const { exports, filename } = module;
  const args = [exports, requireIt, module, filename, require("node:path").dirname(filename)];
  Reflect.apply(wrapper(), exports, args);
  module.loaded = true;
}

// The whole step keeps within the plan's seconds, summed over the run's processes (a ledger file in the
// plan's folder): the time the check gets beside its own limit for them.
// Once a mutant survived here, the rest get a share of the tests' own time more (the plan's
// `after_survivor`): enough to name the survivors that come cheap, never a run of every test for each. The
// gate leaves them unrun once a mutant survived in every test file that ran its line (`nodestep`).
class Budget {
  constructor(plan) {
    this.seconds = Number(plan.seconds);
    this.ledger = require("node:path").join(plan.out, "spent");
    this.mark = performance.now();
    const testsMs = state.kept.reduce((sum, kept) => sum + kept.ms, 0);
    this.afterSurvivorMs = Number(plan.after_survivor) * testsMs;
    this.survivors = new Map(); // a mutant that survived here -> when its share ends
  }

  // `share`: 1 for the share after a survivor; 0 for one another process let live first, which named the
  // cheap survivors in its share already.
  survived(id, share) {
    if (!this.survivors.has(id)) this.survivors.set(id, performance.now() + share * this.afterSurvivorMs);
  }

  // Only a survivor no other process killed counts: one killed there is no survivor for the gate.
  enough(elsewhere) {
    const now = performance.now();
    for (const [id, at] of this.survivors) if (now >= at && !elsewhere.killed.has(id)) return NOT_NEEDED;
    return "";
  }

  over() {
    let total = (performance.now() - this.mark) / 1000;
    try {
      const text = require("node:fs").readFileSync(this.ledger, "utf8");
      for (const line of text.split("\n")) total += Number(line) || 0;
    } catch {}
    if (total <= this.seconds) return "";
    return `the mutation step ran out of its ${Math.round(this.seconds)} s`;
  }

  spent() {
    const now = performance.now();
    try {
      require("node:fs").appendFileSync(this.ledger, `${(now - this.mark) / 1000}\n`);
    } catch {}
    this.mark = now;
  }
}

// What the check's other processes made of each mutant (a ledger in the plan's folder, a line a fate). One
// killed there is killed for the gate: it is not run here again. One that survived there and was killed
// nowhere runs first: a survivor found early lets the rest go unrun (`Budget.enough`) in every process.
// The ledger only orders and spares runs: the gate takes fates from the keyed reports alone, so a forged
// line costs time, never a fate.
class Elsewhere {
  constructor(plan) {
    this.ledger = require("node:path").join(plan.out, "fates");
    this.killed = new Set();
    this.survived = new Set();
    this.read();
  }

  read() {
    let text = "";
    try {
      text = require("node:fs").readFileSync(this.ledger, "utf8");
    } catch {
      return;
    }
    for (const line of text.split("\n")) {
      const [id, fate] = line.split(" ");
      if (fate === "killed") this.killed.add(id);
      if (fate === "survived") this.survived.add(id);
    }
  }

  // Whether another process let the mutant live and none killed it.
  lived(mutant) {
    return this.survived.has(mutant.id) && !this.killed.has(mutant.id);
  }

  order(mutants) {
    return [...mutants.filter((m) => this.lived(m)), ...mutants.filter((m) => !this.lived(m))];
  }

  killedThere(mutant) {
    return this.killed.has(mutant.id) ? KILLED_ELSEWHERE : "";
  }

  note(id, fate) {
    if (fate !== "killed" && fate !== "survived") return;
    try {
      require("node:fs").appendFileSync(this.ledger, `${id} ${fate}\n`);
    } catch {}
  }
}

// The runs' surroundings ------------------------------------------------------------------------------

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
      throw new CannotRunAgain("node:test itself in a run again");
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


// Coverage: the original run's, written before any mutant runs; then the mutants' runs', read here to
// tell whether each mutant's change ran at all, and kept out of the coverage the gate reads. ------------

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

// The report -------------------------------------------------------------------------------------------

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

main();
