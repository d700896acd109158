"""An argument of a method other than __init__, kept as an attribute and used as only a
tensor is used, is reported.

`def init_reason(self, local_entity): self.local_entity = local_entity`, with
`self.local_entity.size(0)` in another method, keeps a per-call tensor on the module: it
stays where the batch was made, outside `.to()` and `state_dict()`.  Nothing types the
argument (the batch comes from a loader), so the use is the evidence; it is reported, never
rewritten, like every tensor bound only outside the constructor (BUF303).

Torch fact (torch 2.13): a tensor in a plain attribute is neither moved by `.to()` nor saved
in `state_dict()`; assigning a tensor to a name registered as a buffer (even as None) keeps
it in `_buffers`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.call_sites import tensor_use_evidence
from codemod.rules.base import Decision, Rule
from codemod.rules.reported import outside_suggestion
from codemod.tensors import Kind

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF309",
    "untyped-per-call-argument",
    "keeps an argument of a method other than __init__ that the class uses as only a tensor is used; a tensor kept "
    "that way is neither moved by .to() nor saved",
    fact="A tensor in a plain attribute is not moved by .to() nor saved in state_dict(); a tensor assigned to a name "
    "registered as a buffer (even as None) stays in _buffers.",
    before="def __init__(self, dim):\n    super().__init__()\n    self.linear = nn.Linear(dim, dim)\n\n"
    "def start(self, adj):\n    self.adj = adj\n\ndef forward(self, x):\n    return torch.mm(self.adj, self.linear(x))",
)
RULES = (RULE,)


def wants(facts: AttributeFacts) -> bool:
    return _kept_argument(facts) is not None


def _kept_argument(facts: AttributeFacts) -> tuple[str, str, str] | None:
    """(argument, method, where the class uses it as a tensor) when every binding of the
    attribute outside __init__ is in a method of the class itself and binds an argument of
    that method the analysis could not type (__init__ binds None or nothing), or None."""
    if not facts.outside or not all(e.kind == "assign" and e.value is not None and e.value.kind is Kind.NONE for e in facts.events):
        return None  # bound in __init__ to something other than a None placeholder
    key = ("untyped_method_argument", facts.attr)
    if key in facts.cls.cache:
        return facts.cls.cache[key]
    facts.cls.cache[key] = found = _find(facts)
    return found


def _find(facts: AttributeFacts) -> tuple[str, str, str] | None:
    cls = facts.cls.cls
    own = f"{cls.name}."
    methods = facts.cls.own_methods
    kept: tuple[str, str] | None = None
    for label, event in facts.outside:
        if not label.startswith(own) or event.kind != "assign" or event.value is None:
            return None
        if event.value.kind is Kind.NONE:
            continue  # `self.x = None` in a reset method
        method = methods.get(label[len(own):])
        node = event.value_node
        if event.value.kind is not Kind.UNKNOWN or method is None or not isinstance(node, ast.Name):
            return None
        arguments = [*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs][1:]
        if node.id not in {a.arg for a in arguments}:
            return None
        kept = kept or (node.id, method.name)
    if kept is None:
        return None
    self_name = methods[kept[1]].args.args[0].arg if methods[kept[1]].args.args else None
    if self_name is None:
        return None
    evidence = tensor_use_evidence(cls, self_name, {facts.attr})
    if facts.attr not in evidence:
        return None
    return kept[0], kept[1], evidence[facts.attr]


def decide(facts: AttributeFacts) -> Decision | None:
    found = _kept_argument(facts)
    if found is None:
        return None
    argument, method, where = found
    _, suggestion = outside_suggestion(facts.attr, facts.cls.class_text, overrides_base_method=False)
    return RULE.skip(
        f"keeps the argument {argument} of {method}, which the class uses as a tensor ({where}); a tensor kept there is "
        "neither moved by .to() nor saved",
        suggestion,
    )
