"""Helpers called from `__init__` are constructor code.

Torch fact (torch 2.13): `register_buffer("x", t)` after `self.x = ...` raises
`KeyError: "attribute 'x' already exists"`.  An attribute first bound in a helper
(`self._init_x()`) that `__init__` calls, and registered later in `__init__` (or the
reverse order with a raw assignment), hits exactly that; the analysis follows `self.`
method calls made by `__init__` (recursively, each method once) both to find tensors and
to check for such bindings.
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF208",
    "bound-in-constructor-helper",
    "also bound in a method that __init__ calls; rewriting one binding and not the other would raise KeyError",
)
RULES = (RULE,)
