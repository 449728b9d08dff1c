"""tiergate: verify an autonomous coding loop's "done" with evidence, scaled to the risk of the change.

Nothing is imported here on purpose: every Claude Code hook starts this package, and the common path
(no active loop) must cost close to a bare interpreter start.
"""

__version__ = "0.1.0"

# `if TYPE_CHECKING:` in the modules on the hook's path, defined once: mypy reads any name TYPE_CHECKING as
# true, while importing typing for it would cost every hook several milliseconds.
TYPE_CHECKING = False
