"""`None` in the constructor, nothing in the class that sets it, and a use only a tensor has:
code outside the class assigns the tensor.  Reported.

`self.attn_mask = None  # set by the caller`, with `x.masked_fill(self.attn_mask, 0)` in
forward, or an adaptive norm's `self.weight = None` that a parent fills before each call
(`F.batch_norm(x, None, None, self.weight, self.bias)`): another object writes
`block.attn.attn_mask = mask`.  The class holds a tensor whenever it works, but what is
assigned, and when, is decided elsewhere (a constant mask, or a per-call value), so it is
reported with the use that gives it away, never rewritten.

Torch fact (torch 2.13): a tensor in a plain attribute is neither moved by `.to()` nor saved;
a name registered as an empty buffer slot (`register_buffer("x", None, persistent=False)`)
keeps every tensor later assigned to it in `_buffers`, from inside the class or out.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule
from codemod.tensors import Kind

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF313",
    "assigned-from-outside",
    "set to None in __init__, never set by the class itself, and used by it as only a tensor is used: code outside "
    "the class assigns a tensor, which is neither moved by .to() nor saved",
    fact="A tensor in a plain attribute is not moved by .to() nor saved in state_dict(); a tensor assigned to a name "
    "registered as a buffer (even as None) stays in _buffers, whoever assigns it.",
    before="def __init__(self, dim):\n    super().__init__()\n    self.proj = nn.Linear(dim, dim)\n"
    "    self.attn_mask = None  # set by the caller\n\ndef forward(self, x):\n"
    "    return self.proj(x).masked_fill(self.attn_mask, 0.0)",
)
RULES = (RULE,)


def wants(facts: AttributeFacts) -> bool:
    return _evidence(facts) is not None


def _evidence(facts: AttributeFacts) -> str | None:
    """Where the class uses the attribute as only a tensor is used, when the constructor binds
    only None and no method of the class, its bases or subclasses binds anything else."""
    if facts.considered or not facts.events:
        return None
    if not all(e.kind == "assign" and e.value is not None and e.value.kind is Kind.NONE for e in facts.events):
        return None
    if any(not (e.kind == "assign" and e.value is not None and e.value.kind is Kind.NONE) for _, e in facts.outside):
        return None  # set by the class's own code: lazy (BUF107), placeholder (BUF307) or per-call rules decide
    where = facts.cls.tensor_uses.get(facts.attr)
    if where is None:
        return None
    assigned = _assigned_elsewhere(facts)
    return f"{where}; {assigned}" if assigned else None


def _assigned_elsewhere(facts: AttributeFacts) -> str | None:
    """Where the repository assigns the attribute through another object
    (`block.attn.attn_mask = mask`, `self.norm.weight = w`, `setattr(layer, "weight", w)`);
    None where nothing does, and the slot may just stay None."""
    cls = facts.cls
    own = (cls.symbols.path, cls.cls.lineno, cls.cls.end_lineno or cls.cls.lineno)
    for path, tree in cls.index.parsed_files_mentioning(facts.attr, any_of=(f".{facts.attr}", "setattr(")):
        if tree is None:
            continue
        for node, value in attribute_stores(tree, facts.attr):
            if isinstance(value, ast.Constant) or (isinstance(value, ast.Call) and called_name(value).endswith("Parameter")):
                continue  # `layer.bias = None`, `m.weight = nn.Parameter(w)`: not a tensor in the slot
            target = node.value if isinstance(node, ast.Attribute) else node.args[0]
            if isinstance(target, ast.Name) and target.id == "self" and path == own[0] and own[1] <= node.lineno <= own[2]:
                continue
            return f"assigned through another object in {path.name}, line {node.lineno}"
    return None


def attribute_stores(tree: ast.AST, attr: str):
    """(node, assigned value or None where unknown) for each `x.attr = value` and
    `setattr(x, "attr", value)` of the tree."""
    for stmt in ast.walk(tree):
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                pairs = [(target, stmt.value)]
                if isinstance(target, (ast.Tuple, ast.List)):
                    values = stmt.value.elts if isinstance(stmt.value, (ast.Tuple, ast.List)) and len(stmt.value.elts) == len(target.elts) else [None] * len(target.elts)
                    pairs = list(zip(target.elts, values))
                for element, value in pairs:
                    if isinstance(element, ast.Attribute) and element.attr == attr:
                        yield element, value
        elif (isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Name) and stmt.func.id == "setattr"
              and len(stmt.args) == 3 and isinstance(stmt.args[1], ast.Constant) and stmt.args[1].value == attr):
            yield stmt, stmt.args[2]


def called_name(call: ast.Call) -> str:
    """The last name of what a call calls (`Parameter` of `nn.Parameter(w)`)."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def decide(facts: AttributeFacts) -> Decision | None:
    where = _evidence(facts)
    if where is None:
        return None
    return RULE.skip(
        f"set to None here and never by the class itself, yet the class uses it as a tensor ({where}): the tensor "
        "comes from outside the class, and it is not moved by .to() nor saved",
        "a per-call value needs no change; a tensor the model keeps (a mask, a table): declare it with "
        f'self.register_buffer("{facts.attr}", None, persistent=False), and what is assigned later follows the model',
    )
