"""A second CPU for the tests of work tiergate hands to a child only where it has one (`offload`): the
fork is what they test, whatever the machine running them has."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def two_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """`os.cpu_count()` answers 2 for the test."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
