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

Where the object is not typed (`self.model.sigma_rec = hp['sigma_rec']` in an agent handed a
loaded network, `ddm.sigma_diff = x` in a fitting loop), the rewrite is only safe if every such
store assigns a tensor: a store of anything else through another object than `self` (and not
through a config-named one, `args.x = 0.1`) is reported too, since nothing proves the object
is not an instance of the class.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from codemod.call_sites import short_source
from codemod.rules.assigned_from_outside import attribute_stores, called_name
from codemod.rules.base import Decision, Rule
from codemod.rules.cpu_data_reads import root_name
from codemod.segments import CONFIG_NAMES

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF224",
    "rebound-from-outside",
    "rebound through another object (a parent configuring its child, a loop fitting it) to a list, a number or a value "
    "not recognisably a tensor, which a registered buffer refuses with TypeError",
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
    rebound, stored = _stores_elsewhere(facts)
    fix = (f'leave it a plain attribute, or make that code assign a tensor (torch.tensor(...)) before registering '
           f'"{facts.attr}" as a buffer')
    if rebound is not None:
        where, text = rebound
        return RULE.skip(
            f"the code that builds this class rebinds it to a non-tensor through the instance ({text}, {where}), "
            "which a registered buffer refuses with TypeError", fix)
    if stored is not None:
        where, text = stored
        return RULE.skip(
            f"code outside the class assigns it through another object ({text}, {where}), a value that may not be a "
            "tensor, which a registered buffer or parameter refuses with TypeError", fix)
    return None


def _stores_elsewhere(facts: AttributeFacts) -> tuple[tuple[str, str] | None, tuple[str, str] | None]:
    """In one walk of the files that store the attribute's name (`x.attr = value`, annotated
    or not, or `setattr(x, "attr", value)`), each a (where, the statement) or None:
    - the first store of a list or a number through an instance the same scope builds by
      calling the class (`region = RegionLayer()`, then `region.anchors = [...]`);
    - the first store through another object than `self`, not config-named, of a value not
      recognisably a tensor (_untyped_store)."""
    attr, name = facts.attr, facts.cls.cls.name
    index = facts.cls.index
    mirrored = _fields_copied_from(facts)
    store = re.compile(rf"\.{re.escape(attr)}\s*(?::[^=\n]*)?=(?!=)|setattr\(")
    rebound = stored = None
    for path, tree in index.parsed_files_mentioning(f".{attr}"):  # over the parse budget: never parsed
        if tree is None or not store.search(index.text(path) or ""):
            continue
        # each scope's stores of the name, with the instances of the class the scope builds
        stores = [(node, value, scope, instances)
                  for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
                  for instances in [_instances_built(scope, name)]
                  for node, value in attribute_stores(_own_statements(scope), attr)]
        for node, value, _, instances in stores:
            if rebound is None and instances and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in instances and value is not None and (
                        isinstance(value, _NOT_A_TENSOR) or (isinstance(value, ast.Constant) and value.value is not None)):
                rebound = f"{path.name}, line {node.lineno}", f"{ast.unparse(node)} = {short_source(value, 40)}"
        if rebound is not None:
            return rebound, None
        if stored is None:
            for node, value, scope, instances in sorted(stores, key=lambda item: item[0].lineno):
                if _untyped_store(node, value, scope, mirrored, instances):
                    target = node.value if isinstance(node, ast.Attribute) else node.args[0]
                    shown = short_source(node, 40) if isinstance(node, ast.Call) else \
                        f"{short_source(target, 40)}.{attr} = {short_source(value, 40)}"
                    stored = f"{path.name}, line {node.lineno}", shown
                    break
    return rebound, stored


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


# Methods whose result is a tensor whatever tensor they are called on.
_TENSOR_RESULT_METHODS = frozenset({
    "to", "cuda", "cpu", "clone", "detach", "float", "double", "half", "bfloat16", "long", "int", "bool", "contiguous",
    "view", "reshape", "unsqueeze", "squeeze", "type_as", "expand", "permute", "transpose", "t", "new_tensor",
    "new_zeros", "new_ones", "new_full"})


def _untyped_store(node: ast.AST, value: ast.expr | None, scope: ast.AST, mirrored: set[str],
                   instances: set[str]) -> bool:
    """Whether a store (`obj.attr = value` or `setattr(obj, "attr", value)`) may put a non-tensor
    into an instance of the class: its object is not a bare `self`, not an option holder (a
    config-named one, or one the scope builds), not a plain name where the constructor copies
    the field from the data it is handed (``mirrored``; never one of the ``instances`` the
    scope builds by calling the class), and its value is not recognisably a tensor (None, a
    torch call, a tensor method's result, a parameter)."""
    target = node.value if isinstance(node, ast.Attribute) else node.args[0]
    if isinstance(target, ast.Name):
        if target.id == "self":
            return False  # the class's own (or another class's own) attribute: its analysis decides
        if target.id in _configs_built(scope):
            return False  # `configs = types.SimpleNamespace()`: an option holder the scope builds
        if mirrored and target.id not in instances:
            # `P.c = 1540` where the constructor copies `F.c` from the data it is handed: a
            # plain name elsewhere holds such data, unless the scope built it from the class
            return False
    if _names_a_config(root_name(target) or ""):
        return False  # `args.alpha = 0.1`, `train_cfg.alpha = 0.1`: an option, not a module
    if isinstance(target, ast.Attribute) and _names_a_config(target.attr):
        return False  # `self.args.alpha = 0.1`
    return value is not None and not _recognisably_a_tensor(value)


def _names_a_config(name: str) -> bool:
    """`args`, `configs`, `train_cfg`, `model_opts`: a word of the name is a config's."""
    return any(word in CONFIG_NAMES or word.rstrip("s") in CONFIG_NAMES for word in name.lower().split("_") if word)


# What builds an option holder: `types.SimpleNamespace()`, `argparse.Namespace()`, `EasyDict(...)`.
_CONFIG_BUILDERS = re.compile(r"(?:Namespace|EasyDict|edict|Config|Args|Options|dict)$")


def _configs_built(scope: ast.AST) -> set[str]:
    """Names the scope binds to a new option holder (`configs = types.SimpleNamespace()`)."""
    return {target.id for stmt in _own_statements(scope).body for node in ast.walk(stmt)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and _CONFIG_BUILDERS.search(called_name(node.value))
            for target in node.targets if isinstance(target, ast.Name)}


def _fields_copied_from(facts: AttributeFacts) -> set[str]:
    """The constructor's parameters whose field of the attribute's own name it copies
    (`self.c = torch.tensor(P.c)`: {"P"}): the attribute mirrors a field of the data objects
    the class is built from, which code elsewhere sets under the same name."""
    init = facts.cls.init
    if init is None:
        return set()
    parameters = {a.arg for a in (*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs)}
    return {node.value.id for event in facts.events if event.stmt is not None for node in ast.walk(event.stmt)
            if isinstance(node, ast.Attribute) and node.attr == facts.attr and isinstance(node.value, ast.Name)
            and node.value.id in parameters and node.value.id != "self"}


def _recognisably_a_tensor(value: ast.expr) -> bool:
    if isinstance(value, ast.Constant):
        return value.value is None
    if isinstance(value, ast.BinOp):
        # `torch.ones(n) * power`: arithmetic with a tensor is a tensor
        return _recognisably_a_tensor(value.left) or _recognisably_a_tensor(value.right)
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in _TENSOR_RESULT_METHODS:
        return True
    dotted = ast.unparse(func)
    return called_name(value).endswith("Parameter") or (dotted.startswith("torch.") and not dotted.startswith("torch.nn."))
