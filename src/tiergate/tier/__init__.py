"""How risky a change is: the tier policy (`policy`), the risky paths (`riskpaths`, with `riskrules`,
`risktable`, `riskfacts`, `riskglobs`), the risky constructs in the changed lines (`content/`, read by
`changedlines`), override keywords (`keywords`), what makes a file a test (`testnames`), measuring a
change with git (`change`), its test coverage (`coverage/`), the one route from a change to a tier
decision (`assess`), `tiergate tier --batch` (`batch`, `batchschema`) and `tiergate replay`
(`pastcommits`, `replay`).

Nothing is imported here: every hook imports the package on its way to a module.
"""
