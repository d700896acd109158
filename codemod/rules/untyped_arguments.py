"""A constructor argument kept as an attribute and used as only a tensor is used is reported.

`self.adj = adj`, with `torch.mm(self.adj, x)` in forward, holds a tensor whenever the
class works at all, yet when no repository call passes a value the analysis can type (the model is built
by a script from a loaded file, or from a dictionary) nothing proves it.  Rewriting it
would be a guess: a Parameter passed in must stay a parameter, and an argument that is
sometimes a number would make register_buffer raise.  So it is reported, with the use that
gives it away, for the user to decide.

Torch fact (torch 2.13): a tensor in a plain attribute is neither moved by `.to()` nor
saved in `state_dict()`; `Module.__setattr__` registers an nn.Parameter assigned to an
attribute on its own, so a Parameter passed in needs no change.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule
from codemod.tensors import Kind

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF308",
    "untyped-tensor-argument",
    "keeps a constructor argument that the class uses as only a tensor is used, while no repository call passes a "
    "value the codemod can type, or that one call hands a tensor and another a value the codemod cannot type or no "
    "tensor at all; if it is a plain tensor it is neither moved by .to() nor saved",
    fact="A tensor in a plain attribute is not moved by .to() nor saved in state_dict(); an nn.Parameter assigned to "
    "an attribute is registered by Module.__setattr__ on its own.",
    before="def __init__(self, adj, dim):\n    super().__init__()\n    self.adj = adj\n    self.linear = nn.Linear(dim, dim)\n\n"
    "def forward(self, x):\n    return torch.mm(self.adj, self.linear(x))",
)
RULES = (RULE,)


def wants(facts: AttributeFacts) -> bool:
    """Bound in the constructor only to a kept argument the analysis could not type, used
    as a tensor by the class or handed a tensor by one repository call and an untyped value
    by another (ClassFacts.untyped_tensor_arguments), and never registered or made a
    parameter elsewhere."""
    if facts.attr not in facts.cls.untyped_tensor_arguments or facts.considered or not facts.events:
        return False
    if not all(e.kind == "assign" and e.value is not None and e.value.kind is Kind.UNKNOWN for e in facts.events):
        return False
    return not any(
        e.kind in ("register_buffer", "registered") or (e.value is not None and e.value.kind in (Kind.PARAMETER, Kind.BUFFER))
        for _, e in facts.outside
    )


def decide(facts: AttributeFacts) -> Decision | None:
    if not wants(facts):
        return None
    argument, where, calls = facts.cls.untyped_tensor_arguments[facts.attr]
    value = facts.events[0].value_node
    source = ast.unparse(value) if value is not None else argument
    suggestion = f'if a plain tensor (not an nn.Parameter) is always passed: self.register_buffer("{facts.attr}", {source}, persistent=False)'
    if "." not in argument and (source == argument or source.startswith((argument + ".", argument + "["))):
        # a parameter of the signature (not a keyword taken out of **kwargs)
        suggestion += f"; or annotate the argument (`{argument}: torch.Tensor`) and run again"
    used = f", which the class uses as a tensor ({where})," if where else ""
    if calls is not None and len(calls) == 3:
        tensor_at, other_at, _ = calls
        return RULE.skip(
            f"keeps the argument {argument}{used}; the call of {facts.cls.cls.name} at {tensor_at} passes a tensor, "
            f"which stays a plain attribute (neither moved by .to() nor saved), but the one at {other_at} passes a "
            "value that is no tensor, which register_buffer would refuse",
            "if the tensor should move with the model, convert the other values to tensors in __init__ and "
            f'register it: self.register_buffer("{facts.attr}", torch.as_tensor({argument}), persistent=False)')
    if calls is not None:
        tensor_at, untyped_at = calls
        said = (f"keeps the argument {argument}{used} and the call of {facts.cls.cls.name} at {tensor_at} passes a "
                f"tensor, but the one at {untyped_at} passes a value the codemod cannot type")
    else:
        said = (f"keeps the argument {argument}{used} but no call of {facts.cls.cls.name} in the repository passes a "
                "value the codemod can type")
    return RULE.skip(f"{said}; a plain tensor there is neither moved by .to() nor saved", suggestion)
