"""How risky a change is: the tier policy (`policy`), the risky paths (`risk*`), the risky constructs in
the changed lines (`content/`, read by `changedlines`), override keywords (`keywords`), what makes a file
a test (`testnames`), a change measured with git (`change`) and its coverage (`coverage/`), the one route
from a change to a tier (`assess`), `tiergate tier --batch` (`batch`) and `tiergate replay` (`replay`).

Nothing is imported here: every hook imports the package on its way to a module.
"""
