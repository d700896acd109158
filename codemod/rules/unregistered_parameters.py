"""An attribute bound to an operation on an nn.Parameter made on the spot
(`self.b = nn.Parameter(torch.zeros(n, 1)).squeeze(1)`) is reported, never rewritten.

The attribute holds the operation's result, a plain tensor that requires grad; the
Parameter itself is bound to nothing, so `model.parameters()` never yields it: no optimizer
trains it, `state_dict()` does not save it, and `.to()` does not move it.  Making the result
a buffer would freeze that state in place, and making it a parameter would train a different
leaf than the code shows, so the finding only says what is wrong and how to mend it.
(A device move, `nn.Parameter(t).to(device)`, is BUF216.)

Torch fact (torch 2.13): `nn.Parameter(t).squeeze(1)` is a non-leaf tensor (its grad_fn is
SqueezeBackward) and not an nn.Parameter; a module attribute holding it is in neither
`parameters()` nor `state_dict()`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod import torch_names as tn
from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF316",
    "unregistered-parameter",
    "holds an operation on an nn.Parameter made on the spot (nn.Parameter(t).squeeze(1)): the parameter itself is never "
    "registered, so nothing trains, saves or moves it",
    fact="nn.Parameter(t).squeeze(1) is a non-leaf plain tensor (grad_fn SqueezeBackward), not a Parameter: a module "
    "attribute holding it is in neither parameters() nor state_dict().",
    before="def __init__(self, d):\n    super().__init__()\n    self.bias = nn.Parameter(torch.zeros(d, 1)).squeeze(1)",
)
RULES = (RULE,)


# Methods whose result is never the tensor they are called on (a view or a new tensor):
# in-place methods (`requires_grad_`), casts (`.float()` on a float32 parameter) and
# `.contiguous()` may return the Parameter itself, which then is registered.
_NEW_TENSOR_METHODS = frozenset({
    "squeeze", "unsqueeze", "t", "transpose", "permute", "view", "reshape", "expand", "expand_as", "flatten",
    "unflatten", "repeat", "narrow", "select", "clone", "detach", "mul", "add", "sub", "div", "exp", "log", "abs",
    "neg", "sigmoid", "tanh", "softmax", "sum", "mean", "matmul", "mm",
})


def _operation_on_new_parameter(facts: AttributeFacts) -> tuple[int, str] | None:
    """(line, method) of a constructor binding `nn.Parameter(...).<method>(...)`."""
    for event in facts.events:
        node = event.value_node
        if event.kind != "assign" or not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        inner = node.func.value
        if node.func.attr not in _NEW_TENSOR_METHODS or not isinstance(inner, ast.Call):
            continue  # `.requires_grad_(False)`, `.float()` may hand back the Parameter itself; a move is BUF216's
        if tn.classify_call(facts.cls.symbols.qualify(inner.func) or "") is tn.CallKind.PARAMETER:
            return event.stmt.lineno, node.func.attr
    return None


def wants(facts: AttributeFacts) -> bool:
    return _operation_on_new_parameter(facts) is not None


def decide(facts: AttributeFacts) -> Decision | None:
    found = _operation_on_new_parameter(facts)
    if found is None:
        return None
    line, method = found
    return RULE.skip(
        f"holds nn.Parameter(...).{method}(...) (line {line}), a plain tensor computed from a parameter that nothing "
        "registers: model.parameters() never yields that parameter, so no optimizer trains it, and state_dict() and "
        ".to() leave it out",
        f"register the parameter itself (self.{facts.attr} = nn.Parameter(...)) and apply .{method}(...) where it is read",
    )
