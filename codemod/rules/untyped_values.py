"""A constructor value the analysis cannot type, used by the class as only a tensor is
used, is reported.

`self.adj = load_graph(path)` (a function from a package outside the repository), `self.kernel
= data["kernel"]` or `self.table = table` for a local built by code the analysis does not
follow: the value's type is unknown, yet `torch.mm(self.adj, x)` or `self.kernel.unsqueeze(0)`
in forward shows a tensor whenever the class works at all.  Nothing proves it is a plain
tensor rather than an nn.Parameter or a tensor subclass, so it is reported, never rewritten,
with the use that gives it away.  Kept constructor arguments have their own rule (BUF308).

Torch fact (torch 2.13): a tensor in a plain attribute is neither moved by `.to()` nor saved
in `state_dict()`; `Module.__setattr__` registers an nn.Parameter assigned to an attribute
on its own, so a Parameter needs no change.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule
from codemod.tensors import Kind

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF312",
    "untyped-tensor-value",
    "keeps a value the codemod cannot type (a call into another package, torch.load, an item of a loaded object) "
    "that the class uses as only a tensor is used; if it is a plain tensor it is neither moved by .to() nor saved",
    fact="A tensor in a plain attribute is not moved by .to() nor saved in state_dict(); an nn.Parameter assigned to "
    "an attribute is registered by Module.__setattr__ on its own.",
    before="def __init__(self, path, dim):\n    super().__init__()\n    self.adj = load_graph(path)  # from another package\n"
    "    self.linear = nn.Linear(dim, dim)\n\ndef forward(self, x):\n    return torch.mm(self.adj, self.linear(x))",
)
RULES = (RULE,)


def wants(facts: AttributeFacts) -> bool:
    return _evidence(facts) is not None


def _evidence(facts: AttributeFacts) -> str | None:
    """Where the class uses the attribute as only a tensor is used, when every constructor
    binding of it assigns a value the analysis could not type that is not a kept constructor
    argument (BUF308's), and nothing registers it or makes it a parameter elsewhere."""
    if facts.considered or not facts.events or facts.attr in facts.cls.untyped_tensor_arguments:
        return None
    parameters = _init_parameters(facts)
    for event in facts.events:
        if event.kind != "assign" or event.value is None or event.value.kind is not Kind.UNKNOWN:
            return None
        if event.value_node is None or not _from_outside(facts, event.value_node, parameters):
            return None
    if any(e.kind in ("register_buffer", "registered") or (e.value is not None and e.value.kind in (Kind.PARAMETER, Kind.BUFFER))
           for _, e in facts.outside):
        return None
    return facts.cls.tensor_uses.get(facts.attr)


def _init_parameters(facts: AttributeFacts) -> set[str]:
    init = facts.cls.init
    if init is None:
        return set()
    arguments = init.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    return names


def _from_outside(facts: AttributeFacts, node: ast.expr, parameters: set[str], depth: int = 0) -> bool:
    """Whether the value comes from a package outside the repository: a call of a name that
    resolves outside it (`load_graph(path)`, `pickle.load(f)`), an item or attribute of such a
    value, or a local of the constructor bound to one.  A constructor argument or an attribute
    path into one is BUF308's (or deliberately nobody's); what the class's own methods or the
    repository's functions return the analysis reads, so where it cannot tell (an
    `nn.Parameter` made by a helper method) nothing is said."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Call):
            root = node.func
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and not _bound_locally(facts.cls.init, root.id) \
                    and root.id not in parameters and root.id != facts.cls.self_name:
                # a module-level name (an import): where it resolves decides; `torch.load`
                # returns whatever was saved, a tensor or not, as another package's call does
                index, symbols = facts.cls.index, facts.cls.symbols
                return index.from_another_library(symbols, node.func) or _loads_saved_object(index, symbols, node.func)
            node = node.func
        else:
            node = node.value
    if not isinstance(node, ast.Name) or node.id in parameters or node.id == facts.cls.self_name or depth > 2:
        return False
    binding = _local_binding(facts.cls.init, node.id)
    return binding is not None and _from_outside(facts, binding, parameters, depth + 1)


_SAVED_OBJECT_LOADERS = frozenset({"torch.load", "torch.serialization.load"})


def _loads_saved_object(index, symbols, func: ast.expr) -> bool:
    resolved = index.resolve_expr(symbols, func)
    return resolved is not None and resolved.kind == "external" and resolved.qualname in _SAVED_OBJECT_LOADERS


def _stores(init: ast.AST, name: str) -> list[ast.Name]:
    return [n for n in ast.walk(init) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]


def _bound_locally(init: ast.AST | None, name: str) -> bool:
    """Whether the constructor binds the name itself (an assignment, an import, a loop, a `with ... as`)."""
    if init is None:
        return False
    return bool(_stores(init, name)) or any(
        isinstance(n, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name).split(".")[0] == name for a in n.names)
        for n in ast.walk(init))


def _local_binding(init: ast.AST | None, name: str) -> ast.expr | None:
    """The value of the only plain assignment of a local in the constructor (`kernel = f(n)`)."""
    if init is None:
        return None
    found = [
        stmt.value for stmt in ast.walk(init)
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
    ]
    return found[0] if len(found) == 1 and len(_stores(init, name)) == 1 else None


def decide(facts: AttributeFacts) -> Decision | None:
    where = _evidence(facts)
    if where is None:
        return None
    value = ast.unparse(facts.events[0].value_node)
    if len(value) > 60:
        value = value[:57] + "..."
    reason = (f"keeps {value}, which the codemod cannot type, and the class uses it as a tensor ({where}); a plain "
              "tensor there is neither moved by .to() nor saved")
    if "TensorDataset(" in where:
        # a data set the module keeps for its own training loop: moving it with the model would
        # put all of it on the accelerator, and a persistent key would put it in every checkpoint
        return RULE.skip(reason, "a data set (handed to TensorDataset) is best kept out of the module, in the "
                         "training code; if it must follow the model, register it with "
                         f'self.register_buffer("{facts.attr}", ..., persistent=False)')
    return RULE.skip(
        reason,
        f'if it is a plain tensor (not an nn.Parameter): self.register_buffer("{facts.attr}", {value}, persistent=False)'
        if not value.endswith("...") else
        f'if it is a plain tensor (not an nn.Parameter): register it with self.register_buffer("{facts.attr}", ..., '
        "persistent=False)",
    )
