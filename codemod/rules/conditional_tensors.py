"""A constructor value that is a tensor in one arm of a conditional and something else in the
other is reported.

`self.std = std if isinstance(std, str) else torch.tensor(std)` keeps a raw tensor whenever
the tensor arm runs, which neither moves with `.to()` nor is saved; `register_buffer` raises
`TypeError` for the other arm's string, so no rewrite of the statement fits both arms.  The
fix is a branch of the maintainer's own: register the tensor where it is made.

Torch fact (torch 2.13): `register_buffer(name, value)` accepts only a tensor or None (a
string or a number raises TypeError); a tensor in a plain attribute is not moved by `.to()`
nor saved in `state_dict()`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF315",
    "tensor-in-one-arm",
    "keeps a tensor in one arm of a conditional and, in the other, a value that may not be one; no rewrite fits both "
    "arms, and the tensor, when it is chosen, is neither moved by .to() nor saved",
    fact="register_buffer(name, value) accepts only a tensor or None (a string or a number raises TypeError); a "
    "tensor in a plain attribute is not moved by .to() nor saved in state_dict().",
    before="def __init__(self, std):\n    super().__init__()\n"
    "    self.std = std if isinstance(std, str) else torch.tensor(std)",
)
RULES = (RULE,)


def wants(facts: AttributeFacts) -> bool:
    return _conditional(facts) is not None


def _conditional(facts: AttributeFacts) -> ast.IfExp | None:
    """The conditional of the attribute's constructor binding, when one binding is such a
    conditional and none binds a tensor outright (those the other rules decide)."""
    if facts.considered:
        return None
    found = None
    for event in facts.events:
        if event.kind == "assign" and event.value is not None and event.value.tensor_in_one_arm \
                and isinstance(event.value_node, ast.IfExp):
            found = found or event.value_node
    return found


def decide(facts: AttributeFacts) -> Decision | None:
    node = _conditional(facts)
    if node is None:
        return None
    test = ast.unparse(node.test)
    if len(test) > 50:
        test = test[:47] + "..."
    return RULE.skip(
        f"a tensor in one arm of a conditional (`if {test}`) and, in the other, a value that may not be one: "
        "register_buffer refuses anything but a tensor or None, and the tensor, when chosen, is neither moved by .to() "
        "nor saved",
        f'if both arms always give a tensor: self.register_buffer("{facts.attr}", <the conditional>, persistent=False); '
        "otherwise split it into an if statement and register the tensor arm's value",
    )
