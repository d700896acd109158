"""Exclusive branches are independent.

Torch fact (torch 2.13): `register_buffer("x", t)` raises `KeyError: attribute 'x' already
exists` only when `self.x` was bound before *on the same run* of `__init__`, and assigning a
non-tensor to a registered buffer raises `TypeError` only when that buffer was registered
on that run.  The two arms of an `if` / `else` (or two `match` cases) never both run, so a
non-tensor bound in one arm neither comes before nor after a tensor registered in the
other: the tensor's arm can be rewritten and the other arm left as it is.
"""

from __future__ import annotations

import ast

from codemod.rules.base import Rule

# Not a decision of its own: it refines when BUF204 (not a tensor) applies.
RULES: tuple[Rule, ...] = ()

Path = tuple[tuple[int, int], ...]  # (id of an if/match statement, which arm) from the outermost


def branch_paths(body: list[ast.stmt]) -> dict[int, Path]:
    """For every statement under `body` (by id), the if/match arms that enclose it."""
    paths: dict[int, Path] = {}

    def visit(stmts: list[ast.stmt], path: Path) -> None:
        for stmt in stmts:
            paths[id(stmt)] = path
            if isinstance(stmt, ast.If):
                visit(stmt.body, (*path, (id(stmt), 0)))
                visit(stmt.orelse, (*path, (id(stmt), 1)))
            elif isinstance(stmt, ast.Match):
                for number, case in enumerate(stmt.cases):
                    visit(case.body, (*path, (id(stmt), number)))
            else:
                for field in ("body", "orelse", "finalbody"):
                    block = getattr(stmt, field, None)
                    if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                        visit(block, path)
                for handler in getattr(stmt, "handlers", ()) or ():
                    visit(handler.body, path)
                for case in getattr(stmt, "cases", ()) or ():
                    visit(case.body, path)

    visit(body, ())
    return paths


def exclusive(a: Path, b: Path) -> bool:
    """Whether two statements sit in different arms of the same if/match (never both run)."""
    arms_a = dict(a)
    return any(node in arms_a and arms_a[node] != arm for node, arm in b)
