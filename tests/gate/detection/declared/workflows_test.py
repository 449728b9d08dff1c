"""The CI workflows' run: lines, read line by line, conservatively."""

from __future__ import annotations

from testing.declaredfiles import read

WORKFLOW = """\
name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pip install -e . # install
      - name: Run the tests
        run: |
          python -m pytest \\
            --doctest-modules src
          # a comment
          pytest -k ${{ matrix.only }}
      - run: "tox -e py"
      - run: >-
          go test
          ./...
      - run: pytest
          --continued-plain-scalar
"""


def test_ci_workflow_run_lines_are_read_line_by_line_conservatively() -> None:
    found = read({".github/workflows/ci.yml": WORKFLOW, "README.md": "run: pytest\n"})
    assert [(d.command, d.line, d.problem) for d in found] == [
        ("pip install -e .", 8, ""),
        ("python -m pytest --doctest-modules src", 11, ""),
        ("pytest -k ${{ matrix.only }}", 14, "only GitHub Actions can resolve ${{ ... }}"),
        ("tox -e py", 15, ""),
        ("go test ./...", 17, ""),
    ]
    assert {d.ci for d in found} == {True}
