"""The source that made-up values are decided from: the file as it is on disk.

Both sides of a validation make up the same constructor arguments by reading the class's
source (synth, build).  The rewritten side imports the rewritten text (overlay), whose
statements differ (`self.weight = weight` became `self.register_buffer("weight", ...)`), so
reading what it imported would make it decide otherwise than the original side did.  For an
overlaid file both sides read the file on disk, finding the class or function by its
qualified name rather than by the line numbers of the text that was imported.
"""

from __future__ import annotations

import ast
import functools
import inspect
import tokenize
from typing import Any

from codemod.validate import overlay


def original_source(obj: Any) -> str:
    """``inspect.getsource(obj)``, from the file on disk where the rewritten text was imported
    in its place; raises OSError or TypeError as inspect.getsource does."""
    path = inspect.getsourcefile(obj)
    if path is None or overlay.normalize(path) not in overlay.overlaid_files():
        return inspect.getsource(obj)
    text, tree = _parsed(overlay.normalize(path))
    node = _find(tree, [part for part in obj.__qualname__.split(".") if part != "<locals>"])
    segment = ast.get_source_segment(text, node, padded=True) if node is not None else None
    if segment is None:
        raise OSError(f"{obj.__qualname__} not found in {path}")
    return segment + "\n"


@functools.lru_cache(maxsize=32)
def _parsed(path: str) -> tuple[str, ast.Module]:
    with tokenize.open(path) as handle:  # its own coding declaration, as import reads it
        text = handle.read()
    return text, ast.parse(text)


def _find(tree: ast.AST, names: list[str]) -> ast.AST | None:
    """The class or function at that qualified name: the last definition of each name, as
    the module's own execution leaves it."""
    node: ast.AST = tree
    for name in names:
        found = None
        nested = ast.walk(node) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else getattr(node, "body", [])
        for child in nested:
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and child.name == name \
                    and child is not node:
                found = child
        if found is None:
            return None
        node = found
    return node
