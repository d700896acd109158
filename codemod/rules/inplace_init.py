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
    fact='nn.init.*_ functions return the tensor they initialise, so nn.init.xavier_uniform_(nn.Parameter(t)) is that Parameter: it is already trained and never a buffer.',
    before='def __init__(self, n):\n    super().__init__()\n    self.weight = nn.init.xavier_uniform_(nn.Parameter(torch.empty(n, n)))',
)
RULES = (RULE,)


def result_kind(argument_kind: str, argument_is_tensor: bool) -> str:
    """What `nn.init.<name>_(argument)` evaluates to: the argument itself.

    Returns "parameter" / "buffer" when the argument is one, "tensor" for a plain
    tensor, "unknown" otherwise (an argument the analysis cannot type may be a Parameter).
    """
    if argument_kind in ("PARAMETER", "BUFFER"):
        return argument_kind.lower()
    return "tensor" if argument_is_tensor else "unknown"
