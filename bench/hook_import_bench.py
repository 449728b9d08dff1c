"""What a hook pays to import tiergate: its records made by `tiergate.frozen` or by the standard
`dataclasses.dataclass(frozen=True)`, and each lean twin (read by hand) against its library path.

    .venv/bin/python -m bench.hook_import_bench [--runs N]

Each run is a fresh interpreter (this checkout's venv) that imports what a claim's Stop imports (the
handler, the gate, the tier rules), or what every hook imports (the entry), and then the library a twin
stands in for: the hook inputs' and the configuration's pydantic schemas, structlog for the decision log,
the batch lines' schema. A bare `python -c pass` is the floor. Runs are interleaved, so that machine noise
hits each case alike; figures are CPU time (user + system) of the child, medians.
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
ENTRY = "import tiergate.hook.entry"
# What the library path of each twin adds to a hook's imports (the lean path adds nothing).
LIBRARIES = {
    "hook inputs: pydantic schema": "import tiergate.hook.inputschema",
    "configuration: pydantic schema": "import tiergate.config.schema",
    "decision log: structlog": "import structlog",
    "batch lines: pydantic schema": "import tiergate.tier.batchschema",
}
CASES = {
    "bare interpreter": "pass",
    "tiergate.frozen records": IMPORTS,
    "dataclasses records": f"{STDLIB}; {IMPORTS}",
    "every hook (the entry)": ENTRY,
    **{f"every hook + {name}": f"{ENTRY}; {code}" for name, code in LIBRARIES.items()},
    **{f"claim's Stop + {name}": f"{IMPORTS}; {code}" for name, code in LIBRARIES.items()},
}
# Whether a path imports a library on its own (then its twin saves nothing) or the batch reader at all.
ON_THE_PATH = (
    "import sys; print(*(m for m in ('pydantic', 'structlog', 'tiergate.tier.batch') if m in sys.modules))"
)


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
        print(f"{name:52} {median * 1000:6.1f} ms CPU  ({median - floor:.3f} s over the bare interpreter)")
    ours, theirs = (medians[n] - floor for n in ("tiergate.frozen records", "dataclasses records"))
    print(f"imports with tiergate.frozen cost {ours / theirs:.2f} of those with dataclasses ({runs} runs)")
    _twins(medians)
    return 0


def _twins(medians: dict[str, float]) -> None:
    """What each library path adds over its lean twin, on each hook path (medians, milliseconds)."""
    for path, base_code, base in (
        ("every hook", ENTRY, "every hook (the entry)"),
        ("claim's Stop", IMPORTS, "tiergate.frozen records"),
    ):
        found = subprocess.run(
            [sys.executable, "-c", f"{base_code}; {ON_THE_PATH}"], check=True, capture_output=True, text=True
        )
        print(f"{path}: already imports {found.stdout.split() or 'none of pydantic, structlog, tier.batch'}")
        for name in LIBRARIES:
            added = medians[f"{path} + {name}"] - medians[base]
            print(f"  {name:32} library path adds {added * 1000:6.1f} ms CPU over the lean one")


if __name__ == "__main__":
    raise SystemExit(main())
