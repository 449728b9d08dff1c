"""A tiny Python project whose one test of `double` is a doctest that only its declared test command runs
(unittest, through `load_tests`), for the tests of running what the project runs (issue 21)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from testing.gitrepo import init_repo

# `python` and `pytest` are this interpreter's, as in a project's activated virtualenv.
PATH = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"

MODULE = '''\
def double(x):
    """Twice x.

    >>> double(21)
    42
    """
    return 2 * x


def triple(x):
    return 3 * x
'''
BUG = MODULE.replace("return 2 * x", "return x * x")
UNITTEST = """\
import doctest
import unittest

import mini


def load_tests(loader, tests, ignore):
    tests.addTests(doctest.DocTestSuite(mini))
    return tests


class TripleTest(unittest.TestCase):
    def test_triple(self):
        self.assertEqual(mini.triple(2), 6)
"""


def mini_project(root: Path, declaring: dict[str, str]) -> Path:
    """The project, committed at `root` with the files `declaring` its test command."""
    files = {
        "pyproject.toml": '[project]\nname = "mini"\nversion = "1"\n',
        ".gitignore": "__pycache__/\n",
        "mini.py": MODULE,
        "tests/__init__.py": "",
        "tests/test_mini.py": UNITTEST,
        **declaring,
    }
    return init_repo(root, files)
