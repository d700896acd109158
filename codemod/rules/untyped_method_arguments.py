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

from codemod import torch_names as tn
from codemod.call_sites import tensor_use_evidence
from codemod.rules.base import Decision, Rule
from codemod.rules.reported import outside_suggestion
from codemod.tensors import Kind, mentions_self_attribute

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


def _kept_argument(facts: AttributeFacts) -> tuple[str, str, str, bool] | None:
    """(argument, method, where the class uses it as a tensor, whether a part of it moved to a
    device is what is kept) when every binding of the
    attribute outside __init__ is in a method of the class itself and binds an argument of
    that method the analysis could not type (__init__ binds None or nothing), or None."""
    if not facts.outside or not all(e.kind == "assign" and e.value is not None and e.value.kind is Kind.NONE for e in facts.events):
        return None  # bound in __init__ to something other than a None placeholder
    key = ("untyped_method_argument", facts.attr)
    if key in facts.cls.cache:
        return facts.cls.cache[key]
    facts.cls.cache[key] = found = _find(facts)
    return found


def _find(facts: AttributeFacts) -> tuple[str, str, str, bool] | None:
    cls = facts.cls.cls
    own = f"{cls.name}."
    methods = facts.cls.own_methods
    kept: tuple[str, str] | None = None
    moved: tuple[str, str, int] | None = None  # (argument, method, line) of `input["A"].to(device)`
    for label, event in facts.outside:
        if label.startswith(own) and event.kind == "delete":
            continue  # `del self.real_A` in a reset: a per-call value freed
        if not label.startswith(own) or event.kind != "assign" or event.value is None:
            return None
        if event.value.kind is Kind.NONE:
            continue  # `self.x = None` in a reset method
        method = methods.get(label[len(own):])
        node = event.value_node
        if event.value.kind is not Kind.UNKNOWN or method is None:
            return None
        arguments = {a.arg for a in [*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs][1:]}
        viewed = _viewed_argument(node, arguments)
        if viewed is not None:
            label = viewed if isinstance(node, ast.Name) else f"{viewed} (as {ast.unparse(node)})"
            kept = kept or (label, method.name)
            continue
        item = _moved_item(node, arguments)
        if item is None and node is not None and method.args.args and mentions_self_attribute(
                node, method.args.args[0].arg, facts.attr):
            continue  # `self.real_A = 1 / self.scale_by * self.real_A`: the kept value, rescaled
        if item is None:
            return None
        moved = moved or (item, method.name, event.stmt.lineno)
    if moved is not None and f"self.{facts.attr}(" not in facts.cls.class_text:
        # a part of the batch a method is handed, moved to a device and kept (pix2pix's
        # `self.real_A = input["A"].to(self.device)`): the move is the evidence (not a module:
        # the class never calls it)
        argument, method_name, line = moved
        return argument, method_name, f"line {line}", True
    if kept is None or moved is not None:
        return None
    self_name = methods[kept[1]].args.args[0].arg if methods[kept[1]].args.args else None
    if self_name is None:
        return None
    evidence = tensor_use_evidence(cls, self_name, {facts.attr})
    if facts.attr not in evidence:
        return None
    return kept[0], kept[1], evidence[facts.attr], False


# Methods that give the same data in another layout (`encoded_nodes.transpose(1, 2)`): kept,
# the result is the argument itself as far as devices go.  Numpy arrays have some of them, so
# the class's use of the attribute stays the evidence that it is a tensor.
_LAYOUT_METHODS = frozenset({"transpose", "permute", "reshape", "view", "contiguous", "squeeze", "unsqueeze", "flatten",
                             "clone", "detach", "t"})


def _viewed_argument(node: ast.expr | None, arguments: set[str]) -> str | None:
    """The argument a value is, or is a layout change of (`x`, `x.transpose(1, 2).contiguous()`)."""
    while (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
           and node.func.attr in _LAYOUT_METHODS):
        node = node.func.value
    return node.id if isinstance(node, ast.Name) and node.id in arguments else None


def _moved_item(node: ast.expr | None, arguments: set[str]) -> str | None:
    """The argument of `input["A"].to(device)`, `batch[0].cuda()`, `batch["x"].float()`, `scale *
    data.x.to(dev)`: an item or attribute of a method's argument moved to a device or cast
    (alone, scaled by a number or an attribute of self, or in one arm of a conditional whose
    other arm is None)."""
    if isinstance(node, ast.BinOp):
        sides = [side for side in (node.left, node.right) if not isinstance(side, (ast.Constant, ast.Attribute))]
        return _moved_item(sides[0], arguments) if len(sides) == 1 else None
    if isinstance(node, ast.IfExp):
        # `None if input["dates"] is None else input["dates"].to(device)`
        arms = [arm for arm in (node.body, node.orelse) if not (isinstance(arm, ast.Constant) and arm.value is None)]
        return _moved_item(arms[0], arguments) if len(arms) == 1 else None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in tn.BATCH_MOVES_AND_CASTS):
        return None
    receiver = node.func.value
    if not isinstance(receiver, (ast.Subscript, ast.Attribute)):
        return None
    while isinstance(receiver, (ast.Subscript, ast.Attribute)):
        receiver = receiver.value
    return receiver.id if isinstance(receiver, ast.Name) and receiver.id in arguments else None


def decide(facts: AttributeFacts) -> Decision | None:
    found = _kept_argument(facts)
    if found is None:
        return None
    argument, method, where, moved = found
    _, suggestion = outside_suggestion(facts.attr, facts.cls.class_text, overrides_base_method=False)
    if moved:
        return RULE.skip(
            f"keeps a part of the argument {argument} of {method} moved to a device or cast ({where}): a batch tensor kept on the "
            "module, neither moved by a later .to() nor saved",
            suggestion,
        )
    return RULE.skip(
        f"keeps the argument {argument} of {method}, which the class uses as a tensor ({where}); a tensor kept there is "
        "neither moved by .to() nor saved",
        suggestion,
    )
