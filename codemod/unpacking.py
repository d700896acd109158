"""Attributes bound by tuple unpacking: `self.a, self.b = f(...)`.

Where every attribute of self that the statement binds is a plain tensor, the statement is
rewritten to unpack into fresh local names, each then registered:

    self.mask, self.size = build(adj)          mask, size = build(adj)
                                        ->     self.register_buffer("mask", mask, persistent=False)
                                               self.register_buffer("size", size, persistent=False)

(only the attributes the analysis decides to register are split out; the others stay
targets of the unpacking).  Torch fact: `register_buffer(name, t)` stores the very tensor
`t` under `name` (torch 2.13 `Module.register_buffer`), so the attribute holds the same
object as before, now moved by `.to()`; unpacking into locals first evaluates the value
once, as the original statement did.  Device moves on the items are left as they are.

Where some attribute of the statement is not proven a plain tensor, or the statement has
a shape the rewrite does not split (a chained assignment, a starred or nested target, the
same attribute twice, a value meant to be trained), every tensor it binds is reported
(BUF304) with the reason.
"""

from __future__ import annotations

import ast
import builtins
from keyword import iskeyword

from codemod.plans import StmtEdit

REASON_PREFIX = "assigned by tuple unpacking"


def skip_reason(attr: str, events) -> str | None:
    """Why the unpacking statements binding `attr` cannot be split; None when they can (or
    when `attr` is bound by no unpacking).  `events`: the attribute's events, in order."""
    for event in events:
        if event.kind == "unpack" and event.value is not None and (event.value.is_tensor or event.value.kind.name == "SEQUENCE"):
            return "assigned by a chained assignment (`self.a = self.b = t`), which binds one tensor to several names; rewrite it as one assignment per attribute"
        group = event.unpacked
        if group is None or event.kind != "assign":
            continue
        if not any(e.value is not None and (e.value.is_tensor or e.value.kind.name == "SEQUENCE") for e in group):
            continue  # no tensor bound by this statement: nothing to rewrite or report here
        if not event.flat_unpacking:
            return f"{REASON_PREFIX} into a starred or nested target; rewrite it as one assignment per attribute"
        names = [e.attr for e in group]
        if len(set(names)) != len(names):
            return f"{REASON_PREFIX}, binding one attribute twice"
        for position, other in enumerate(group):
            value = other.value
            if value is None or not value.is_tensor:
                what = "a sequence" if value is not None and value.kind.name == "SEQUENCE" else (
                    "a non-tensor" if value is not None and value.kind.name in ("NON_TENSOR", "NONE") else "a value the codemod cannot type"
                )
                return (
                    f"{REASON_PREFIX} (line {event.stmt.lineno}), where self.{other.attr} gets {what}; "
                    "register each tensor with its own register_buffer call, or unpack into locals first"
                )
            if value.maybe_parameter:
                return f"{REASON_PREFIX} (line {event.stmt.lineno}), where self.{other.attr} may be an nn.Parameter passed in"
            if value.requires_grad:
                return f"{REASON_PREFIX} (line {event.stmt.lineno}), where self.{other.attr} is meant to be trained; build each nn.Parameter in its own assignment"
        if any(e.kind == "requires_grad" and e.attr in names for e in events):
            return f"{REASON_PREFIX} (line {event.stmt.lineno}) and then made trainable; build the nn.Parameter in its own assignment"
        trained = next((e for e in events if e is not event and e.value is not None
                        and (e.value.requires_grad or e.value.kind.name == "PARAMETER")), None)
        if trained is not None:
            # whatever becomes of the later binding, the attribute ends a parameter: splitting
            # this statement would register a buffer under the parameter's name
            return (f"{REASON_PREFIX} (line {event.stmt.lineno}), then bound to a trained tensor (line "
                    f"{trained.stmt.lineno}); build the nn.Parameter in its own assignment")
    return None


def edit(event, function: ast.FunctionDef | ast.AsyncFunctionDef | None, position: tuple[int, int], end: tuple[int, int], persistent: bool | None) -> StmtEdit:
    """The edit that splits `event.attr` out of its unpacking statement."""
    names = local_names(function, [e.attr for e in event.unpacked])
    return StmtEdit(*position, "unpack", event.attr, persistent, (), end=end, target_local=names[event.attr])


def local_names(function: ast.FunctionDef | ast.AsyncFunctionDef | None, attrs: list[str]) -> dict[str, str]:
    """A fresh local name for each attribute: its own name where the function uses no such
    name (a local that shadowed a global read elsewhere in the function would make that
    read fail), else the first free of `name_`, `name_1`, ..."""
    taken: set[str] = set()
    if function is not None:
        for node in ast.walk(function):
            if isinstance(node, ast.Name):
                taken.add(node.id)
            elif isinstance(node, ast.arg):
                taken.add(node.arg)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                taken.update(node.names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                taken.add(node.name)
            elif isinstance(node, ast.alias):
                taken.add((node.asname or node.name).partition(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                taken.add(node.name)
    chosen: dict[str, str] = {}
    for attr in attrs:
        base = attr.lstrip("_") or "value"
        if not base[:1].isalpha():
            base = f"v{base}"
        candidates = [base, f"{base}_", *(f"{base}_{i}" for i in range(1, 1000))]
        for name in candidates:
            if name.isidentifier() and not iskeyword(name) and not hasattr(builtins, name) and name not in taken:
                chosen[attr] = name
                taken.add(name)
                break
    return chosen


def function_of(cls: ast.ClassDef, stmt: ast.stmt) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The method of `cls` whose body holds `stmt`."""
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= stmt.lineno <= (node.end_lineno or node.lineno):
            return node
    return None
