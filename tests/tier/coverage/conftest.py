from __future__ import annotations

from pathlib import Path

import pytest
from testing.coverageproject import calc_project


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    return calc_project(tmp_path)
