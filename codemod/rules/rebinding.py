"""Attributes rebound or deleted after construction.

Torch facts (torch 2.13): assigning a non-tensor to a registered buffer raises
`TypeError: cannot assign 'int' as buffer`; after `del m.x` a later `m.x = t` makes a
plain attribute again, not a buffer; a base class's constructor setting the attribute
first makes `register_buffer` raise `KeyError`.
"""

from __future__ import annotations

from codemod.rules.base import Rule

REBOUND = Rule(
    "BUF211",
    "rebound-to-non-tensor",
    "reassigned outside __init__ (another method, a subclass) to a value that is not a tensor or cannot be typed; a buffer there would raise TypeError",
)
DELETED = Rule(
    "BUF212",
    "deleted-attribute",
    "deleted with `del self.x`; a later assignment would make a plain attribute again",
)
MIXED_REGISTERED = Rule(
    "BUF213",
    "also-registered",
    "also bound to a registered parameter or buffer in __init__; left for a decision by hand",
)
RULES = (REBOUND, DELETED, MIXED_REGISTERED)
