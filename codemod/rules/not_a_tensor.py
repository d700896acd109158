"""Only what is proven a tensor becomes a buffer.

Torch fact (torch 2.13): `register_buffer(name, value)` raises `TypeError: cannot assign
'<type>' object to buffer` for anything but a tensor or None, and assigning a non-tensor
to a registered buffer raises `TypeError` too; `register_buffer` on a name already set as a
plain attribute raises `KeyError: attribute '<name>' already exists`.  `torch.load(...)`
returns whatever was saved (a dict, a list, a number), so its result, values taken from
it by string keys and `dict.get(...)` results are not tensors unless proven.
"""

from __future__ import annotations

import ast

from codemod.rules.base import Rule

RULE = Rule(
    "BUF204",
    "not-a-tensor",
    "bound (first, or also) to a value that is not a tensor or cannot be typed; register_buffer would raise TypeError or KeyError",
)
RULES = (RULE,)


def loads_anything(qualname: str) -> bool:
    """`torch.load(...)` unpickles whatever was saved: never proven a tensor."""
    return qualname in ("torch.load", "torch.serialization.load")


def is_string_key(index: ast.expr) -> bool:
    """`x["meta"]`: a tensor cannot be indexed by a string, so `x` is a mapping."""
    return isinstance(index, ast.Constant) and isinstance(index.value, str)
