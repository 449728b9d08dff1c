"""The seed's experiment: how many features a shallow check and tiergate's gate claim done, and how many work.

Run from the repository root: `.venv/bin/python -m bench.seed_experiment [--work DIR]`.

It plays the fixture's script (`tests/fixtures/seed_service/catalog.toml`) under the shallow check
("the patch was written into the file") and under tiergate's gate (syntax, the new feature's probes and
the regression suite of every feature already done), then runs every claimed feature's probes on the
final service, and prints the seed's table (claimed done / really working / false claims) with what
broke. Exits 1 unless the shape holds: the gate has no false claim and the shallow check has some.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from testing.seed_experiment import load_catalog, report, run_experiment


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, help="keep the repositories here (default: a temporary folder)")
    args = parser.parse_args()
    catalog = load_catalog()
    with tempfile.TemporaryDirectory(prefix="seed-experiment-") as tmp:
        started = time.perf_counter()
        experiment = run_experiment(catalog, args.work or Path(tmp))
        elapsed = time.perf_counter() - started
    print(report(experiment))
    print(f"The whole run took {elapsed:.1f} s.")
    return 0 if not experiment.gate.false_claims and experiment.shallow.false_claims else 1


if __name__ == "__main__":
    raise SystemExit(main())
