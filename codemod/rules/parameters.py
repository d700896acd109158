"""Tensors meant to be trained become nn.Parameter.

Torch facts (torch 2.13): a raw tensor with `requires_grad=True` is in neither
`parameters()` nor `state_dict()`, so an optimizer built from `model.parameters()` never
updates it; a buffer registered with `requires_grad=True` gets a `.grad` from
`backward()` but `opt.step()` leaves it unchanged; `nn.Parameter(t).to(device)` on a
device other than the parameter's returns a non-leaf copy that is not a Parameter.
"""

from __future__ import annotations

from codemod.rules.base import Rule

TRAINED_TENSOR = Rule(
    "BUF103",
    "trained-tensor-parameter",
    "a tensor that requires grad (requires_grad=True, .requires_grad_(), Variable(..., requires_grad=True)) -> nn.Parameter",
)
BUFFER_REQUIRES_GRAD = Rule(
    "BUF104",
    "buffer-requires-grad-parameter",
    "a registered buffer created with requires_grad=True (never updated by an optimizer) -> nn.Parameter",
)
MOVED_PARAMETER = Rule(
    "BUF105",
    "moved-parameter",
    "nn.Parameter(t).to(device), a non-leaf copy that is not a parameter -> nn.Parameter(t)",
)
RULES = (TRAINED_TENSOR, BUFFER_REQUIRES_GRAD, MOVED_PARAMETER)
