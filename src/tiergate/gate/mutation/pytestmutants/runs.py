# mypy: ignore-errors
"""The zygote's runs of the mutants, in the plan's order, and of each function's copy that behaves the
same; the fates written with the plan's key to the plan's `out`."""

import gc
import json
import os
import time

from .children import in_child
from .folder import own
from .swap import unit_key


def write(path, data):
    with open(path + ".part", "w") as f:
        json.dump(data, f)
    os.replace(path + ".part", path)


_AT_COLLECTION = "its line ran as the tests were collected: what they kept of it would judge its mutants"


class Runner:
    def __init__(self, mutation, session, told):
        self.plan, self.key, self.probes = mutation.plan, mutation.key, mutation.probes
        self.items = {item.nodeid: item for item in session.items}
        self.covering = told["tests"]
        self.statements = told["statements"]
        self.collected = told.get("collected", {})
        self.started = time.monotonic()
        self.deadline = self.started + float(told["seconds"])
        # The mutants take at most four fifths of it: the copies that behave the same run in the rest.
        self.mutants_deadline = self.started + 0.8 * float(told["seconds"])
        # Once a mutant survived, the rest get a quarter of the run's own test time more: enough to name
        # the survivors that come cheap, never a run of every test for each (the step's cost stays a
        # share of the tests' own, whatever survives).
        self.enough = float("inf")
        share = float(self.plan.get("after_survivor", 0.25))
        self.after_survivor = share * sum(seconds for _, _, seconds in told["tests"])
        self.fates = {}
        self.killers = {}  # unit key -> nodeids that killed its mutants
        self.void = ""
        self.incomplete = ""

    def write(self):
        write(
            self.plan["out"],
            {
                "key": self.key,
                "fates": dict(self.fates),
                "void": self.void,
                "incomplete": self.incomplete,
                "seconds": time.monotonic() - self.started,
            },
        )

    def run(self):
        if self.deadline <= self.started:
            self.incomplete = "the check's time limit left no time for them"
            return
        # In the plan's order (each line's most telling first): each runs in a fresh child, so the order
        # tells a test nothing, and a survivor found early names the line's weakest spot.
        mutants = list(self.plan["mutants"])
        # The objects as they are stay out of the collector's sight: its passes in a child would touch
        # every one of them, and copy every page the zygote shares with it.
        gc.freeze()
        for mutant in mutants:
            if time.monotonic() > self.mutants_deadline:
                self.incomplete = "the mutation step ran out of its time"
                break
            if time.monotonic() > self.enough and self.tests_for(mutant):
                # A mutant survived: the change is not LIGHT, whatever the rest would show (one that
                # no test ran costs nothing to name).
                self.fates[mutant["id"]] = ["not_run", "not needed: a mutant survived already"]
                continue
            self.fates[mutant["id"]] = self.one(mutant)
            if self.fates[mutant["id"]][0] == "survived" and self.enough == float("inf"):
                self.enough = time.monotonic() + self.after_survivor
            self.write()  # what is known so far stands, should the zygote be ended
        # Until the copies that behave the same have run, the kills are not yet evidence.
        self.incomplete, pending = "the copies that behave the same did not all run", self.incomplete
        self.write()
        self.incomplete = pending
        for sentinel in self.plan["sentinels"]:
            failed = self.sentinel(sentinel)
            if failed:
                self.void = "%s failed on a copy of %s that behaves the same" % (
                    failed,
                    sentinel["unit"] or "the module",
                )
                break

    def one(self, mutant):
        tests = self.tests_for(mutant)
        if not tests:
            return ["uncovered", ""]
        if self.ran_at_collection(mutant):
            self.incomplete = self.incomplete or _AT_COLLECTION
            return ["not_run", _AT_COLLECTION]
        fate, by, killers = in_child(mutant, tests, self.mutants_deadline, own(self.plan))
        if fate == "not_run" and not self.incomplete:
            self.incomplete = by
        self.killers.setdefault(unit_key(mutant), []).extend(killers)
        return [fate, by]

    def sentinel(self, sentinel):
        killers = set(self.killers.get(unit_key(sentinel), ()))
        tests = [(self.items[n], s) for n, _, s in self.covering if n in killers and n in self.items]
        if not tests:
            return None
        fate, by, _ = in_child(sentinel, tests, self.deadline, own(self.plan), spare=True)
        return by if fate in ("killed", "not_run") else None

    def ran_at_collection(self, mutant):
        """Whether a function's mutated line ran as the tests were collected: what the tests made of it
        then (a table of its answers, a value a fixture keeps) holds the code as it was, and would judge
        every mutant."""
        if not mutant["unit"]:  # a module's top runs at import anyway, and is run again with the mutant
            return False
        path = mutant["file"]
        line = _statement(self.statements.get(path, ()), mutant["line"])
        return line in self.collected.get(path, ())

    def tests_for(self, mutant):
        path = mutant["file"]
        if mutant["unit"]:
            line = _statement(self.statements.get(path, ()), mutant["line"])
            found = [(n, s) for n, runs, s in self.covering if line in runs.get(path, ())]
        else:  # a top-level assignment runs at import: its tests are those that ran any of its module
            found = [(n, s) for n, runs, s in self.covering if runs.get(path)]
        killers = self.killers.get(unit_key(mutant), [])
        # The tests that killed this function's other mutants first, then the quickest.
        found.sort(key=lambda pair: (pair[0] not in killers, pair[1]))
        return [(self.items[n], s) for n, s in found if n in self.items]


def _statement(lines, line):
    """The probe line of the statement holding `line`: the nearest one at or above it."""
    above = [n for n in lines if n <= line]
    return max(above) if above else line
