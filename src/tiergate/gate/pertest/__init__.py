"""The test check's record of each test (`record`), and what the gate reads and asks of it.

`fromoutput` reads a record from a runner's plain output (`tiergate.gate.testreports` asks for a report where
it can); `testinfra` tells the paths that are tests or test infrastructure, `testhelpers` the base's test
helpers outside the test folders; `lost` and `basetests` hold a claim to the tests the loop began with;
`selection` names the tests a run is limited to, and `importmap` the test files a change affects. Pure: no
file, process or git, but for `importmap.at_commit`, which reads the base commit's files from git and keeps
its map on disk.
"""
