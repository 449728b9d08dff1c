"""How risky a change is: the tier policy (`policy`), the risky paths and their rules (`riskpaths`,
`riskrules`), override keywords (`keywords`), measuring a change with git (`change`), the coverage
judgement and the coverage data it reads (`coverage/`), the one route from a change to a
tier decision (`assess`) and `tiergate tier --batch` (`batch`, `batchschema`).

Nothing is imported here: every hook imports the package on its way to a module.
"""
