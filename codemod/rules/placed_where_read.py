"""A float tensor that every reader moves to the input's device keeps its own dtype.

Torch facts (torch 2.13): `model.half()`, `model.to(torch.bfloat16)` and friends cast every
floating-point buffer and leave plain tensor attributes alone.  Code that reads its tensor
only as `self.freqs.to(x.device)` (or `.to(device=...)`, `.cuda()`) already places it where
it is used, and today keeps it in the dtype it was built in; as a buffer the only change
would be that cast.  For sinusoidal frequencies, bucket boundaries or normalisation
constants kept in float32 on purpose (`torch.outer(t.float(), self.freqs.to(t.device))`),
a bfloat16 cast rounds them to 3 significant digits and shifts the values computed from
them.  Integer and bool tensors are never cast by float dtype moves and are not concerned.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF215",
    "placed-where-read",
    "a float tensor every reader moves to a device itself (`self.t.to(x.device)`); a buffer would only add a cast by model.half() / .to(bfloat16)",
    fact='model.half() / .to(torch.bfloat16) cast floating-point buffers; code that reads its table only as self.freqs.to(x.device) keeps it in float32 today, and a bfloat16 cast would round it.',
    before='def __init__(self, dim):\n    super().__init__()\n    self.freqs = 1.0 / 10000 ** (torch.arange(0, dim, 2).float() / dim)\n\ndef forward(self, t):\n    return torch.outer(t.float(), self.freqs.to(t.device))',
)
RULES = (RULE,)

REASON = (
    "every read moves it to a device itself ({where}); as a buffer it would also be cast by model.half() "
    "or model.to(torch.bfloat16), which the code does not do today: it would take the model's dtype where it keeps "
    "its own (values that float16 cannot hold exactly would be rounded)"
)
SUGGESTION = "leave it as it is; register it with persistent=False if casting it with the model is intended"

_METADATA = frozenset({"device", "dtype", "shape", "ndim", "is_cuda"})


def _is_device_argument(node: ast.expr) -> bool:
    """`x.device`, `device`, `self.device`, `"cuda"`, `torch.device(...)`: a device, not a dtype."""
    if isinstance(node, ast.Attribute):
        return node.attr == "device" or "device" in node.attr.lower()
    if isinstance(node, ast.Name):
        return "device" in node.id.lower()
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.split(":")[0] in ("cuda", "cpu", "mps", "xpu", "meta")
    if isinstance(node, ast.Call):
        func = node.func
        return (isinstance(func, ast.Attribute) and func.attr == "device") or (isinstance(func, ast.Name) and func.id == "device")
    return False


def _device_only_move(call: ast.Call) -> bool:
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "cuda":
        return True
    if func.attr != "to":
        return False
    keywords = {k.arg for k in call.keywords}
    if keywords - {"device", "non_blocking", "copy"} or len(call.args) > 1:
        return False
    if call.args:
        return not keywords & {"device"} and _is_device_argument(call.args[0])
    return "device" in keywords


def _placed_by_forward(attr: str, cls: ast.ClassDef) -> int | None:
    """The line where forward, on every call and before anything else reads it, rebinds the
    attribute to a device-only move of itself (`self.window = self.window.to(x.device)`): from
    there on the class's own code has put it where it is used, in the dtype it was built in."""
    forward = next((m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name == "forward"), None)
    if forward is None or not forward.args.args:
        return None
    self_name = forward.args.args[0].arg

    def is_attr(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) and node.value.id == self_name

    for stmt in forward.body:
        value = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and is_attr(stmt.targets[0]) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and is_attr(value.func.value) and _device_only_move(value):
            return stmt.lineno
        if any(is_attr(n) for n in ast.walk(stmt)):
            return None  # read (or bound) before any such rebinding
    return None


def device_moving_readers(attr: str, cls: ast.ClassDef) -> list[str] | None:
    """`Class.method (line n)` for every read of self.<attr> outside __init__ when each one is
    a device-only move (metadata reads and `is None` tests aside), or when forward first
    rebinds it to such a move of itself (_placed_by_forward: every later read, in forward or
    in the methods it calls, sees it placed); None when any read uses the tensor some other
    way, or when nothing outside __init__ reads it."""
    placed = _placed_by_forward(attr, cls)
    if placed is not None:
        return [f"{cls.name}.forward rebinds it to a move of itself at line {placed}, before every other read"]
    found: list[str] = []
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name == "__init__" or not method.args.args:
            continue
        self_name = method.args.args[0].arg
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(method):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for node in ast.walk(method):
            if not (
                isinstance(node, ast.Attribute)
                and node.attr == attr
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
                and node.value.id == self_name
            ):
                continue
            parent = parents.get(id(node))
            if isinstance(parent, ast.Attribute) and parent.attr in _METADATA:
                continue
            if isinstance(parent, ast.Compare) and all(
                isinstance(c, ast.Constant) and c.value is None for c in parent.comparators
            ):
                continue
            call = parents.get(id(parent)) if isinstance(parent, ast.Attribute) else None
            if isinstance(call, ast.Call) and call.func is parent and _device_only_move(call):
                found.append(f"{cls.name}.{method.name}, line {node.lineno}")
                continue
            return None
    return found or None


def decide(facts: AttributeFacts) -> Decision | None:
    tensors = [e for e in facts.events if e.kind == "assign" and e.value is not None and e.value.is_tensor]
    if any(e.value.integer for e in tensors):
        return None  # float casts never touch integer and bool tensors
    moved = device_moving_readers(facts.attr, facts.cls.cls)
    if moved is None:
        return None
    return RULE.skip(REASON.format(where="; ".join(moved)), SUGGESTION)
