// What a run leaves, taken away before each run again: the globals the tests added, the files
// the process made, and those it changed put back.

"use strict";

module.exports = { noteGlobals, putFilesBack, removeGlobals, unsaved, watchCreated };

const { END_SLOT, RUN_SLOT, state } = require("./state.cjs");
const { ownHelper } = require("./reload.cjs");

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
