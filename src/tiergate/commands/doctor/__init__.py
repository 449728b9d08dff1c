"""`tiergate doctor [--json]`: is tiergate installed and wired into Claude Code, and is this project ready?

One finding per line, each `ok`, `warn` or `fail`; the exit code is 1 if anything failed. A missing Claude
Code, plugin or configuration is a finding, never a crash. Nothing is left behind: the state folder's
write test removes what it created.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from pathlib import Path

from tiergate.claudecode.installation import claude_config_dir, claude_program
from tiergate.commands.doctor.checksetup import check_findings, coverage_finding
from tiergate.commands.doctor.claudeplugin import claude_finding, hook_python_finding, plugin_finding
from tiergate.commands.doctor.finding import Finding
from tiergate.commands.doctor.neighbours import claude_loop_findings, neighbour_findings
from tiergate.commands.doctor.projectsetup import (
    git_finding,
    isolation_finding,
    legacy_state_finding,
    state_finding,
)
from tiergate.commands.doctor.tiergatepackage import install_route, package_finding, this_checkout
from tiergate.project import locate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the findings as one JSON object")


def run(args: argparse.Namespace) -> int:
    findings = diagnose(Path.cwd(), os.environ)
    failed = any(f.status == "fail" for f in findings)
    if args.json:
        report = {
            "ok": not failed,
            "state_dir": str(locate(Path.cwd(), os.environ).state_dir.absolute()),
            "findings": [f.to_dict() for f in findings],
            "checks": [f.check for f in findings if f.check is not None],
            "problems": [f"{f.name}: {f.detail}" for f in findings if f.status == "fail"],
        }
        print(json.dumps(report, indent=2))
    else:
        for finding in findings:
            print(f"{finding.status:<4}  {finding.name}: {finding.detail}")
    return 1 if failed else 0


def diagnose(cwd: Path, env: Mapping[str, str]) -> list[Finding]:
    project = locate(cwd, env)
    route = install_route(env)
    has_claude = claude_program(env)[1] is not None
    plugin, plugin_root = plugin_finding(claude_config_dir(env), project.root, route, has_claude)
    # Without an installed plugin, the likeliest setup is this checkout used with --plugin-dir.
    launcher_root = plugin_root or this_checkout()
    return [
        package_finding(route),
        plugin,
        hook_python_finding(env, launcher_root, plugin_installed=plugin.status != "warn"),
        claude_finding(env),
        git_finding(project),
        isolation_finding(),
        *check_findings(project, env.get("PATH")),
        *coverage_finding(project),
        state_finding(project),
        *claude_loop_findings(project),
        *neighbour_findings(project, env),
        *legacy_state_finding(project),
    ]
