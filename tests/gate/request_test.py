"""A gate request as the Stop writes it for its background job and the job reads it back."""

from __future__ import annotations

import pytest

from tiergate import foreign
from tiergate.gate.checks import make_check
from tiergate.gate.request import GateRequest
from tiergate.gate.timeouts import TimeLimits


def test_a_request_reads_back_as_it_was_written() -> None:
    checks = (
        make_check("accept", "sh accept.sh", "feature acceptance check"),
        make_check("tests", "pytest", "x"),
    )
    request = GateRequest(
        base="abc123",
        checks=checks,
        strict=frozenset({checks[0].key}),
        exclusions=foreign.Exclusions(("build/",), ".tiergate.toml"),
        limits=TimeLimits(42.0),
        refute_regressions=True,
    )
    again = GateRequest.from_record(request.to_record())
    assert again.checks == request.checks and [c.key for c in again.checks] == [c.key for c in checks]
    assert again.strict == request.strict and again.limits == request.limits
    assert again.exclusions.ignore == ("build/",) and again.exclusions.source == ".tiergate.toml"
    assert (again.base, again.refute_regressions, again.timeout) == ("abc123", True, 42.0)
    assert GateRequest.from_record(GateRequest(None, checks).to_record()).limits.follows_base


@pytest.mark.parametrize(
    "damage",
    [
        {"checks": [["tests", "pytest", "no-such-kind", "x"]]},
        {"checks": "pytest"},
        {"timeout_seconds": "soon"},
        {"strict": None},
    ],
)
def test_a_damaged_request_is_refused(damage: dict[str, object]) -> None:
    record = {**GateRequest(None, (make_check("tests", "pytest", "x"),)).to_record(), **damage}
    with pytest.raises(ValueError, match="not a gate request"):
        GateRequest.from_record(record)
