"""A claim's measurement begun at the Stop's start, in a child (`tiergate.offload`), before the input
is validated and the configuration loaded; and its use once they are."""

from __future__ import annotations

from tiergate import TYPE_CHECKING, foreign
from tiergate.frozen import frozen
from tiergate.handlers.turnend import measures, settled
from tiergate.loop import store as state
from tiergate.loop.claims import check_claim
from tiergate.loop.refutation import may_stand_refuted
from tiergate.workspace import loopbase

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from tiergate.config.settings import Config
    from tiergate.foreign import Exclusions
    from tiergate.loop.state import LoopState
    from tiergate.offload import Staged
    from tiergate.project import Project
    from tiergate.tier.change import ChangeMeasurement
    from tiergate.tier.changedlines import ContentScan


@frozen
class Early:
    """A claim's measurement begun at the Stop's start (`measure_early`), in a child (`tiergate.offload`): the
    change, then the built-in content rules' judgement of it (none when the patch was not asked for, or
    the kept configuration adds rules of its own: `built_in` False)."""

    base: str
    with_patch: bool
    built_in: bool
    work: Staged[ChangeMeasurement, ContentScan]

    def cancel(self) -> None:
        self.work.cancel()


def measure_early(payload: dict[str, Any], project: Project) -> Early | None:
    """The claim's measurement, begun in a child before the input is validated in full and the
    configuration loaded (pydantic's import, most of the Stop's start-up, runs meanwhile): only when the
    raw input already shows a claim that `decide_stop` will measure, by the same rules, and with what the
    loop's state says of the measurement (its base, its exclusions, whether its kept configuration asks
    for the patch). `measure` uses it only where the validated configuration agrees. Measuring changes
    nothing, and any doubt means none: it is only ever time saved."""
    try:
        current = state.read(project, payload["session_id"])
        message = payload.get("last_assistant_message")
        if (
            current is None
            or not current.active
            or current.adopted is not None
            or not isinstance(message, str)
        ):
            return None
        claim = check_claim(message, current.promise)
        if not measures(current, claim, settled(payload)):
            return None
        if may_stand_refuted(current):
            return None
        # A loop begun on a dirty workspace measures from it; when its objects must be copied back
        # first (`loopbase.change_base`), that waits for the input to be known good.
        if current.start is not None:
            loopbase.measure_from_start(current.start)
            if not loopbase.start_present(project, current.start):
                return None
        loopbase.judging(current.started_at)
    except Exception:
        return None
    from tiergate import offload

    base, exclusions = current.change_base or "HEAD", foreign.of_loop(current)
    with_patch, built_in = _content_kept(current)
    root = project.root

    def change() -> ChangeMeasurement:
        from tiergate.tier.change import measure_change

        return measure_change(root, base, exclusions, with_patch)

    content = _built_in_content if built_in else _no_content
    return Early(base, with_patch, built_in, offload.start_staged(change, content))


def _content_kept(current: LoopState) -> tuple[bool, bool]:
    """Whether the loop's kept configuration has content rules on, and whether they are the built-in
    ones alone (no `[[risk.rules]]`), as far as its raw data says (the default is on, with none);
    `measure` checks both against the validated configuration."""
    risk = current.config.get("risk") if current.config is not None else None
    risk = risk if isinstance(risk, dict) else {}
    on = risk.get("content") is not False
    return on, on and not risk.get("rules")


def _built_in_content(change: ChangeMeasurement) -> ContentScan:
    from tiergate.tier.changedlines import judge_change
    from tiergate.tier.content import DEFAULT

    return judge_change(change, DEFAULT)


def _no_content(change: ChangeMeasurement) -> ContentScan:
    from tiergate.tier.changedlines import ContentScan

    return ContentScan(())


def change_and_content(
    project: Project, config: Config, exclusions: Exclusions, base: str, early: Early | None
) -> tuple[ChangeMeasurement, Callable[[], ContentScan]]:
    """The claim's change, and its content judgement as it comes: from the measurement begun early where
    the configuration agrees with what it was begun with (the patch; the built-in rules only), else
    measured now, its changed lines read by a child meanwhile (`tiergate.offload`)."""
    from tiergate import offload
    from tiergate.tier.assess import content_rules, judge_content, measure_for
    from tiergate.tier.content import DEFAULT

    ecosystems = content_rules(config)
    if early is not None and (early.base, early.with_patch) == (base, bool(ecosystems)):
        change = early.work.first()
        if ecosystems == () or (early.built_in and ecosystems == DEFAULT):
            return change, early.work.second
        early.cancel()
    else:
        change = measure_for(project.root, base, config, exclusions)
    return change, offload.start(judge_content, change, config).result
