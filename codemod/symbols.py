"""What a module's names refer to: imports, classes and functions, from the stdlib `ast`.

The analysis works on `ast` rather than libcst because the C parser is several
times faster; libcst is only used on the files that end up being rewritten.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class ModuleSymbols:
    """The top-level names of one module."""

    name: str  # dotted module name, e.g. "pkg.models.layers"
    path: Path | None
    is_package: bool  # an __init__.py: relative imports resolve against itself
    tree: ast.Module
    source_lines: list[str]
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    star_imports: list[str] = field(default_factory=list)  # modules imported with *
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    local_names: set[str] = field(default_factory=set)  # classes and functions defined here

    @property
    def package(self) -> str:
        if self.is_package:
            return self.name
        return self.name.rpartition(".")[0]

    def qualify(self, node: ast.expr) -> str | None:
        """The qualified dotted name an expression refers to, or None.

        `nn.Module` with `import torch.nn as nn` gives "torch.nn.Module";
        a class defined here gives "<module>.<Class>".
        """
        return qualify(node, self.imports, self.local_names, self.name)


def qualify(node: ast.expr, imports: dict[str, str], local_names: set[str], module: str) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    head = node.id
    if head in imports:
        base = imports[head]
    elif head in local_names:
        base = f"{module}.{head}" if module else head
    else:
        base = head  # a builtin or an unknown global
    parts.append(base)
    return ".".join(reversed(parts))


def resolve_relative(package: str, module: str | None, level: int) -> str | None:
    """The absolute module named by `from <level dots><module> import ...`."""
    if level == 0:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if module:
        base.append(module)
    return ".".join(base) if base else None


def collect_imports(
    statements: list[ast.stmt],
    package: str,
    imports: dict[str, str],
    star_imports: list[str] | None = None,
    descend_into_blocks: bool = True,
) -> None:
    """Record the names bound by import statements (including those inside if/try)."""
    for stmt in statements:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    imports[alias.asname] = alias.name
                else:
                    top = alias.name.partition(".")[0]
                    imports[top] = top
        elif isinstance(stmt, ast.ImportFrom):
            base = resolve_relative(package, stmt.module, stmt.level)
            if base is None:
                continue
            for alias in stmt.names:
                if alias.name == "*":
                    if star_imports is not None:
                        star_imports.append(base)
                    continue
                imports[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif descend_into_blocks and isinstance(stmt, (ast.If, ast.Try, ast.With)):
            for block in _blocks(stmt):
                collect_imports(block, package, imports, star_imports, descend_into_blocks)


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    blocks = [getattr(stmt, "body", []), getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]
    for handler in getattr(stmt, "handlers", []):
        blocks.append(handler.body)
    return blocks


def build_symbols(tree: ast.Module, name: str, path: Path | None, is_package: bool, source: str) -> ModuleSymbols:
    symbols = ModuleSymbols(
        name=name, path=path, is_package=is_package, tree=tree, source_lines=source.splitlines()
    )
    collect_imports(tree.body, symbols.package, symbols.imports, symbols.star_imports)
    _collect_definitions(tree.body, symbols)
    symbols.local_names = set(symbols.classes) | set(symbols.functions)
    return symbols


def _collect_definitions(statements: list[ast.stmt], symbols: ModuleSymbols) -> None:
    for stmt in statements:
        if isinstance(stmt, ast.ClassDef):
            symbols.classes[stmt.name] = stmt
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            symbols.functions[stmt.name] = stmt
        elif isinstance(stmt, (ast.If, ast.Try)):
            for block in _blocks(stmt):
                _collect_definitions(block, symbols)
