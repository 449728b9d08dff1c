"""What became of a claim's mutants, and what that says of its tests: a mutant that every test covering its
line survives is a line the tests run but do not check. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from tiergate.frozen import frozen
from tiergate.text import ITEM_AND_MORE, PAREN_AND_MORE, more_line, more_than, plural, quote_inline
from tiergate.tier.mutation.mutants import Mutant

# killed: a covering test failed (or ran out of its time) with the mutant in; survived: every covering
# test passed; uncovered: no test ran its line (coverage says so already); not_run: it could not be put
# in the tests' process (its function not found, the time ran out first).
Fate = Literal["killed", "survived", "uncovered", "not_run"]
FATES: tuple[Fate, ...] = get_args(Fate)
# How many survivors a reason names before "and N more", and the verifier's packet.
NAMED = 3
PACKET_SURVIVORS = 12


@frozen
class Tried:
    mutant: Mutant
    fate: Fate
    by: str = ""  # killed: the test that failed; not_run: why

    def to_record(self) -> dict[str, Any]:
        return {"mutant": self.mutant.to_record(), "fate": self.fate, "by": self.by}

    @staticmethod
    def from_record(record: Mapping[str, Any]) -> Tried:
        fate = record["fate"]
        if fate not in FATES:
            raise ValueError(f"not a mutant's fate: {fate!r}")
        return Tried(Mutant.from_record(record["mutant"]), fate, str(record["by"]))


@frozen
class MutationRun:
    """The mutation step of one gate run: each mutant's fate; the changed lines of code no mutant was
    made for, with why ("calc.py:3: ..."); why its kills say nothing (`void`: the tests failed on a copy
    of the code that behaves the same); why it did not finish (`incomplete`); why it did not run (`off`)."""

    tried: tuple[Tried, ...] = ()
    skipped: tuple[str, ...] = ()
    void: str = ""
    incomplete: str = ""
    off: str = ""
    seconds: float = 0.0

    def joined(self, other: MutationRun) -> MutationRun:
        """This step and `other` (another language's) as one: off only when both are."""
        if other.off and not self.off:
            return self
        if self.off and not other.off:
            return other
        return MutationRun(
            self.tried + other.tried,
            self.skipped + other.skipped,
            "; ".join(v for v in (self.void, other.void) if v),
            "; ".join(v for v in (self.incomplete, other.incomplete) if v),
            "; ".join(v for v in (self.off, other.off) if v),
            self.seconds + other.seconds,
        )

    def of(self, fate: Fate) -> tuple[Tried, ...]:
        return tuple(t for t in self.tried if t.fate == fate)

    def score(self) -> str:
        """ "7 of 9 mutants of the changed lines killed (2 survived)", or why none ran."""
        if self.off:
            return f"mutants not run: {self.off}"
        run = [t for t in self.tried if t.fate in ("killed", "survived")]
        if not run:
            return "no mutant of the changed lines run" + (f" ({self.incomplete})" if self.incomplete else "")
        said = f"{len(self.of('killed'))} of {plural(len(run), 'mutant')} of the changed lines killed"
        extra = [f"{n} {fate.replace('_', ' ')}" for fate in FATES[1:] if (n := len(self.of(fate)))]
        return said + (f" ({', '.join(extra)})" if extra else "")

    def reasons(self) -> tuple[str, ...]:
        """Why the change may not be LIGHT, a reason per rule; () when the mutants say nothing against it."""
        if self.off:
            return ()
        found = []
        survivors = self.of("survived")
        if survivors:
            named = "; ".join(t.mutant.describe() for t in survivors[:NAMED])
            more = more_than(len(survivors), NAMED, PAREN_AND_MORE)
            count = plural(len(survivors), "mutant")
            found.append(
                f"surviving-mutants: every test that runs its line passes with {count} in ({named}{more}): "
                "the tests run the change but do not check it -> at least STANDARD"
            )
        if self.void:
            found.append(
                f"mutants-void: {quote_inline(self.void)}; their failures under mutants say nothing "
                "-> at least STANDARD"
            )
        not_run = self.of("not_run")
        if (self.incomplete or not_run) and not survivors:  # a survivor says it already
            why = quote_inline(self.incomplete or not_run[0].by)
            found.append(
                f"mutants-incomplete: {plural(len(not_run), 'mutant')} of the changed lines not run ({why}) "
                "-> at least STANDARD"
            )
        return tuple(found)

    def packet_text(self) -> str:
        """The verifier's section: the score, and each survivor as a question to answer ("" when none
        ran). Every piece of code in it is the agent's, quoted by `Mutant.describe`."""
        if self.off:
            return ""
        lines = [f"MUTANTS: {self.score()}."]
        survivors = self.of("survived")
        if survivors:
            lines.append(
                "Each mutant below is a change to the claimed code that every test running its line still "
                "passes: the tests run the line but do not check it. Find out whether the change is right "
                "there, and whether a test should pin it:"
            )
            lines += [
                f"- {t.mutant.describe()} leaves every test passing" for t in survivors[:PACKET_SURVIVORS]
            ]
            lines += more_line(len(survivors), PACKET_SURVIVORS, ITEM_AND_MORE)
        if self.void:
            lines.append(f"Their kills say nothing: {quote_inline(self.void)}.")
        return "\n".join(lines)

    def summary(self) -> dict[str, Any]:
        """For the decision log and the report: the score and the survivors."""
        return {
            "score": self.score(),
            "fates": {fate: len(self.of(fate)) for fate in FATES},
            "survivors": [t.mutant.describe() for t in self.of("survived")],
            "seconds": round(self.seconds, 3),
        }

    def to_record(self) -> dict[str, Any]:
        return {
            "tried": [t.to_record() for t in self.tried],
            "skipped": list(self.skipped),
            "void": self.void,
            "incomplete": self.incomplete,
            "off": self.off,
            "seconds": self.seconds,
        }

    @staticmethod
    def from_record(record: Mapping[str, Any]) -> MutationRun:
        """The record `to_record` wrote; ValueError (KeyError, TypeError) for anything else."""
        texts = [record[name] for name in ("void", "incomplete", "off")]
        if not all(isinstance(t, str) for t in texts):
            raise ValueError("not a mutation run")
        return MutationRun(
            tuple(Tried.from_record(t) for t in record["tried"]),
            tuple(str(s) for s in record["skipped"]),
            texts[0],
            texts[1],
            texts[2],
            float(record["seconds"]),
        )
