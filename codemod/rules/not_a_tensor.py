"""Only what is proven a tensor becomes a buffer.

Torch fact (torch 2.13): `register_buffer(name, value)` raises `TypeError: cannot assign
'<type>' object to buffer` for anything but a tensor or None, and assigning a non-tensor
to a registered buffer raises `TypeError` too; `register_buffer` on a name already set as a
plain attribute raises `KeyError: attribute '<name>' already exists`.  `torch.load(...)`
returns whatever was saved (a dict, a list, a number), so its result, values taken from
it by string keys and `dict.get(...)` results are not tensors unless proven.
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF204",
    "not-a-tensor",
    "bound (first, or also) to a value that is not a tensor or cannot be typed; register_buffer would raise TypeError or KeyError",
)
RULES = (RULE,)
