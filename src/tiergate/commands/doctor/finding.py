"""One line of `tiergate doctor`: a status (ok, warn or fail), what it is about, and the detail."""

from __future__ import annotations

from typing import Any

from tiergate.frozen import frozen


@frozen
class Finding:
    status: str  # ok, warn or fail
    name: str
    detail: str
    check: dict[str, Any] | None = None  # a check's facts, for --json

    def to_dict(self) -> dict[str, str]:
        return {"status": self.status, "name": self.name, "detail": self.detail}
