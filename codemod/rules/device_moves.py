"""Construction-time device moves that matter are kept (the attribute is left alone).

Torch facts (torch 2.13): the codemod drops `.to(device)` / `.cuda()` from a buffer's value
because `model.to(device)` moves buffers; but while `__init__` runs the buffer is where it
was made.  Used later in `__init__` with tensors already on the target device, the
dropped move makes that code raise `Expected all tensors to be on the same device`; and a
child module or another attribute that keeps its own reference (`self.block =
Conv(self.adj)`) keeps pointing at the old tensor after `model.to()` replaces the
parent's buffer with a moved copy (`Module._apply` swaps `_buffers[name]` for a new
tensor unless the move is in place).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from codemod.rules.base import Rule

RULE = Rule(
    "BUF205",
    "device-move-matters",
    "moved to a device in __init__ and then used there, or handed to a child module / attribute that keeps its own reference",
)
RULES = (RULE,)


def later_use(attr: str, after_line: int, init: ast.AST | None, self_name: str | None, helper: Callable[[str], ast.AST | None]) -> int | None:
    """The first line after `after_line` where __init__ (or a method it calls, followed
    recursively, each once) reads self.<attr>; None when it never does."""
    if init is None or self_name is None:
        return None
    seen: set[str] = set()

    def reads(node: ast.AST, name: str | None, minimum: int) -> int | None:
        for n in ast.walk(node):
            if getattr(n, "lineno", 0) <= minimum and name is not None:
                continue
            if (
                isinstance(n, ast.Attribute)
                and isinstance(n.ctx, ast.Load)
                and n.attr == attr
                and isinstance(n.value, ast.Name)
                and n.value.id == name
            ):
                return n.lineno
        return None

    def visit(function: ast.AST, name: str | None, minimum: int) -> int | None:
        found = reads(function, name, minimum)
        if found is not None:
            return found
        for n in ast.walk(function):
            if (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name)
                and n.func.value.id == name
                and n.lineno > minimum
                and n.func.attr not in seen
            ):
                seen.add(n.func.attr)
                method = helper(n.func.attr)
                if method is not None and method.args.args:
                    if visit(method, method.args.args[0].arg, 0) is not None:
                        return n.lineno
        return None

    return visit(init, self_name, after_line)
