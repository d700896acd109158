"""Names register_buffer cannot take.

Torch fact (torch 2.13): `register_buffer(name, ...)` raises `KeyError: "attribute
'<name>' already exists"` when `hasattr(self, name)` and `name not in self._buffers`: a
method, a class attribute, a submodule, a parameter, an attribute of `nn.Module` itself
(`training`), or a plain attribute set before (by a base class's constructor, or earlier
in this one).
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF207",
    "name-collision",
    "the name is also a method, class attribute, nn.Module attribute, registered parameter/submodule, or set by a base class first; register_buffer would raise KeyError",
)
RULES = (RULE,)
