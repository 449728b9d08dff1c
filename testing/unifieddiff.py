"""One-file, one-hunk `-U0` patches as git writes them, for the tests of the rules that read changed lines."""

from __future__ import annotations


def patch(path: str, removed: list[str], added: list[str]) -> bytes:
    old = f"1,{len(removed)}" if removed else "0,0"
    new = f"1,{len(added)}" if added else "0,0"
    body = "".join(f"-{line}\n" for line in removed) + "".join(f"+{line}\n" for line in added)
    return (
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -{old} +{new} @@\n{body}"
    ).encode()


def one_line_patch(path: str, line: str, side: str = "+") -> bytes:
    old, new = ("0,0", "1") if side == "+" else ("1", "0,0")
    return (
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -{old} +{new} @@\n{side}{line}\n"
    ).encode()
