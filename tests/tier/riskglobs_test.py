from __future__ import annotations

import subprocess
import sys

import pytest
from testing.riskmatch import categories, pattern_of

from tiergate.errors import UserError
from tiergate.tier.riskpaths import DEFAULT, PathMatch, RiskPaths

# -- the user's globs -------------------------------------------------------------------------------


def test_extra_globs_add_to_the_built_in_rules() -> None:
    rules = RiskPaths(extra_security=["billing/**"], extra_architecture=["**/*.sql"])
    assert rules.match("billing/invoice.py") == (PathMatch("billing/invoice.py", "security", "billing/**"),)
    assert rules.match("src/db/queries/get_user.sql") == (
        PathMatch("src/db/queries/get_user.sql", "architecture", "**/*.sql"),
    )
    # anchored like gitignore: a glob with a slash starts at the repository root
    assert rules.match("src/billing/invoice.py") == ()
    # the built-in rules still apply, and win where both match
    assert pattern_of("src/auth/x.py", "security", rules) == "**/auth/**"
    assert pattern_of("db/schema.sql", "architecture", rules) == "**/schema.*"
    assert DEFAULT.match("billing/invoice.py") == ()


def test_extra_globs_read_paths_like_the_built_in_rules() -> None:
    rules = RiskPaths(extra_security=["billing/**"], extra_architecture=["**/*.sql"])
    assert categories("billing\\invoice.py", rules) == {"security"}
    assert categories("Billing/Invoice.py", rules) == {"security"}
    assert categories("./billing/invoice.py", rules) == {"security"}
    assert categories("reports\\Q1.SQL", rules) == {"architecture"}


def test_a_negated_extra_glob_removes_only_what_an_earlier_extra_glob_added() -> None:
    rules = RiskPaths(extra_architecture=["**/*.sql", "!**/fixtures/**"], extra_security=["!**/auth/**"])
    assert categories("db/report.sql", rules) == {"architecture"}
    assert categories("tests/fixtures/seed.sql", rules) == set()
    # a floor cannot be configured away
    assert pattern_of("src/auth/x.py", "security", rules) == "**/auth/**"


def test_blank_and_comment_globs_are_ignored() -> None:
    rules = RiskPaths(extra_security=["", "# billing", "payments/"])
    assert categories("payments/charge.py", rules) == {"security"}
    assert categories("billing/charge.py", rules) == set()


def test_a_glob_that_is_not_text_is_a_user_error() -> None:
    with pytest.raises(UserError, match="extra security pattern 42"):
        RiskPaths(extra_security=[42])  # type: ignore[list-item]


def test_pathspec_is_imported_only_when_extras_are_given() -> None:
    script = (
        "import sys\n"
        "from tiergate.tier.riskpaths import DEFAULT, PathMatch, RiskPaths, DEFAULT\n"
        "DEFAULT.match('src/auth/x.py'); RiskPaths()\n"
        "assert 'pathspec' not in sys.modules, 'imported without extras'\n"
        "RiskPaths(extra_security=['billing/**'])\n"
        "assert 'pathspec' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
