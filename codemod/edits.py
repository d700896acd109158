"""The edits a rewrite rule plans for one statement (codemod/plans.py), from the `ast` node.

Positions are in characters (libcst's columns), while `ast` counts UTF-8 bytes.
"""

from __future__ import annotations

import ast

from codemod import torch_names as tn
from codemod.plans import SpineEdit, StmtEdit
from codemod.tensors import Evaluator, Kind, device_move_args, is_false, is_true, keyword
from codemod.walker import AttrEvent


def char_col(lines: list[str], lineno: int, byte_col: int) -> int:
    """ast columns count UTF-8 bytes; findings and libcst count characters."""
    if 0 < lineno <= len(lines):
        line = lines[lineno - 1]
        if not line.isascii():
            return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))
    return byte_col


def position(lines: list[str], stmt: ast.stmt) -> tuple[int, int]:
    return stmt.lineno, char_col(lines, stmt.lineno, stmt.col_offset)


def end(lines: list[str], stmt: ast.stmt) -> tuple[int, int]:
    line = stmt.end_lineno or stmt.lineno
    return line, char_col(lines, line, stmt.end_col_offset or 0)


def statement_edit(
    lines: list[str],
    evaluator: Evaluator,
    event: AttrEvent,
    op: str,
    attr: str,
    persistent: bool | None,
    *,
    parameter: bool,
    cls: ast.ClassDef | None = None,
) -> tuple[StmtEdit, tuple[SpineEdit, ...]]:
    """The edit for one binding, and apart from it the device moves its value makes.

    The moves are left in the value: a rule that proves them pointless (rules/device_moves.py)
    puts them into the edit's spine, where they are dropped."""
    if event.unpacked is not None and not parameter:  # `self.a, self.b = v`: codemod/unpacking.py
        from codemod import unpacking

        function = unpacking.function_of(cls, event.stmt) if cls is not None else None
        return unpacking.edit(event, function, position(lines, event.stmt), end(lines, event.stmt), persistent), ()
    spine: tuple[SpineEdit, ...] = ()
    moves: tuple[SpineEdit, ...] = ()
    if event.value_node is not None:
        saved, evaluator.env = evaluator.env, (event.env or {})
        try:
            spine, moves = spine_edits(evaluator, event.value_node, parameter)
        finally:
            evaluator.env = saved
    edit = StmtEdit(*position(lines, event.stmt), op, attr, persistent, spine, end=end(lines, event.stmt))
    return edit, moves


def spine_edits(evaluator: Evaluator, node: ast.expr, parameter: bool) -> tuple[tuple[SpineEdit, ...], tuple[SpineEdit, ...]]:
    """(edits along a value's call chain, device moves along it that could be dropped).

    Edits: for parameters, requires_grad markers removed; `Variable(t)` unwrapped.  Moves:
    `.to(device)`, `.cuda()` (dropped whole) and `.to(device, dtype)` (the dtype kept)."""
    edits: list[SpineEdit] = []
    moves: list[SpineEdit] = []
    index = 0
    current = node
    while True:
        if isinstance(current, ast.Call):
            func = current.func
            if isinstance(func, ast.Attribute):
                receiver = evaluator.eval(func.value)
                if func.attr in tn.DEVICE_METHODS and (receiver.is_tensor or receiver.kind is Kind.PARAMETER):
                    how = device_move_args(evaluator, func.attr, current)
                    if how == "drop":
                        moves.append(SpineEdit(index, "drop"))
                    elif isinstance(how, tuple):
                        moves.append(SpineEdit(index, "keep_args", how[0], keywords=how[1]))
                elif parameter and func.attr == "requires_grad_" and receiver.is_tensor:
                    edits.append(SpineEdit(index, "drop"))
            qualname = evaluator.qualify(func)
            if qualname is not None and tn.classify_call(qualname) is tn.CallKind.VARIABLE and current.args:
                if parameter or _variable_is_plain(evaluator, current):
                    edits.append(SpineEdit(index, "unwrap"))
                break
            if parameter:
                if is_true(keyword(current, "requires_grad")):
                    edits.append(SpineEdit(index, "drop_kwarg", kwarg="requires_grad"))
            current = func
        elif isinstance(current, (ast.Attribute, ast.Subscript)):
            current = current.value
        else:
            break
        index += 1
    return tuple(edits), tuple(moves)


def _variable_is_plain(evaluator: Evaluator, call: ast.Call) -> bool:
    """`Variable(t)`, `Variable(t, requires_grad=False)`, `Variable(t, volatile=True)`: since
    torch 0.4 each returns a tensor sharing t's storage (volatile only warns that it has no
    effect), so for a buffer it is `t` itself.  Not when t requires grad: Variable detaches it."""
    inner = evaluator.eval(call.args[0])
    if not inner.is_tensor or inner.requires_grad:
        return False
    if len(call.args) > 1:
        return False
    return all(
        (kw.arg == "requires_grad" and is_false(kw.value)) or (kw.arg == "volatile" and isinstance(kw.value, ast.Constant))
        for kw in call.keywords
    )


def is_self_attr(node: ast.AST, owner: str | None, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) and node.value.id == owner


def uses_attr(node: ast.AST, owner: str | None, attr: str) -> bool:
    return any(is_self_attr(n, owner, attr) for n in ast.walk(node))


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
