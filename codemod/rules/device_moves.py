"""Construction-time device moves that matter are kept (the attribute is left alone).

Torch facts (torch 2.13): the codemod drops `.to(device)` / `.cuda()` from a buffer's value
because `model.to(device)` moves buffers; but while `__init__` runs the buffer is where it
was made.  Used later in `__init__` with tensors already on the target device, the
dropped move makes that code raise `Expected all tensors to be on the same device`; and a
child module or another attribute that keeps its own reference (`self.block =
Conv(self.adj)`) keeps pointing at the old tensor after `model.to()` replaces the
parent's buffer with a moved copy (`Module._apply` swaps `_buffers[name]` for a new
tensor unless the move is in place).
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF205",
    "device-move-matters",
    "moved to a device in __init__ and then used there, or handed to a child module / attribute that keeps its own reference",
)
RULES = (RULE,)
