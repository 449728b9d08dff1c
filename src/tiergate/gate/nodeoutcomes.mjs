// tiergate: each test's outcome in this `node --test` run, for the gate (written for one run).
//
// Named in NODE_OPTIONS as a test reporter (`tiergate.gate.testreports`); never loaded by tiergate
// itself. It prints nothing: the run's own reporter still writes to stdout. Each node process that
// runs tests appends JSON lines to a file of its own in TIERGATE_TESTS_OUT, and a last line saying it
// finished; an error here is swallowed, so that it never changes what the tests do.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

export default async function* tiergateOutcomes(source) {
  const folder = process.env.TIERGATE_TESTS_OUT;
  const file = folder ? join(folder, `node-${process.pid}-${randomBytes(4).toString("hex")}.jsonl`) : "";
  const stacks = new Map(); // test file -> names of the tests and suites open at each nesting level
  const write = (record) => {
    if (!file) return;
    try {
      appendFileSync(file, JSON.stringify(record) + "\n");
    } catch {}
  };
  for await (const event of source) {
    try {
      const data = event.data || {};
      const stack = stacks.get(data.file) || [];
      stacks.set(data.file, stack);
      if (event.type === "test:start") {
        stack.length = data.nesting;
        stack.push(data.name);
      } else if (event.type === "test:pass" || event.type === "test:fail") {
        const details = data.details || {};
        const failure = (details.error && details.error.failureType) || "";
        const suite = details.type === "suite";
        if (suite && (event.type === "test:pass" || failure === "subtestsFailed") && !data.skip) continue;
        let outcome = event.type === "test:pass" ? "passed" : "failed";
        if (data.skip) outcome = "skipped";
        else if (data.todo) outcome = "xfailed";
        else if (event.type === "test:fail" && (suite || failure.startsWith("cancelled") || failure === "hookFailed"))
          outcome = "error";
        write({ file: data.file || "", path: [...stack.slice(0, data.nesting), data.name], outcome });
      }
    } catch {}
  }
  write({ finished: true });
}
