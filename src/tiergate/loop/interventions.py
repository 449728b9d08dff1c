"""What to do after a refuted attempt: the seed's table of interventions, as one function with its reasons.
The table, why a rollback follows dirtiness and not counts, how stalls and attempts are counted:
docs/judging.md, "After a refutation". Pure: the caller measures dirtiness (`greenpoint.is_dirty`) and
performs the rollback (`putback.rollback`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from tiergate.frozen import frozen
from tiergate.loop.stalls import PROGRESS_STALLS, Stall
from tiergate.text import plural


@frozen
class InterventionPolicy:
    attempt_limit: int = 3  # refuted attempts at one item before changing approach
    skip_limit: int = 3  # items given up: the one that would reach this many halts instead
    # Refuted attempts in a row, whatever the items, that halt; None: attempt_limit x skip_limit, what
    # giving up skip_limit items in a row takes, so that the limit only catches what the others miss.
    failure_limit: int | None = None
    # The seed cleans a dirty workspace before every retry (its attempts are whole patches). A loop that
    # keeps working on its own changes, guided by the critique, would lose the part that was right.
    rollback_on_retry: bool = False

    @property
    def failures_allowed(self) -> int:
        return self.failure_limit if self.failure_limit is not None else self.attempt_limit * self.skip_limit


INTERVENTION_POLICY = InterventionPolicy()


@frozen
class Attempt:
    """One verdict on an item: passed, or refuted with its reason."""

    item: str
    passed: bool
    reason: str = ""


@frozen
class Retry:
    item: str
    attempt: int  # the number of the attempt to make now
    limit: int
    rollback_first: bool  # only with `rollback_on_retry` and a dirty workspace
    message: str  # for Claude
    reasons: tuple[str, ...]


@frozen
class ChangeApproach:
    item: str  # the item given up
    attempts: int
    message: str  # for Claude
    reasons: tuple[str, ...]


@frozen
class RollbackThenChangeApproach:
    item: str
    attempts: int
    message: str  # for Claude, once the rollback is done
    reasons: tuple[str, ...]


@frozen
class Halt:
    reason: str
    skipped: tuple[str, ...]  # the items given up so far, in order
    dirty: bool  # the workspace is left as it is for the user
    message: str  # for the user (systemMessage, `tiergate status`, the alert command)
    reasons: tuple[str, ...]


Intervention = Retry | ChangeApproach | RollbackThenChangeApproach | Halt


def choose(
    record: Sequence[Attempt],
    item: str,
    dirty: bool,
    stalls: Sequence[Stall] = (),
    policy: InterventionPolicy = INTERVENTION_POLICY,
) -> Intervention:
    """The intervention after `item`'s latest refuted attempt, which `record` already holds."""
    spent = [s for s in stalls if s.kind not in PROGRESS_STALLS]
    if spent:
        return _halt(spent[0].reason, record, (), dirty)
    attempts = attempts_of(record, item)
    stalled = tuple(s.reason for s in stalls if s.kind in PROGRESS_STALLS)
    at_limit = attempts >= policy.attempt_limit or bool(stalled)
    why_limit = stalled or (
        f"attempt-limit: {item} was refuted {attempts} times (limit {policy.attempt_limit})",
    )
    given_up = (*skipped_items(record), item)
    if at_limit and len(given_up) >= policy.skip_limit:
        why = (
            f"skip-limit: {plural(len(given_up), 'item')} given up ({', '.join(given_up)}; "
            f"limit {policy.skip_limit}): "
            "the premise is wrong, and going on only burns budget"
        )
        return _halt(why, record, (*why_limit, why), dirty, given_up)
    in_a_row = failures_in_a_row(record)
    if in_a_row >= policy.failures_allowed:
        why = f"failure-limit: {in_a_row} refuted attempts in a row (limit {policy.failures_allowed})"
        return _halt(why, record, (), dirty)
    last = _last_failure(record, item)
    if not at_limit:
        return _retry(item, attempts, last, dirty, policy)
    if dirty:
        return RollbackThenChangeApproach(
            item,
            attempts,
            _change_message(item, attempts, last, rolled_back=True),
            (*why_limit, "dirty: the workspace differs from the last green point: roll back to it first"),
        )
    return ChangeApproach(
        item,
        attempts,
        _change_message(item, attempts, last, rolled_back=False),
        (*why_limit, "clean: the workspace is at the last green point: nothing to roll back"),
    )


