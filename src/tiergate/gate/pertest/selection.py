"""Which tests a test check is asked to run instead of all of them: a first pass over the tests a change
affects, or the base's tests run again only where they differ (`tiergate.gate.pertest.basetests`).

A selection is a request, never a guarantee: only pytest honours it (`tiergate.gate.pytestoutcomes`, asked
through the environment by `tiergate.gate.testreports`), and a run that honoured it is marked
`TestRun.subset`, so that the tests it left out are never read as lost. Pure: no I/O.
"""

from __future__ import annotations

from tiergate.frozen import frozen


@frozen
class TestSelection:
    """Test files to run whole, and single tests by their pytest node id. Paths are relative to the
    check's working directory, `/`-separated; node ids as pytest spells them (relative to its rootdir,
    which is the working directory in the projects tiergate runs)."""

    __test__ = False  # not a pytest test class, whatever its name

    files: tuple[str, ...]
    tests: tuple[str, ...] = ()
    # Run them in the reverse of the order the runner collects them (`tiergate.gate.pertest.order`).
    reverse: bool = False
