"""The deterministic gate: the project's checks run at every claim, their results judged against the base.

`checks` (the records), `detection/` (which checks a project has), `processes` (running them),
`output` (reading a failing check's output), `pertest/` (the test check's record of each test), with
`testreports` and `testevidence` (asking for it) and `scratch` (the base's tests on the claimed code),
`baseline` and `cache` (results at the base, and per workspace), `ruling` (the verdict) and `run` (the
gate as a claim runs it). See docs/judging.md, "The gate" and "The gate in detail".

Nothing is imported here: every hook imports the package on its way to a module.
"""
