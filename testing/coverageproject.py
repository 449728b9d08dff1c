"""A tiny Python project whose change the coverage tests judge, and coverage.py run on it in each format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testing.gitrepo import git, init_repo, write
from tiergate.tier.change import measure_change
from tiergate.tier.coverage.judgement import CoverageJudgement, judge_coverage

BASE_CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
# Lines 2-3 and 7-8 are new; all four are statements.
CHANGED_CALC = (
    "def add(a, b):\n    total = a + b\n    return total\n\n\n"
    "def sub(a, b):\n    diff = a - b\n    return diff\n"
)
DRIVER = "import sys\n\nimport calc\n\nfor name in sys.argv[1:]:\n    getattr(calc, name)(3, 2)\n"
AN_HOUR = 3600 * 10**9


def judge(repo: Path) -> CoverageJudgement:
    return judge_coverage(measure_change(repo))


def age(path: Path, ns: int = AN_HOUR) -> None:
    """Make `path` older by `ns`, so that data written afterwards is newer whatever the clock's grain."""
    mtime = path.lstat().st_mtime_ns - ns
    os.utime(path, ns=(mtime, mtime), follow_symlinks=False)


# coverage.py's command line, run once for each list of arguments, in one process: a process of its own
# each (the run, then the report) was twice the interpreter starts for the same files.
_COMMANDS = """
import json, sys
from coverage.cmdline import main
for args in json.loads(sys.argv[1]):
    if main(args) != 0:
        sys.exit(f"coverage {' '.join(args)} failed")
"""


def coverage(repo: Path, *commands: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    subprocess.run(
        [sys.executable, "-c", _COMMANDS, json.dumps(commands)],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )


REPORTS = {
    "coverage.json": ("coverage.py JSON", ["json", "-q", "-o", "coverage.json"]),
    ".coverage": ("coverage.py data", []),
    "coverage.xml": ("Cobertura XML", ["xml", "-q", "-o", "coverage.xml"]),
    "build/coverage.xml": ("Cobertura XML", ["xml", "-q", "-o", "build/coverage.xml"]),
    "coverage.lcov": ("LCOV", ["lcov", "-q"]),
    "coverage/lcov.info": ("LCOV", ["lcov", "-q", "-o", "coverage/lcov.info"]),
}


def measure(repo: Path, calls: list[str], report: str) -> None:
    """Run the driver under coverage.py, calling `calls`, and leave only the `report` behind."""
    then = REPORTS[report][1]
    coverage(repo, ["run", "drive.py", *calls], *([then] if then else []))
    if then:
        (repo / ".coverage").unlink()


def commit(repo: Path, files: dict[str, str]) -> None:
    """Commit `files` alone, leaving the rest of the work tree's change in place."""
    write(repo, files)
    git(repo, "add", "--", *files)
    git(repo, "commit", "-q", "-m", "more files")


def calc_project(tmp_path: Path) -> Path:
    """A tiny Python project whose change rewrites both function bodies: four new executable lines."""
    repo = init_repo(tmp_path / "calc", {"calc.py": BASE_CALC, "drive.py": DRIVER, "README.md": "calc\n"})
    write(repo, {"calc.py": CHANGED_CALC})
    age(repo / "calc.py")
    return repo
