"""Keywords a function takes out of its ``**kwargs`` by name (`kwargs.get("mean")`,
`kwargs["adj"]`): arguments its callers pass like named ones.  Standard library only: the
validation worker reads them too (synth.keyword_reads), and imports nothing heavier."""

from __future__ import annotations

import ast


def kwargs_access(node: ast.AST, var: str) -> str | None:
    """`kwargs.get("k"[, d])`, `kwargs.pop("k"[, d])`, `kwargs["k"]` of the `**kwargs` named var: "k"."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop") \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == var and node.args and not node.keywords:
        key = node.args[0]
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == var:
        key = node.slice
    else:
        return None
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier() else None
