"""The test check's record of each test (`record`), and what the gate reads and asks of it.

`fromoutput` reads a runner's plain output; `testinfra` tells tests and test infrastructure by path,
`testhelpers` the base's helpers outside test folders; `lost` and `basetests` hold a claim to the tests
the loop began with; `selection` limits a run, `importmap` finds the tests a change affects. Pure, but for
`importmap.at_commit` (reads the base commit from git, keeps its map on disk).
"""
