"""Check time limits: the configured one as it is, else a multiple of the base's time with a floor."""

from __future__ import annotations

from tiergate.gate.timeouts import CAP, FLOOR, MULTIPLE, TimeLimits


def test_a_configured_limit_is_kept_whatever_the_base_took() -> None:
    limits = TimeLimits(12.0)
    assert limits.limit(None) == limits.limit(1000.0) == limits.ceiling == 12.0
    assert limits.against_base(12.0, 1.0) == ""


def test_with_none_configured_the_limit_follows_the_base_within_its_floor_and_cap() -> None:
    limits = TimeLimits()
    assert limits.follows_base and limits.ceiling == CAP
    assert limits.limit(None) == CAP  # not known yet: nothing is cut for tiergate's ignorance
    assert limits.limit(1.0) == FLOOR
    assert limits.limit(100.0) == MULTIPLE * 100.0
    assert limits.limit(10 * CAP) == CAP


def test_a_timeout_says_how_long_the_check_ran_against_the_base() -> None:
    said = TimeLimits().against_base(30.2, 1.4)
    assert "it ran 30 s, and took 1 s when the loop began" in said
    assert TimeLimits().against_base(30.0, None) == ""
