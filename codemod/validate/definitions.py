"""A script's definitions without its work: the module a class is in, built from its imports,
functions, classes and plain assignments, where its top-level code raises before the class
is defined (worker side).

Training scripts often define their model below code that loads data, parses arguments or
exits (`X = np.load("data.npy")` at line 120, `class FocalLoss(nn.Module)` at line 290).
Importing such a module runs that code, which raises where the data is not there, so the
class is never defined.  Here each top-level statement that defines something runs on its
own, in the file's order and under the file's name (so that line coverage and tracebacks
name the file's lines), those inside `if` blocks too, whatever the test (a class defined only
under a flag); one that raises is skipped, as is every statement that does work: expression
statements (`train()`, `plt.show()`), loops, `with` blocks, the `__main__` guard, and
assignments that call a function or class the module itself defines (`model = Net()`,
`history = fit(model)`), which would run the script's own code.  The rewritten side builds
its module the same way, so both run the same statements.
"""

from __future__ import annotations

import ast
import sys
import types
from pathlib import Path
from typing import Any


def definitions_only(module_name: str, ran: dict[str, Any], needed: str
                     ) -> tuple[types.ModuleType, list[list[Any]]] | None:
    """The module built from the definitions of its file, with ``[line, exception name]`` for
    each statement skipped because it raised; None where ``needed`` is still not a class of it.  ``ran``:
    the namespace of the import that raised, whose loader serves the text (the rewritten
    side's overlay serves the rewritten one)."""
    file = ran.get("__file__")
    if not isinstance(file, str):
        return None
    loader = ran.get("__loader__")
    try:
        source = loader.get_source(module_name) if hasattr(loader, "get_source") else None
    except Exception:
        source = None
    try:
        source = source if source is not None else Path(file).read_text(encoding="utf-8")
        tree = ast.parse(source, filename=file)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    module = types.ModuleType(module_name)
    for key in ("__file__", "__loader__", "__spec__", "__package__", "__path__"):
        if key in ran:
            module.__dict__[key] = ran[key]
    previous = sys.modules.get(module_name)
    sys.modules[module_name] = module  # the class's __module__, pickling, relative imports
    statements = _top_level(tree.body)
    local = {stmt.name for stmt in statements
             if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    skipped: list[list[Any]] = []
    for stmt in statements:
        if not _defines(stmt, local):
            continue
        code = compile(ast.Module(body=[stmt], type_ignores=[]), file, "exec")
        try:
            exec(code, module.__dict__)  # noqa: S102 - the repository's own definitions, as an import runs them
        except (Exception, SystemExit) as exc:
            skipped.append([stmt.lineno, type(exc).__name__])
    defined = module.__dict__.get(needed)
    if not (isinstance(defined, type) and defined.__module__ == module_name):
        if previous is not None:
            sys.modules[module_name] = previous
        else:
            sys.modules.pop(module_name, None)
        return None
    return module, skipped


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The module's top-level statements, with those of its ``if`` blocks in their place (a
    class a script defines only under a flag, `if args.focal_loss: class FocalLoss(...)`,
    whichever arm); the ``__main__`` guard's are not, being the script's work."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            if not _main_guard(stmt.test):
                out += _top_level(stmt.body) + _top_level(stmt.orelse)
        else:
            out.append(stmt)
    return out


def _main_guard(test: ast.expr) -> bool:
    return any(isinstance(node, ast.Name) and node.id == "__name__" for node in ast.walk(test))


def _defines(stmt: ast.stmt, local: set[str]) -> bool:
    """Whether a top-level statement only defines something (see the module's docstring)."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    if isinstance(stmt, ast.Try):  # `try: import x` / `except ImportError: x = None`
        blocks = [stmt.body, stmt.orelse, stmt.finalbody, *(h.body for h in stmt.handlers)]
        return all(_defines(inner, local) or isinstance(inner, ast.Pass) for block in blocks for inner in block)
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        value: Any = stmt.value
        if value is None:
            return True
        return not any(isinstance(node, ast.Call) and _calls_local(node.func, local) for node in ast.walk(value))
    return False


def _calls_local(func: ast.expr, local: set[str]) -> bool:
    """`Net()`, `Net().to(device)`, `fit(model)`: a call of the module's own code."""
    while isinstance(func, ast.Attribute):
        func = func.value
    while isinstance(func, ast.Call):
        func = func.func
        while isinstance(func, ast.Attribute):
            func = func.value
    return isinstance(func, ast.Name) and func.id in local
