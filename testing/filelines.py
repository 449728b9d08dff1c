"""A file's changed lines built from their texts and numbers, as the content rules' tests give them."""

from __future__ import annotations

from collections.abc import Sequence

from tiergate.tier.content.patch import FileLines, Run


def file_lines(
    path: str,
    added: Sequence[str] = (),
    added_numbers: Sequence[int] = (),
    removed: Sequence[str] = (),
    removed_numbers: Sequence[int] = (),
) -> FileLines:
    """`path`'s changed lines (texts without their marks), grouped into runs of consecutive numbers."""
    return FileLines(path, _runs("+", added, added_numbers), _runs("-", removed, removed_numbers))


def _runs(mark: str, texts: Sequence[str], numbers: Sequence[int]) -> list[Run]:
    runs: list[Run] = []
    for number, text in zip(numbers, texts, strict=True):
        if runs and runs[-1].number + len(runs[-1].lines) == number:
            runs[-1].lines.append(mark + text)
        else:
            runs.append(Run(number, [mark + text]))
    return runs
