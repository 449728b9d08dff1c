"""A claim's measurement begun at the Stop's start, in a child (`handlers.earlymeasure.measure_early`): on
a real loop and a real git repository, the child's change is the change the Stop would have measured itself,
its content judgement is the built-in rules' own, and it is used only where the loop's validated
configuration agrees with what it was begun with."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from testing.clientproject import CLAIM, CONTENT_OFF, INSECURE, OWN_RULE, Loop
from testing.cpus import two_cpus  # noqa: F401  (a fixture)
from testing.gitrepo import write
from testing.statefolder import state_dir

from tiergate import foreign
from tiergate.handlers import earlymeasure, looprules
from tiergate.project import Project
from tiergate.tier import change as tier_change
from tiergate.tier.assess import judge_content, measure_for

pytestmark = pytest.mark.usefixtures("two_cpus")  # the child is what is tested, whatever the machine


def claimed(tmp_path: Path, config: str | None = None) -> tuple[Loop, Project]:
    loop = Loop(tmp_path) if config is None else Loop(tmp_path, config)
    loop.start()
    new = "import os\nos.system(cmd)\ncharge_card(order)\n"
    write(loop.project, {"app/client.py": INSECURE, "app/new.py": new})
    return loop, Project(loop.project, state_dir(loop.project, loop.env))


def test_the_early_change_and_content_are_the_ones_the_stop_would_measure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop, project = claimed(tmp_path)
    measured_by = tmp_path / "measured by"
    measure_change = tier_change.measure_change

    def noted(*args: Any, **kwargs: Any) -> tier_change.ChangeMeasurement:
        with measured_by.open("a") as written:  # which process measured: the test's, or a child
            written.write(f"{os.getpid()}\n")
        return measure_change(*args, **kwargs)

    monkeypatch.setattr(tier_change, "measure_change", noted)
    early = earlymeasure.measure_early(loop.payload("Stop", last_assistant_message=CLAIM), project)
    assert early is not None and early.with_patch and early.built_in

    current = loop.loop()
    config, base = looprules.loop_config(project, current), current.change_base or "HEAD"
    change, content = earlymeasure.change_and_content(project, config, foreign.of_loop(current), base, early)

    assert change is early.work.first()  # the child's
    ran = [int(pid) for pid in measured_by.read_text().split()]
    assert len(ran) == 1 and ran[0] != os.getpid()  # measured once, in a child, not here
    measured = measure_for(project.root, base, config, foreign.of_loop(current))
    assert change == measured
    assert content() == judge_content(measured, config)
    assert {h.construct for h in content().hits} >= {"TLS verification switch", "process execution"}


def test_no_early_measurement_without_a_claim_or_while_work_is_in_flight(tmp_path: Path) -> None:
    loop, project = claimed(tmp_path)
    assert (
        earlymeasure.measure_early(loop.payload("Stop", last_assistant_message="still working"), project)
        is None
    )
    busy = loop.payload("Stop", last_assistant_message=CLAIM, background_tasks=[{"description": "npm test"}])
    assert earlymeasure.measure_early(busy, project) is None


@pytest.mark.parametrize(("config", "with_patch"), [(CONTENT_OFF, False), (OWN_RULE, True)])
def test_the_early_measurement_follows_the_kept_configuration(
    tmp_path: Path, config: str, with_patch: bool
) -> None:
    loop, project = claimed(tmp_path, config)
    early = earlymeasure.measure_early(loop.payload("Stop", last_assistant_message=CLAIM), project)
    # With rules of its own kept, the child does not read the lines with the built-in ones alone.
    assert early is not None and (early.with_patch, early.built_in) == (with_patch, False)

    current = loop.loop()
    kept, base = looprules.loop_config(project, current), current.change_base or "HEAD"
    change, content = earlymeasure.change_and_content(project, kept, foreign.of_loop(current), base, early)

    assert change is early.work.first()  # the child's: the configuration agrees on the patch
    assert change == measure_for(project.root, base, kept, foreign.of_loop(current))
    assert content() == judge_content(change, kept)  # the kept rule too, not the built-in ones alone
    assert ("billing API call" in {h.construct for h in content().hits}) is with_patch
