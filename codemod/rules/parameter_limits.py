"""Tensors meant to be trained that cannot become an nn.Parameter as written.

Torch fact (torch 2.13): `nn.Parameter(torch.arange(3))` raises `RuntimeError: Only
Tensors of floating point and complex dtype can require gradients`; a cast of a
Parameter (`nn.Parameter(t).float()` on another dtype) is a non-leaf copy, not a
parameter; an attribute both registered as a buffer and assigned needs a decision only
its author can make.
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF210",
    "cannot-be-parameter",
    "meant to be trained, but it cannot become an nn.Parameter as written (integer dtype, a cast of a Parameter, nn cannot be named, registered and assigned)",
)
RULES = (RULE,)
