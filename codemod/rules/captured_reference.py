"""A trained tensor handed out before it is rebound keeps its holder on the first object.

Torch facts (torch 2.13): `nn.Parameter(t)` is a new leaf tensor, even when `t` is itself
a Parameter (it shares the storage, not the gradient).  In

    self.log_alpha = torch.tensor([0.0], requires_grad=True)
    self.alpha_optim = torch.optim.Adam([self.log_alpha])
    self.log_alpha = self.log_alpha.to(device)

the original's `.to(device)` returns the same tensor when it is already there, so the
optimizer updates the tensor forward reads.  Rewriting both bindings to `nn.Parameter(...)`
gives the optimizer one leaf and forward another: `backward()` fills the second's `.grad`,
`step()` sees none on the first, and the value never trains.  The attribute is left alone
when it is read (handed to an optimizer, a list, a child) between two of its bindings.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.call_sites import short_source
from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF214",
    "handed-out-before-rebinding",
    "a trained tensor read in __init__ (e.g. handed to an optimizer) before it is bound again; as nn.Parameter the holder would keep a leaf forward never uses",
    fact='nn.Parameter(t) is a new leaf: a tensor handed to an optimizer and then rebound as a Parameter leaves the optimizer holding a tensor forward never uses.',
    before='def __init__(self, device):\n    super().__init__()\n    self.log_alpha = torch.zeros(1, requires_grad=True)\n    self.opt = torch.optim.Adam([self.log_alpha])\n    self.log_alpha = self.log_alpha.to(device)',
)
RULES = (RULE,)

SUGGESTION = "make it an nn.Parameter once, on its final device, before anything keeps a reference to it"


def read_between(attr: str, bindings: list[ast.stmt], init: ast.AST | None, self_name: str | None) -> tuple[int, int] | None:
    """(line read, line rebound) for the first read of self.<attr> in __init__ after one
    binding and before the next one (the rebinding's own value excluded); None if none."""
    if init is None or self_name is None or len(bindings) < 2:
        return None
    ordered = sorted(bindings, key=lambda s: s.lineno)
    reads = sorted(
        n.lineno
        for n in ast.walk(init)
        if isinstance(n, ast.Attribute)
        and isinstance(n.ctx, ast.Load)
        and n.attr == attr
        and isinstance(n.value, ast.Name)
        and n.value.id == self_name
    )
    for earlier, later in zip(ordered, ordered[1:]):
        start = earlier.end_lineno or earlier.lineno
        for line in reads:
            if start < line < later.lineno:
                return line, later.lineno
    return None


def decide(facts: AttributeFacts) -> Decision | None:
    if facts.trained is None:
        return None
    bindings = [e.stmt for e in facts.tensor_bindings if e.kind == "assign"]
    handed_out = read_between(facts.attr, bindings, facts.cls.init, facts.cls.self_name)
    if handed_out is None:
        return None
    # each nn.Parameter(...) would be a new leaf
    return RULE.skip(
        f"meant to be trained, but read at line {handed_out[0]} ({_statement_at(facts.cls.init, handed_out[0])}) before "
        f"it is bound again at line {handed_out[1]}; as nn.Parameter whatever took it there would keep a leaf that "
        "forward never uses",
        SUGGESTION,
    )


def _statement_at(init: ast.AST | None, line: int) -> str:
    """The statement of __init__ on ``line``, as the reason shows it (`torch.optim.Adam([self.log_alpha])`)."""
    found = next((n for n in ast.walk(init) if isinstance(n, ast.stmt) and not isinstance(n, (ast.If, ast.For, ast.While,
                 ast.With, ast.Try, ast.FunctionDef)) and n.lineno == line), None) if init is not None else None
    return "another statement" if found is None else f"`{short_source(found, 70)}`"
