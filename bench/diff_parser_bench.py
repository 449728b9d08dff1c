"""tiergate's own `-U0` diff reader (`tiergate.tier.content.patch`) against the unidiff library, in one run.

    .venv/bin/python -m bench.diff_parser_bench [--runs N] [--range A..B]

A claim reads one `git diff -U0 -M` twice: the content rules need each changed line's text, the coverage
judgement the new-side line numbers. Printed: what importing each parser adds to the claim's imports
(fresh interpreters, interleaved, CPU medians, against `tiergate.tier.assess` alone), and the time each
takes to read this checkout's diff over RANGE (default: its first commit to HEAD), medians: the hand
reader, unidiff's headers-only parse (line numbers only), and unidiff's full parse (the lines' text, what
the content rules would need). unidiff is a dev dependency, kept for this comparison.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(CHECKOUT / "src"))

from tiergate.tier.content.patch import parse_patch  # noqa: E402

CLAIM = "import tiergate.tier.assess"
IMPORTS = {
    "bare interpreter": "pass",
    "claim's imports (hand reader in them)": CLAIM,
    "claim's imports + unidiff": f"{CLAIM}; import unidiff.patch, unidiff.errors",
}
_HEADER_STARTS = ("+", "-", " ", "@", "\\")

Lines = dict[str, frozenset[int]]


def cpu_of(code: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def hand(patch: bytes) -> Lines:
    return {f.path: frozenset(f.added_numbers) for f in parse_patch(patch) if f.added_runs}


def unidiff_headers(patch: bytes) -> Lines:
    """The coverage judgement's former reader: hunk headers only, after dropping git's extended headers
    (unidiff splits a `diff --git` line at the wrong space when a path holds " b/")."""
    from unidiff.patch import PatchSet

    text = patch.decode("utf-8", "surrogateescape")
    kept = [line + "\n" for line in text.split("\n") if line.startswith(_HEADER_STARTS)]
    return {
        f.target_file[2:]: frozenset(
            n for h in f for n in range(h.target_start, h.target_start + h.target_length)
        )
        for f in PatchSet(kept, metadata_only=True)
        if f.target_file.startswith("b/")
    }


def unidiff_full(patch: bytes) -> Lines:
    """Every line read with its text, as the content rules would need."""
    from unidiff.patch import PatchSet

    text = patch.decode("utf-8", "surrogateescape")
    kept = [line + "\n" for line in text.split("\n") if line.startswith(_HEADER_STARTS)]
    return {
        f.target_file[2:]: frozenset(
            line.target_line_no for h in f for line in h if line.is_added and line.target_line_no is not None
        )
        for f in PatchSet(kept)
        if f.target_file.startswith("b/")
    }


def seconds_of(parse: Callable[[bytes], Lines], patch: bytes, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        parse(patch)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def diff_of(rev_range: str | None) -> bytes:
    if rev_range is None:
        root = subprocess.run(
            ["git", "-C", str(CHECKOUT), "rev-list", "--max-parents=0", "HEAD"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[0]
        rev_range = f"{root}..HEAD"
    command = [
        "git",
        "-C",
        str(CHECKOUT),
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "-U0",
        "-M",
    ]
    options = ["--src-prefix=a/", "--dst-prefix=b/", rev_range]
    return subprocess.run([*command, *options], check=True, capture_output=True).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--range", dest="rev_range")
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in IMPORTS}
    for _ in range(args.runs):
        for name, code in IMPORTS.items():
            times[name].append(cpu_of(code))
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        print(f"import: {name:40} {median * 1000:6.1f} ms CPU")
    claim = medians["claim's imports (hand reader in them)"]
    extra = medians["claim's imports + unidiff"] - claim
    print(
        f"import: unidiff adds {extra * 1000:.1f} ms, {extra / claim:.1%} of the claim's imports",
        f"({args.runs} runs)",
    )
    patch = diff_of(args.rev_range)
    readers = {
        "hand reader": hand,
        "unidiff, headers only": unidiff_headers,
        "unidiff, full lines": unidiff_full,
    }
    answers = {name: read(patch) for name, read in readers.items()}
    same = all(answer == answers["hand reader"] for answer in answers.values())
    print(
        f"parse: {len(patch) / 1e6:.1f} MB of -U0 diff, {len(answers['hand reader'])} files;",
        f"the same line numbers from each: {same}",
    )
    floor = seconds_of(hand, patch, args.runs)
    for name, read in readers.items():
        took = floor if read is hand else seconds_of(read, patch, args.runs)
        print(f"parse: {name:24} {took * 1000:7.1f} ms  ({took / floor:.2f}x the hand reader)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
