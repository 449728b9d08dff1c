"""What a hook pays to import tiergate, with its records made by `tiergate.frozen` and by the standard
`dataclasses.dataclass(frozen=True)`, in the same run.

    .venv/bin/python -m bench.hook_import_bench [--runs N]

Each run is a fresh interpreter (this checkout's venv) that imports what a claim's Stop imports (the
handler, the gate, the tier rules), the same list for both, with `tiergate.frozen.frozen` swapped for the
standard decorator in the second case before anything else is imported. A bare `python -c pass` is the
floor. Runs are interleaved, so that machine noise hits each case alike; figures are CPU time (user +
system) of the child, medians.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys

MODULES = (
    "tiergate.hook.entry",
    "tiergate.handlers.stop",
    "tiergate.handlers.subagent_stop",
    "tiergate.handlers.user_prompt_submit",
    "tiergate.gate.run",
    "tiergate.tier.assess",
)
IMPORTS = "; ".join(f"import {module}" for module in MODULES)
STDLIB = "import dataclasses, tiergate.frozen; tiergate.frozen.frozen = dataclasses.dataclass(frozen=True)"
CASES = {
    "bare interpreter": "pass",
    "tiergate.frozen records": IMPORTS,
    "dataclasses records": f"{STDLIB}; {IMPORTS}",
}


def cpu_of(code: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(runs):
        for name, code in CASES.items():
            times[name].append(cpu_of(code))
    medians = {name: statistics.median(values) for name, values in times.items()}
    floor = medians["bare interpreter"]
    for name, median in medians.items():
        print(f"{name:26} {median * 1000:6.1f} ms CPU  ({median - floor:.3f} s over the bare interpreter)")
    ours, theirs = (medians[n] - floor for n in ("tiergate.frozen records", "dataclasses records"))
    print(f"imports with tiergate.frozen cost {ours / theirs:.2f} of those with dataclasses ({runs} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
