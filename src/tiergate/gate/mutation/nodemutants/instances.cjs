// The planned files' instances (the original, each mutant's, compiled once) and the dispatchers
// that hand the test file loaded again the active one.

"use strict";

module.exports = { compile, compileSource, dispatcherOf, freshOriginals, instance, mutated, runCompiled };

const { MAKER_HEAD, PARAMS, state } = require("./state.cjs");
const { makeRequire, newModule } = require("./reload.cjs");

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
