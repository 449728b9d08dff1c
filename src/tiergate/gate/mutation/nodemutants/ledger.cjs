// What the check's processes share through the plan's folder: the step's time (`Budget`) and the
// fates found elsewhere (`Elsewhere`).

"use strict";

const { KILLED_ELSEWHERE, NOT_NEEDED, state } = require("./state.cjs");

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

Object.assign(module.exports, { Budget, Elsewhere });
