"""The deterministic gate: the project's checks run at every claim, their results judged against the base.

`checks`, `detection/` (which checks), `processes` (running them), `output` (reading a failure), `pertest/`,
`testreports`, `testevidence` (each test's outcome), `coverage/`, `baseline`, `scratch`, `cache` (runs at the
base, kept results), `standing`, `ruling`, `verdicttext` (the verdict), `run` (a claim's run; see
docs/judging.md, "The gate in detail"). Nothing is imported here: every hook imports the package.
"""
