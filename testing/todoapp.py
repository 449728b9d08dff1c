"""A small stdlib-only todo app with a pytest suite, for loops whose base fails every test.

At the base, `reset()` (which the suite's fixture calls before every test) raises NotImplementedError,
so every test is an ERROR at setup. `implementation(defect)` is the whole app, correct (`defect=None`)
or with one of the defects of the seed's four kinds, each of which leaves some tests FAILED with an
AssertionError (or pytest's `Failed: DID NOT RAISE`) instead: failing tests that also failed at the
base, but not the same way.
"""

from __future__ import annotations

import re
import sys
from typing import Literal, get_args

# The seed's four kinds: a filter on the wrong field, a create that stores nothing, a validator that
# accepts everything, a tag filter without its "no tag" guard.
Defect = Literal[
    "wrong-field-filter", "create-stores-nothing", "validator-accepts-all", "tag-filter-no-guard"
]
DEFECTS: tuple[Defect, ...] = get_args(Defect)
# The tests each defect makes fail, in the suite's order (the others pass).
FAILS: dict[Defect, tuple[str, ...]] = {
    "wrong-field-filter": ("test_filter_done",),
    "create-stores-nothing": (
        "test_created_items_are_listed",
        "test_list_without_tag",
        "test_filter_by_tag",
        "test_filter_done",
    ),
    "validator-accepts-all": ("test_blank_title_is_rejected",),
    "tag-filter-no-guard": ("test_created_items_are_listed", "test_list_without_tag"),
}
PYTEST_ENV = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1"
PYTEST_ARGS = "-m pytest -q -rfE -p no:cacheprovider"
TASK = "implement the todo features in app.py"

BASE_APP = '''\
"""Todos kept in memory."""

_TODOS = []


def reset():
    raise NotImplementedError("reset is not implemented yet")


def create(title, tag=None):
    raise NotImplementedError("create is not implemented yet")


def complete(todo_id):
    raise NotImplementedError("complete is not implemented yet")


def list_todos(tag=None, done=None):
    raise NotImplementedError("list_todos is not implemented yet")
'''

SUITE = """\
import pytest

import app


@pytest.fixture(autouse=True)
def fresh():
    app.reset()


def test_create_returns_the_item():
    assert app.create("milk") == {"id": 1, "title": "milk", "tag": None, "done": False}


def test_created_items_are_listed():
    milk = app.create("milk", tag="shop")
    call = app.create("call mum")
    assert app.list_todos() == [milk, call]


def test_list_without_tag():
    app.create("milk", tag="shop")
    app.create("bread", tag="shop")
    assert len(app.list_todos()) == 2


def test_filter_by_tag():
    milk = app.create("milk", tag="shop")
    app.create("call mum")
    assert app.list_todos(tag="shop") == [milk]


def test_filter_done():
    milk = app.create("milk")
    app.create("bread")
    app.complete(milk["id"])
    assert [t["title"] for t in app.list_todos(done=True)] == ["milk"]


def test_blank_title_is_rejected():
    with pytest.raises(ValueError):
        app.create("   ")
"""

_RESET = """\
def reset():
    _TODOS.clear()
"""
_VALIDATE = """\
def validate(title):
    if not title.strip():
        raise ValueError("a todo needs a title")
"""
_VALIDATE_ALL = """\
def validate(title):
    return None
"""
_CREATE = """\
def create(title, tag=None):
    validate(title)
    todo = {"id": len(_TODOS) + 1, "title": title, "tag": tag, "done": False}
    _TODOS.append(todo)
    return todo
"""
_CREATE_NOTHING = """\
def create(title, tag=None):
    validate(title)
    return {"id": len(_TODOS) + 1, "title": title, "tag": tag, "done": False}
"""
_COMPLETE = """\
def complete(todo_id):
    for todo in _TODOS:
        if todo["id"] == todo_id:
            todo["done"] = True
"""
_LIST = """\
def list_todos(tag=None, done=None):
    todos = list(_TODOS)
    if tag is not None:
        todos = [t for t in todos if t["tag"] == tag]
    if done is not None:
        todos = [t for t in todos if t["done"] == done]
    return todos
"""
_LIST_WRONG_FIELD = _LIST.replace('t["done"] == done', 't.get("completed") == done')
_LIST_NO_GUARD = """\
def list_todos(tag=None, done=None):
    todos = [t for t in _TODOS if t["tag"] == tag]
    if done is not None:
        todos = [t for t in todos if t["done"] == done]
    return todos
"""


TESTS = tuple(re.findall(r"^def (test_\w+)", SUITE, re.MULTILINE))


def implementation(defect: Defect | None = None) -> str:
    """app.py, complete and correct, or with `defect`."""
    parts = {
        "validate": _VALIDATE_ALL if defect == "validator-accepts-all" else _VALIDATE,
        "create": _CREATE_NOTHING if defect == "create-stores-nothing" else _CREATE,
        "list": {"wrong-field-filter": _LIST_WRONG_FIELD, "tag-filter-no-guard": _LIST_NO_GUARD}.get(
            defect or "", _LIST
        ),
    }
    body = [_RESET, parts["validate"], parts["create"], _COMPLETE, parts["list"]]
    return '"""Todos kept in memory."""\n\n_TODOS = []\n\n\n' + "\n\n".join(body)


def project_files(python: str = sys.executable) -> dict[str, str]:
    """The project at its base: the unimplemented app, its suite, and the gate's pytest check (with the
    short summary of failures and errors, `-rfE`, and no cache folder left in the workspace; without the
    plugins installed next to pytest, which take seconds to load and have no part in this suite)."""
    return {
        "app.py": BASE_APP,
        "tests/test_app.py": SUITE,
        "pytest.ini": "[pytest]\ntestpaths = tests\npythonpath = .\n",
        ".tiergate.toml": f'[checks]\ntests = "{PYTEST_ENV} {python} {PYTEST_ARGS}"\n',
        ".gitignore": ".tiergate/\n__pycache__/\n",
    }
