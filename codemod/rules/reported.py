"""Raw tensors reported and never rewritten: their shape is not one register_buffer fits.

Torch facts (torch 2.13): `Module._apply` (what `.to()` runs) and `state_dict()` visit
`_parameters`, `_buffers` and `_modules` only, so tensors inside a list, tuple or dict
attribute are neither moved nor saved; `setattr(self, name, t)` with a dynamic name and a
tensor assigned only outside `__init__` have no single constructor statement to rewrite.
"""

from __future__ import annotations

from codemod.rules.base import Rule

CONTAINER = Rule(
    "BUF301",
    "tensor-container",
    "a list, tuple or dict of tensors; its tensors are neither moved by .to() nor saved",
)
SETATTR = Rule(
    "BUF302",
    "setattr-tensor",
    "a tensor set with setattr(self, name, t)",
)
OUTSIDE_CONSTRUCTOR = Rule(
    "BUF303",
    "assigned-outside-constructor",
    "a tensor assigned only outside __init__; it is neither moved by .to() nor saved",
)
UNPACKED = Rule(
    "BUF304",
    "unpacked-assignment",
    "a tensor assigned by tuple unpacking or a chained assignment",
)
RULES = (CONTAINER, SETATTR, OUTSIDE_CONSTRUCTOR, UNPACKED)
