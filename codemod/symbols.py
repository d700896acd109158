"""What a module's names refer to: imports, classes and functions, from the stdlib `ast`.

The analysis works on `ast` rather than libcst because the C parser is several
times faster; libcst is only used on the files that end up being rewritten.
"""

from __future__ import annotations

import ast
import functools
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemod.budget import check_tokens
from codemod.fileio import source_lines
from codemod.segments import Segment, padded, split


class LazyDefinitions(Mapping):
    """Top-level classes or functions by name, each parsed the first time it is asked for."""

    def __init__(self, owner: "ModuleSymbols"):
        # A weak reference: a cycle here would keep every module's trees alive until a
        # garbage collection, and the run keeps the cyclic collector off (see runner.py).
        self._owner = weakref.ref(owner)
        self._nodes: dict[str, Any] = {}
        self._segments: dict[str, Segment] = {}
        self._headers: dict[str, Any] = {}

    def add_node(self, name: str, node: Any) -> None:
        self._nodes[name] = node
        self._segments.pop(name, None)

    def add_segment(self, name: str, segment: Segment) -> None:
        self._segments[name] = segment
        self._nodes.pop(name, None)

    def __getitem__(self, name: str) -> Any:
        if name in self._nodes:
            return self._nodes[name]
        segment = self._segments[name]  # KeyError for unknown names, as a dict would
        owner = self._owner()
        assert owner is not None
        node = owner.parse_segment(segment)
        self._nodes[name] = node
        return node

    def __contains__(self, name: object) -> bool:
        return name in self._nodes or name in self._segments

    def __iter__(self) -> Iterator[str]:
        yield from self._nodes
        yield from (n for n in self._segments if n not in self._nodes)

    def __len__(self) -> int:
        return len(set(self._nodes) | set(self._segments))

    def segment(self, name: str) -> Segment | None:
        return self._segments.get(name)

    def header(self, name: str) -> Any:
        """A class with its header only (`class X(bases):`), without parsing its body."""
        if name in self._nodes:
            return self._nodes[name]
        if name not in self._headers:
            segment = self._segments[name]
            text = class_header_text(segment.text)
            node = None
            if text is not None:
                try:
                    tree = ast.parse("\n" * (segment.start - 1) + text + " pass\n")
                    node = tree.body[0] if len(tree.body) == 1 else None
                except SyntaxError:
                    node = None
            self._headers[name] = node if node is not None else self[name]
        return self._headers[name]


@dataclass
class ModuleSymbols:
    """The top-level names of one module."""

    name: str  # dotted module name, e.g. "pkg.models.layers"
    path: Path | None
    is_package: bool  # an __init__.py: relative imports resolve against itself
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    star_imports: list[str] = field(default_factory=list)  # modules imported with *
    local_names: set[str] = field(default_factory=set)  # classes and functions defined here
    global_names: set[str] = field(default_factory=set)  # names assigned at module level
    header: list[ast.stmt] = field(default_factory=list)  # parsed module-level statements
    segments: list[Segment] | None = None  # None: the whole file was parsed
    text: str = ""

    @functools.cached_property
    def source_lines(self) -> list[str]:
        return source_lines(self.text)

    def __post_init__(self) -> None:
        self.classes: LazyDefinitions = LazyDefinitions(self)
        self.functions: LazyDefinitions = LazyDefinitions(self)

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

    def base_alternatives(self, node: ast.expr) -> list[ast.expr]:
        """What a class base may be at import time: the base itself, or, for a module-level
        name bound to others (`Base = nn.Module`, `Base = torch.jit.ScriptModule if jit else
        nn.Module`, or one binding per branch of a top-level `if`), every expression it may be
        bound to. An alias with any other binding (a call, an augmented one) gives [] (unknown)."""
        if not isinstance(node, ast.Name) or node.id in self.imports or node.id in self.local_names:
            return [node]
        bound = _top_level_bindings(self.header, node.id)
        if not bound:
            return [node]
        found: list[ast.expr] = []
        pending = list(bound)
        while pending:
            value = pending.pop()
            if isinstance(value, ast.IfExp):
                pending += [value.body, value.orelse]
            elif isinstance(value, (ast.Name, ast.Attribute)) and len(found) < 8:
                found.append(value)
            else:
                return []
        return found

    def parse_segment(self, segment: Segment) -> ast.stmt:
        filename = str(self.path or self.name)
        check_tokens(segment.text, "a statement", line=segment.start, filename=filename)
        tree = ast.parse(padded(segment), filename=filename)
        if len(tree.body) != 1:
            raise SyntaxError("a top-level statement was cut in two")
        return tree.body[0]

    def classes_to_analyse(self, holders: set[int] | None) -> list[ast.ClassDef]:
        """Every class that may produce a finding: those in the module-level code, and those
        in the top-level statements starting at the lines in `holders` (all when None)."""
        roots: list[ast.stmt] = list(self.header)
        for name in list(self.classes) + list(self.functions):
            definitions = self.classes if name in self.classes else self.functions
            segment = definitions.segment(name)
            if segment is None:
                node = definitions[name]
                if definitions is self.classes or holders is None or self.segments is None:
                    roots.append(node)
                continue
            if definitions is self.functions and "class " not in segment.text:
                continue
            if holders is None or segment.start in holders:
                roots.append(definitions[name])
        found: list[ast.ClassDef] = []
        seen: set[int] = set()
        pending = roots
        while pending:
            stmt = pending.pop()
            if isinstance(stmt, ast.ClassDef) and id(stmt) not in seen:
                seen.add(id(stmt))
                found.append(stmt)
            for block in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(stmt, block, None)
                if children:
                    pending.extend(children)
        found.sort(key=lambda c: (c.lineno, c.col_offset))
        return found


