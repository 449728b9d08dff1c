"""How well the tests cover a change: the judgement (`judgement`), the coverage files it reads
(`datafiles`), line coverage as data (`lines`) and where Python places a line (`statements`). The gate
measures coverage itself in `tiergate.gate.coverage.measuring`. See docs/coverage.md.
"""
