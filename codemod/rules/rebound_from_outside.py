"""A raw tensor that code outside the class rebinds, through another object, to a list or a
number is reported.

Torch fact (torch 2.13): once a name is a buffer, `Module.__setattr__` accepts only a tensor or
None for it: `layer.anchors = [10.0, 13.0]` on a registered buffer raises `TypeError: cannot
assign 'list' as buffer 'anchors' (torch.Tensor or None expected)`, where a plain attribute
takes the list.

A parent that configures its children after building them (`region_layer = RegionLayer()`,
then `region_layer.anchors = [float(a) for a in anchors]` in a YOLO network's
`create_network`) replaces the tensor the child's constructor made with a list.  Only an
object the same function (or module) builds by calling the class counts: a config object
with an attribute of the same name (`configs.tasks_loss_weight = [...]`) is not an instance.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.call_sites import short_source
from codemod.rules.assigned_from_outside import attribute_stores, called_name
from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF224",
    "rebound-from-outside",
    "rebound through another object (a parent configuring its child) to a list or a number, which a registered buffer "
    "refuses with TypeError",
    fact="Module.__setattr__ accepts only a tensor or None for a registered buffer's name: assigning a list or a "
    "number to it raises TypeError, where a plain attribute takes it.",
    before="class Region(nn.Module):\n    def __init__(self, anchors=(1.0, 2.0)):\n        super().__init__()\n"
    "        self.anchors = torch.tensor(anchors)\n\n# in the network that builds it:\n"
    "region = Region()\nregion.anchors = [float(a) for a in cfg['anchors'].split(',')]",
)
RULES = (RULE,)

# Values no buffer takes: a list, tuple, dict or set display or comprehension, a number, a string.
_NOT_A_TENSOR = (ast.List, ast.ListComp, ast.Tuple, ast.Dict, ast.DictComp, ast.Set, ast.SetComp, ast.JoinedStr)


def decide(facts: AttributeFacts) -> Decision | None:
    if not facts.considered:
        return None
    found = _rebound_elsewhere(facts)
    if found is None:
        return None
    where, text = found
    return RULE.skip(
        f"the code that builds this class rebinds it to a non-tensor through the instance ({text}, {where}), "
        "which a registered buffer refuses with TypeError",
        f'leave it a plain attribute, or make that code assign a tensor (torch.tensor(...)) before registering '
        f'"{facts.attr}" as a buffer',
    )


def _rebound_elsewhere(facts: AttributeFacts) -> tuple[str, str] | None:
    """(where, the statement) of the first `x.attr = <list or number>` of the repository whose
    `x` is not this class's own `self`."""
    name = facts.cls.cls.name
    index = facts.cls.index
    index.scanned_repository = True  # the answer depends on every file that calls the class
    for path in index.files_calling([name]):
        text = index.text(path)
        if not text or f".{facts.attr}" not in text:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
            instances = _instances_built(scope, name)
            if not instances:
                continue
            for node, value in attribute_stores(_own_statements(scope), facts.attr):
                if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                        and node.value.id in instances and value is not None):
                    continue
                if isinstance(value, _NOT_A_TENSOR) or (isinstance(value, ast.Constant) and value.value is not None):
                    return f"{path.name}, line {node.lineno}", f"{ast.unparse(node)} = {short_source(value, 40)}"
    return None


def _instances_built(scope: ast.AST, class_name: str) -> set[str]:
    """Names the scope binds to a call of the class (`region_layer = RegionLayer(...)`)."""
    found: set[str] = set()
    for stmt in _own_statements(scope).body:
        for node in ast.walk(stmt):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and called_name(node.value) == class_name):
                found.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return found


def _own_statements(scope: ast.AST) -> ast.Module:
    """The scope's statements, without those of the functions and classes defined in it."""
    body = [stmt for stmt in getattr(scope, "body", []) if not isinstance(
        stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return ast.Module(body=body, type_ignores=[])