def class_header_text(text: str) -> str | None:
    """`@deco\nclass X(A, B[int]):` up to its colon, or None when it cannot be cut simply."""
    start = text.find("class ")
    if start < 0:
        return None
    depth = 0
    for i in range(start, len(text)):
        char = text[i]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char in "\"'#":
            return None  # strings or comments in a header: parse the whole class instead
        elif char == ":" and depth == 0:
            return text[: i + 1]
    return None


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
    qualname = ".".join(reversed(parts))
    if qualname.startswith("torch.") and ".torch." in qualname:
        # `torch.sparse.torch.eye(n)`: a torch submodule's own `torch` is torch itself (an idiom
        # of widely copied one-hot code)
        qualname = "torch." + qualname.rpartition(".torch.")[2]
    return qualname


def mangled(attr: str, class_name: str) -> str:
    """The name Python stores `self.<attr>` under in class `class_name`: `__x` in class `_Cls`
    is `_Cls__x`; other names (and dunders) as they are."""
    owner = class_name.lstrip("_")
    if not attr.startswith("__") or attr.endswith("__") or not owner:
        return attr
    return f"_{owner}{attr}"


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


def build_symbols(
    text: str,
    name: str,
    path: Path | None,
    is_package: bool,
    *,
    tree: ast.Module | None = None,
    lazy: bool = True,
    segments: list[Segment] | None = None,
) -> ModuleSymbols:
    """Read a module's top-level names; with `lazy`, classes and functions are parsed on demand.

    Raises SyntaxError when the parsed part of the file does not parse.
    """
    symbols = ModuleSymbols(name=name, path=path, is_package=is_package, text=text)
    if segments is None:
        segments = split(text) if lazy and tree is None else None
    if segments is not None:
        # One parse of the module with its classes and functions blanked out: line numbers
        # stay those of the file, and the blank lines cost next to nothing to tokenize.
        pieces = [s.text if s.kind in ("import", "other") else "\n" * s.text.count("\n") for s in segments]
        first = segments[0].start - 1 if segments else 0
        for segment in segments:
            if segment.kind in ("import", "other"):  # refused before any parse, with its line
                check_tokens(segment.text, "a statement", line=segment.start, filename=str(path or name))
        header_text = "".join(pieces)
        check_tokens(header_text, "the module-level code", filename=str(path or name))
        try:
            header = ast.parse("\n" * first + header_text, filename=str(path or name)).body
        except SyntaxError:
            segments = None
    if segments is None:
        if tree is None:
            check_tokens(text, "the file", filename=str(path or name))
            tree = ast.parse(text, filename=str(path or name))
        header = tree.body
    symbols.segments = segments
    _read_statements(header, symbols, top_level=True)
    if segments is not None:
        for segment in segments:
            if segment.kind == "class" and segment.name:
                symbols.classes.add_segment(segment.name, segment)
            elif segment.kind == "def" and segment.name:
                symbols.functions.add_segment(segment.name, segment)
    symbols.local_names = set(symbols.classes) | set(symbols.functions)
    return symbols


def _read_statements(statements: list[ast.stmt], symbols: ModuleSymbols, top_level: bool) -> None:
    collect_imports(statements, symbols.package, symbols.imports, symbols.star_imports)
    _collect_definitions(statements, symbols)
    if top_level:
        symbols.header = [s for s in statements if not isinstance(s, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
        for stmt in statements:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
            for target in targets:
                if isinstance(target, ast.Name):
                    symbols.global_names.add(target.id)
        # Classes at the top of a fully parsed file are analysed from the header too.
        symbols.header += [s for s in statements if isinstance(s, ast.ClassDef)]


def _top_level_bindings(statements: list[ast.stmt], name: str) -> list[ast.expr | None]:
    """The values a module-level name is bound to, through top-level `if` and `try` blocks;
    None for a binding of another form (augmented, unpacked, one of several targets).  An
    import under the name is not looked at: the caller takes imported names as they are."""
    found: list[ast.expr | None] = []
    for stmt in statements:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    found.append(stmt.value if len(stmt.targets) == 1 else None)
                elif name in {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}:
                    found.append(None)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            found.append(stmt.value if isinstance(stmt, ast.AnnAssign) else None)
        elif isinstance(stmt, (ast.If, ast.Try)):
            for block in _blocks(stmt):
                found += _top_level_bindings(block, name)
    return found


def _collect_definitions(statements: list[ast.stmt], symbols: ModuleSymbols) -> None:
    for stmt in statements:
        if isinstance(stmt, ast.ClassDef):
            symbols.classes.add_node(stmt.name, stmt)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            symbols.functions.add_node(stmt.name, stmt)
        elif isinstance(stmt, (ast.If, ast.Try)):
            for block in _blocks(stmt):
                _collect_definitions(block, symbols)
