"""The rules a loop decides by: the configuration it kept at its start, and the intervention and stall
policies that configuration sets."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.loop.state import Policies

if TYPE_CHECKING:
    from tiergate.config.settings import Config
    from tiergate.loop.state import LoopState
    from tiergate.project import Project


def loop_config(project: Project, current: LoopState) -> Config:
    """The rules of `current`: the configuration it kept at its start, whatever the workspace's
    `.tiergate.toml` says now (the agent can edit that; an edit is a change to verify, not a change
    of the gate). A loop stored before configurations were kept reads the project's, as it did."""
    from tiergate.config.settings import kept_config, load_config

    if current.config is None:
        return load_config(project.root)
    return kept_config(current.config_source, current.config)


def policies(config: Config) -> Policies:
    from tiergate.loop.interventions import InterventionPolicy
    from tiergate.loop.stalls import StallPolicy

    i, s = config.interventions, config.stalls
    return Policies(
        interventions=InterventionPolicy(
            attempt_limit=i.attempt_limit,
            skip_limit=i.skip_limit,
            failure_limit=i.failure_limit,
            rollback_on_retry=i.rollback_on_retry,
        ),
        stalls=StallPolicy(same_failure=s.same_failure, empty_turns=s.empty_turns),
    )
