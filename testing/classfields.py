"""The fields a module declares in its classes (annotated assignments in a class body), read from its source.

For the tests holding a derived schema to declaring none of its own: each key is declared once, elsewhere.
"""

from __future__ import annotations

import ast
from pathlib import Path


def declared_fields(module_file: str) -> list[str]:
    """`Class.field` for every annotated assignment in a class body of the module at `module_file`."""
    tree = ast.parse(Path(module_file).read_text(encoding="utf-8"))
    return [
        f"{cls.name}.{ast.unparse(node.target)}"
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for node in cls.body
        if isinstance(node, ast.AnnAssign)
    ]
