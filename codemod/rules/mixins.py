"""A tensor bound by a method of a base class that the constructor calls is reported.

Torch fact (torch 2.13): `register_buffer` works only on an `nn.Module` whose
`Module.__init__` has run (`AttributeError: cannot assign buffer before Module.__init__()
call`), and raises KeyError on a name already set.  A method of a plain mixin (or of a
base class shared with other classes) runs for every class that inherits it: rewriting its
statement is right only if each of them is a module that has run `Module.__init__` first,
which the codemod does not prove.  So the tensor is reported with the fix to make by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF306",
    "set-by-base-method",
    "a tensor bound by a method of a (mixin) base class that __init__ calls; it is neither moved by .to() nor saved",
    fact="Module._apply (.to()) and state_dict() visit _parameters, _buffers and _modules only; register_buffer "
    "needs Module.__init__ to have run on self.",
    before="class TableMixin:\n    def build_table(self, n):\n        self.table = torch.arange(n)\n\n"
    "class Model(TableMixin, nn.Module):\n    def __init__(self, n):\n        super().__init__()\n        self.build_table(n)",
)
RULES = (RULE,)


def decide(facts: AttributeFacts) -> Decision | None:
    if facts.events or facts.base_helper is None:
        return None
    where, _, line = facts.base_helper
    return RULE.skip(
        f"tensor bound by {where}, which __init__ calls at line {line}; it is not moved by .to() nor saved",
        f'in that method, self.register_buffer("{facts.attr}", <tensor>, persistent=False) if every class using it '
        "is an nn.Module that calls it after Module.__init__; else build it in this __init__",
    )
