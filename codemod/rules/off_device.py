"""Tensors used only off the model's device stay plain attributes.

Torch fact (torch 2.13): `model.to(device)` / `.cuda()` move every buffer.  A tensor read
only by code that runs outside the model on the CPU (a sampler, a `collate_fn`, a method
passed as a callback to a DataLoader), and never by `forward`, is meant to stay where it
is: as a buffer it follows the model to the GPU and that code then mixes devices or
copies back on every call.
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF206",
    "off-device-use",
    "read only by code that runs off the model's device (sampling, collate_fn, methods passed as callbacks), never by forward",
)
RULES = (RULE,)
