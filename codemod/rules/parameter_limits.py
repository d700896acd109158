"""Tensors meant to be trained that cannot become an nn.Parameter as written.

Torch fact (torch 2.13): `nn.Parameter(torch.arange(3))` raises `RuntimeError: Only
Tensors of floating point and complex dtype can require gradients`; a cast of a
Parameter (`nn.Parameter(t).float()` on another dtype) is a non-leaf copy, not a
parameter; an attribute both registered as a buffer and assigned needs a decision only
its author can make.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF210",
    "cannot-be-parameter",
    "meant to be trained, but it cannot become an nn.Parameter as written (integer dtype, a cast of a Parameter, nn cannot be named, registered and assigned)",
)
RULES = (RULE,)


def decide(facts: AttributeFacts) -> Decision | None:
    if facts.trained is None:
        return None
    if not facts.cls.can_spell_parameter:
        return RULE.skip("meant to be trained, but the file has no way to name nn.Parameter ('nn' is taken)")
    tensors = facts.tensor_bindings
    if any(e.value.integer for e in tensors):
        return RULE.skip(
            "meant to be trained, but an integer or bool tensor cannot be an nn.Parameter (only floating point "
            "and complex tensors can require gradients)"
        )
    if any(e.kind == "register_buffer" for e in tensors) and any(e.kind == "assign" for e in tensors):
        return RULE.skip("both registered as a buffer and assigned directly; rewrite by hand")
    for event in tensors:
        value = event.value
        if event.kind == "assign" and not value.moved_parameter and value.requires_grad == "nn.Parameter":
            return RULE.skip("a cast of an nn.Parameter is not a parameter; move the cast inside nn.Parameter(...)")
    return None
