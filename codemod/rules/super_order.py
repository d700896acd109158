"""Statements before `super().__init__()`.

Torch fact (torch 2.13): `register_buffer` (and assigning an `nn.Parameter`) before
`nn.Module.__init__` has run raises `AttributeError: cannot assign buffer before
Module.__init__() call`, while a raw tensor attribute there works.  Such a statement is
moved after the call when nothing before it reads the attribute, `self`, or rebinds the
names it uses (and no random draw changes order); otherwise it is left alone.
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF209",
    "before-super-init",
    "assigned before super().__init__() where it cannot be moved after it; register_buffer there raises AttributeError",
)
RULES = (RULE,)
