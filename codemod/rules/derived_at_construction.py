"""A tensor that requires grad, from which construction computes other values, is reported.

Torch facts (torch 2.13): an `nn.Parameter` is in `parameters()`, so every optimizer built
from `model.parameters()` updates it; a raw tensor with `requires_grad=True` is in neither
`parameters()` nor `state_dict()`, and autograd still differentiates through it.

`requires_grad=True` says that gradients flow to the tensor, not that it is trained.
Coordinates that a physics model differentiates its outputs with respect to
(`torch.autograd.grad(u, x)`) require grad and must never move.  When construction computes
other values from the tensor (`x_phys = self.mapping.map(self.xi_ref, ...)` in a helper
`__init__` calls), a trained tensor would leave those values stale after the first optimizer
step: the class treats it as fixed, so nn.Parameter would change what it computes.  It is
reported instead of being made a Parameter (BUF103).  An in-place initialisation
(`nn.init.xavier_uniform_(self.w)`) is not such a computation.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF223",
    "requires-grad-input",
    "a tensor that requires grad, from which construction computes other values: a value to differentiate with respect "
    "to (coordinates), which nn.Parameter would hand to every optimizer, so it is reported",
    fact="An nn.Parameter is in model.parameters(), which every optimizer built from it updates; a raw tensor with "
    "requires_grad=True is not, and autograd still differentiates through it.",
    before="def __init__(self, n):\n    super().__init__()\n    self.xi = torch.linspace(0, 1, n).requires_grad_()\n"
    "    self.x = self.mapping(self.xi)",
)
RULES = (RULE,)

SUGGESTION = (
    "if it is only differentiated with respect to, leave it; if it must move with the model, "
    'self.register_buffer("{attr}", ..., persistent=False) keeps requires_grad; if it is meant to be trained, make it '
    "nn.Parameter and compute what depends on it in forward"
)


def decide(facts: AttributeFacts) -> Decision | None:
    from codemod.rules.parameters import TRAINED_TENSOR, trained_rule

    if facts.trained is None or trained_rule(facts) != TRAINED_TENSOR.code:
        return None
    found = derived_from(facts)
    if found is None:
        return None
    where, line, target = found
    return RULE.skip(
        f"requires grad, but {where} computes {target} from it (line {line}): construction treats it as fixed, so it "
        "is a value to differentiate with respect to, not a weight; as nn.Parameter every optimizer built from "
        "model.parameters() would move it and leave that value stale",
        SUGGESTION.format(attr=facts.attr),
    )


def derived_from(facts: AttributeFacts) -> tuple[str, int, str] | None:
    """(where, line, what) of the first assignment during construction whose value reads
    self.<attr> (in __init__ or a method it calls, followed recursively), other than the
    attribute's own bindings; None when construction computes nothing from it."""
    cls = facts.cls
    init, self_name = cls.init, cls.self_name
    if init is None or self_name is None:
        return None
    own = {id(e.stmt) for e in [*facts.events, *(e for _, e in facts.outside)]}
    seen: set[str] = set()

    def visit(function: ast.AST, name: str, where: str) -> tuple[str, int, str] | None:
        for node in ast.walk(function):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and id(node) not in own \
                    and node.value is not None and _reads(node.value, name, facts.attr):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                return where, node.lineno, " and ".join(ast.unparse(t) for t in targets)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == name \
                    and node.func.attr not in seen:
                seen.add(node.func.attr)
                method = cls.own_method(node.func.attr)
                if method is not None and method.args.args:
                    found = visit(method, method.args.args[0].arg, f"{cls.cls.name}.{method.name}, which __init__ calls,")
                    if found is not None:
                        return found
        return None

    return visit(init, self_name, "__init__")


# What a tensor tells without its values: a shape, a dtype, a device; an optimizer step
# changes none of them, so a value computed from them does not go stale.
_METADATA = frozenset({"shape", "dtype", "device", "ndim", "requires_grad", "is_cuda", "size", "dim", "numel",
                       "nelement", "type", "get_device"})


def _reads(value: ast.expr, self_name: str, attr: str) -> bool:
    """Whether ``value`` reads the values of self.<attr> (not only its shape, dtype or device)."""
    metadata: set[int] = set()
    for node in ast.walk(value):
        if isinstance(node, ast.Attribute) and node.attr in _METADATA:
            metadata.add(id(node.value))  # `self.w.shape`, `self.w.size()`
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("len", "isinstance"):
            metadata.update(id(a) for a in node.args)
    return any(isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.ctx, ast.Load)
               and isinstance(n.value, ast.Name) and n.value.id == self_name and id(n) not in metadata
               for n in ast.walk(value))
