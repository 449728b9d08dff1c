"""The schema of a `tiergate tier --batch` line, as pydantic models: what a line may be."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tiergate.tier.policy import Coverage


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    lines_changed: int = Field(ge=0)
    prompt: str | None = None


class FilesLine(_Line):
    files: list[str]
    test_coverage: Coverage = "partial"


class MetadataLine(_Line):
    files_changed: int = Field(ge=0)
    has_architectural_changes: bool
    has_security_implications: bool
    test_coverage: Coverage


def parse(data: dict[str, Any]) -> FilesLine | MetadataLine:
    """The line `data` validated, or ValueError naming at most three problems (the batch words it as the
    line's error)."""
    try:
        return FilesLine.model_validate(data) if "files" in data else MetadataLine.model_validate(data)
    except ValidationError as exc:
        raise ValueError(_describe(exc)) from None


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        key = ".".join(str(p) for p in error["loc"]) or "(line)"
        message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
        parts.append(f"{key}: {message}")
    return "; ".join(parts)
