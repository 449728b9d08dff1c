"use strict";
// tiergate: in a `node --test` test file's process the gate starts to confirm a kill (nodestep's
// `_Trial.confirm`), one CommonJS file compiled from the source the plan gives, not from the disk: the
// mutant in one process and its line's copy that behaves the same in another, both at once, the claim's
// copy unchanged on disk. Loaded by NODE_OPTIONS --require; the plan's path is taken out of the
// environment before the tests' code runs. Nothing here when there is no plan, or outside a test file's
// process (the runner's own).

(function main() {
  const VARIABLE = "TIERGATE_NODE_SWAP";
  const planPath = process.env[VARIABLE];
  // The runner's own process hands its environment to the test files' processes: it keeps the plan.
  if (!planPath || !String(process.env.NODE_TEST_CONTEXT || "").startsWith("child")) return;
  delete process.env[VARIABLE];
  let plan;
  try {
    plan = JSON.parse(require("node:fs").readFileSync(planPath, "utf8"));
  } catch {
    return; // no swap: the run is the original's, and a kill does not repeat in it (never a false kill)
  }
  const Module = require("node:module");
  const compile = Module.prototype._compile;
  Module.prototype._compile = function tiergateSwap(content, filename, ...rest) {
    return Reflect.apply(compile, this, [filename === plan.file ? plan.source : content, filename, ...rest]);
  };
})();
