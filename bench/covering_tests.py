"""The test files of a JavaScript library's change that run its changed lines, for the mutation bench's
`--libraries` list: T is one run of the tests that cover the change, as the issue measures it.

    .venv/bin/python -m bench.covering_tests LIBRARIES.json OUT.json

Each entry of LIBRARIES.json is as `bench.mutation_bench` reads it (`repo`, `parent`, `commit`, `node`);
its `tests` are replaced by the files under `test/` whose own `node --test` process, with V8 coverage on,
runs a changed line of code (tiergate's own reading of V8's ranges), the change checked out at `commit`.
A test file that fails there is left out. The checkout is left at `parent`, as the bench expects.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tiergate.tier.content.patch import parse_patch
from tiergate.tier.coverage.lines import v8_file_lines


def changed_lines(repo: Path, parent: str, commit: str) -> dict[str, set[int]]:
    """The lines each changed JavaScript file outside `test/` has at `commit` that `parent` had not."""
    diff = subprocess.run(
        ["git", "-C", str(repo), "diff", "-U0", parent, commit, "--", "*.js", "*.cjs"],
        capture_output=True,
        check=True,
    ).stdout
    return {f.path: set(f.added_numbers) for f in parse_patch(diff) if not f.path.startswith("test/")}


def runs_a_changed_line(repo: Path, test: str, lines: dict[str, set[int]]) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "NODE_V8_COVERAGE": folder}
        done = subprocess.run(["node", "--test", test], cwd=repo, env=env, capture_output=True, check=False)
        if done.returncode != 0:
            return False
        for report in Path(folder).glob("coverage-*.json"):
            for script in json.loads(report.read_text())["result"]:
                for path, numbers in lines.items():
                    if script["url"] == (repo / path).resolve().as_uri():
                        ran = v8_file_lines((repo / path).read_text(), script["functions"]).hit
                        if ran & numbers:
                            return True
    return False


def covering(entry: dict[str, Any]) -> list[str]:
    repo = Path(entry["repo"])
    git = ["git", "-C", str(repo)]
    subprocess.run([*git, "checkout", "-qf", "--detach", entry["commit"]], check=True)
    try:
        lines = changed_lines(repo, entry["parent"], entry["commit"])
        tests = sorted(str(p.relative_to(repo)) for p in (repo / "test").glob("*.test.js"))
        return [test for test in tests if runs_a_changed_line(repo, test, lines)]
    finally:
        subprocess.run([*git, "checkout", "-qf", "--detach", entry["parent"]], check=True)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    entries: list[dict[str, Any]] = json.loads(Path(sys.argv[1]).read_text())
    for entry in entries:
        if entry.get("node"):
            entry["tests"] = covering(entry)
            print(f"{entry['name']}: {len(entry['tests'])} test files", file=sys.stderr)
    Path(sys.argv[2]).write_text(json.dumps(entries, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
