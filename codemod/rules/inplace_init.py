"""In-place initialisers return their argument.

Torch fact (torch 2.13): every `torch.nn.init.*_` function initialises its tensor in place
and returns that same object, so `nn.init.xavier_uniform_(nn.Parameter(t))` *is* an
`nn.Parameter` (`isinstance(..., nn.Parameter)` is True, and assigning it registers a
parameter).  Registering it as a buffer would take a trained weight out of `parameters()`:
the optimizer would never update it.
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF203",
    "init-returns-parameter",
    "nn.init.*_(nn.Parameter(...)) returns the Parameter it initialises; it is already a parameter",
)
RULES = (RULE,)
