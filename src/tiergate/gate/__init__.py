"""The deterministic gate: the project's checks run at every claim, their results judged against the base.

`checks` (the records), `detection/` (which checks a project has), `processes` (running them),
`output` (reading a failing check's output), `pertest/` with `testreports` and `testevidence` (each
test's outcome), `coverage/` (the change's coverage, measured as the tests run), `baseline`, `scratch`
and `cache` (runs at the base, and kept results), `standing`, `ruling` and `verdicttext` (the verdict
and its texts), `run` (the gate as a claim runs it). See docs/judging.md, "The gate in detail".

Nothing is imported here: every hook imports the package on its way to a module.
"""