def attempts_of(record: Sequence[Attempt], item: str) -> int:
    """`item`'s refuted attempts since its last pass."""
    count = 0
    for attempt in record:
        if attempt.item == item:
            count = 0 if attempt.passed else count + 1
    return count


def done_items(record: Sequence[Attempt]) -> tuple[str, ...]:
    """Items whose last attempt passed, in the order they were first tried."""
    last: dict[str, bool] = {}
    for attempt in record:
        last[attempt.item] = attempt.passed
    return tuple(item for item, passed in last.items() if passed)


def skipped_items(record: Sequence[Attempt]) -> tuple[str, ...]:
    """Items not done that the record moved away from (a later attempt went to another item)."""
    done = set(done_items(record))
    skipped: list[str] = []
    for attempt, later in itertools.pairwise(record):
        if later.item != attempt.item and attempt.item not in done and attempt.item not in skipped:
            skipped.append(attempt.item)
    # An item tried again after it was left is back in play until it is left again.
    current = record[-1].item if record else None
    return tuple(item for item in skipped if item != current)


def failures_in_a_row(record: Sequence[Attempt]) -> int:
    count = 0
    for attempt in reversed(record):
        if attempt.passed:
            break
        count += 1
    return count


def approach_item(task: str, number: int) -> str:
    """The item id of a single-task loop's `number`-th approach (1: the task itself)."""
    return task if number <= 1 else f"{task}#{number}"


def _last_failure(record: Sequence[Attempt], item: str) -> str:
    for attempt in reversed(record):
        if attempt.item == item and not attempt.passed:
            return attempt.reason
    return ""


def _retry(item: str, attempts: int, last: str, dirty: bool, policy: InterventionPolicy) -> Retry:
    rollback_first = policy.rollback_on_retry and dirty
    because = last or "no reason was given; find it by running the checks yourself"
    # The count is of the attempts made, the one just refuted included: the first refutation says
    # "Attempt 1 of 3", and how many are left is said apart, so neither reads as the other.
    left = policy.attempt_limit - attempts
    message = (
        f"Attempt {attempts} of {policy.attempt_limit} at {item} was refuted: {because}\n"
        f"Do not resubmit the same thing: deal with that failure first, then claim again "
        f"({plural(left, 'attempt')} left before the approach must change)."
    )
    if rollback_first:
        message = "The workspace was rolled back to the last green point first.\n" + message
    reasons = (
        f"under-limit: {item} was refuted {attempts} of {policy.attempt_limit} allowed times: retry with "
        "the failure's reason",
        "dirty: rolled back before the retry (rollback_on_retry)"
        if rollback_first
        else ("dirty: the workspace is kept for the retry" if dirty else "clean: nothing to roll back"),
    )
    return Retry(item, attempts + 1, policy.attempt_limit, rollback_first, message, reasons)


def _change_message(item: str, attempts: int, last: str, *, rolled_back: bool) -> str:
    lines = [f"{item} failed {attempts} time{'s' if attempts != 1 else ''}; the same approach will not pass."]
    if last:
        lines.append(f"The last failure: {last}")
    if rolled_back:
        lines.append(
            "tiergate rolled the workspace back to the last green point; the changes are saved "
            "(`tiergate backups` lists them)."
        )
    lines.append("Change approach: move on to the next item, or take a different route to this one.")
    return "\n".join(lines)


def _halt(
    why: str,
    record: Sequence[Attempt],
    reasons: tuple[str, ...],
    dirty: bool,
    skipped: tuple[str, ...] | None = None,
) -> Halt:
    given_up = skipped if skipped is not None else skipped_items(record)
    lines = [f"tiergate halted the loop: {why}."]
    if given_up:
        lines.append(f"Given up: {', '.join(given_up)}.")
    done = done_items(record)
    if done:
        lines.append(f"Done: {', '.join(done)}.")
    lines.append(
        "The workspace is left as it is for you to look at."
        if dirty
        else "The workspace is at the last green point."
    )
    return Halt(why, given_up, dirty, " ".join(lines), reasons or (why,))
