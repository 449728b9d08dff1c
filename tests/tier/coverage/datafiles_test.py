"""The coverage files each tool leaves, read as the judgement reads them: each format, several merged, and
Cobertura's paths relative to its sources or written on another machine."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.coverageproject import REPORTS, age, judge, measure
from testing.gitrepo import init_repo, write

from tiergate.tier.coverage.judgement import CoverageJudgement, Level


@pytest.mark.parametrize("report", list(REPORTS))
@pytest.mark.parametrize(
    ("calls", "level", "tail"),
    [
        (["add", "sub"], "full", "covers 4/4 changed executable lines"),
        (["add"], "partial", "covers 2/4 changed executable lines; not run: calc.py:7-8"),
        ([], "none", "covers 0/4 changed executable lines; not run: calc.py:2-3,7-8"),
    ],
)
def test_fresh_data_of_each_format(
    calc: Path, report: str, calls: list[str], level: Level, tail: str
) -> None:
    measure(calc, calls, report)
    fmt = REPORTS[report][0]
    assert judge(calc) == CoverageJudgement(level, f"{report} ({fmt}, newer than the change) {tail}")


def test_several_data_files_are_merged_across_ecosystems(calc: Path) -> None:
    write(calc, {"web/app.js": "export function f() {\n  return 1;\n}\n"})
    age(calc / "web" / "app.js")
    measure(calc, ["add", "sub"], "coverage.json")
    write(
        calc,
        {"coverage/lcov.info": "TN:\nSF:web/app.js\nFN:1,f\nDA:1,1\nDA:2,0\nLF:2\nLH:1\nend_of_record\n"},
    )
    assert judge(calc) == CoverageJudgement(
        "partial",
        "coverage.json (coverage.py JSON), coverage/lcov.info (LCOV), all newer than the change, "
        "cover 5/6 changed executable lines; not run: web/app.js:2",
    )


def test_cobertura_paths_from_sources_and_from_another_machine(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"README.md": "x\n"})
    write(
        repo,
        {
            "src/main/java/com/acme/Foo.java": "class Foo {\n  int f() {\n    return 1;\n  }\n}\n",
            "svc/handler.go": "package svc\n\nfunc H() int {\n\treturn 1\n}\n",
        },
    )
    age(repo / "src/main/java/com/acme/Foo.java")
    age(repo / "svc/handler.go")
    (repo / "target" / "site" / "cobertura").mkdir(parents=True)
    (repo / "target/site/cobertura/coverage.xml").write_text(
        '<?xml version="1.0"?>\n<coverage><sources><source>src/main/java</source></sources><packages>'
        '<package name="com.acme"><classes><class name="com.acme.Foo" filename="com/acme/Foo.java"><lines>'
        '<line number="1" hits="1"/><line number="3" hits="4"/></lines></class>'
        '<class name="h" filename="/home/ci/build/proj/svc/handler.go"><lines>'
        '<line number="3" hits="1"/><line number="4" hits="0"/></lines></class>'
        "</classes></package></packages></coverage>\n"
    )
    assert judge(repo) == CoverageJudgement(
        "partial",
        "target/site/cobertura/coverage.xml (Cobertura XML, newer than the change) covers 3/4 changed "
        "executable lines; not run: svc/handler.go:4",
    )
