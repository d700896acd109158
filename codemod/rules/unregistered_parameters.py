"""An attribute bound to an operation on an nn.Parameter made on the spot
(`self.b = nn.Parameter(torch.zeros(n, 1)).squeeze(1)`) is reported, never rewritten.

The attribute holds the operation's result, a plain tensor that requires grad; the
Parameter itself is bound to nothing, so `model.parameters()` never yields it: no optimizer
trains it, `state_dict()` does not save it, and `.to()` does not move it.  Making the result
a buffer would freeze that state in place, and making it a parameter would train a different
leaf than the code shows, so the finding only says what is wrong and how to mend it.
(A device move, `nn.Parameter(t).to(device)`, is BUF216.)  A cast that changes the dtype of
the parameter made (`nn.Parameter(torch.FloatTensor(k, n)).double()`) returns such a copy
too; `.float()` of a float32 parameter returns the parameter itself, which is registered.

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


# Casts that always change the dtype of a float32 tensor (`.float()` does not: it hands back
# the Parameter itself).
_CHANGING_CASTS = frozenset({"double", "half", "bfloat16", "long", "int", "short", "byte", "char", "bool"})
# torch calls that make a float32 tensor when no dtype is given (the default dtype unchanged).
_FLOAT32_MAKERS = frozenset({"FloatTensor", "Tensor", "randn", "rand", "zeros", "ones", "empty", "eye", "linspace"})


def _operation_on_new_parameter(facts: AttributeFacts) -> tuple[int, str] | None:
    """(line, method) of a constructor binding `nn.Parameter(...).<method>(...)`, a device
    move after it or not (`nn.Parameter(torch.FloatTensor(k, n)).double().to(device)`)."""
    for event in facts.events:
        node = event.value_node
        if event.kind != "assign":
            continue
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in tn.DEVICE_METHODS and isinstance(node.func.value, ast.Call) \
                and isinstance(node.func.value.func, ast.Attribute):
            node = node.func.value  # `.to(device)` after the operation: the operation decides
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        inner = node.func.value
        if not isinstance(inner, ast.Call) or \
                tn.classify_call(facts.cls.symbols.qualify(inner.func) or "") is not tn.CallKind.PARAMETER:
            continue
        if node.func.attr in _NEW_TENSOR_METHODS:
            return event.stmt.lineno, node.func.attr
        # `.double()` of a float32 parameter: a copy (`.float()`, `.requires_grad_(False)` may
        # hand back the Parameter itself; a device move alone is BUF216's)
        if node.func.attr in _CHANGING_CASTS and not node.args and _makes_float32(facts, inner):
            return event.stmt.lineno, node.func.attr
    return None


def _makes_float32(facts: AttributeFacts, parameter: ast.Call) -> bool:
    """Whether the tensor nn.Parameter wraps is made float32 on the spot (`torch.FloatTensor(k, n)`,
    `torch.randn(n)` with no dtype)."""
    made = parameter.args[0] if parameter.args else None
    if not isinstance(made, ast.Call) or any(k.arg == "dtype" for k in made.keywords):
        return False
    name = facts.cls.symbols.qualify(made.func) or ""
    return name.startswith("torch.") and name.rpartition(".")[2] in _FLOAT32_MAKERS


def wants(facts: AttributeFacts) -> bool:
    return _operation_on_new_parameter(facts) is not None


def decide(facts: AttributeFacts) -> Decision | None:
    found = _operation_on_new_parameter(facts)
    if found is None:
        return None
    line, method = found
    if method in _CHANGING_CASTS:
        return RULE.skip(
            f"holds nn.Parameter(...).{method}() (line {line}): the cast changes the dtype, so it returns a plain copy "
            "computed from a parameter that nothing registers: model.parameters() never yields that parameter, so no "
            "optimizer trains it, and state_dict() and .to() leave it out",
            f"make the tensor in that dtype before wrapping it, self.{facts.attr} = nn.Parameter(t.{method}()) (a new "
            "state_dict key: load older checkpoints with strict=False)",
        )
    return RULE.skip(
        f"holds nn.Parameter(...).{method}(...) (line {line}), a plain tensor computed from a parameter that nothing "
        "registers: model.parameters() never yields that parameter, so no optimizer trains it, and state_dict() and "
        ".to() leave it out",
        f"register the parameter itself (self.{facts.attr} = nn.Parameter(...)) and apply .{method}(...) where it is read",
    )
