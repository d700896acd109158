"""Types of constructor arguments, read from the repository's own calls of the class.

`self.adj = adj` is a raw tensor when every call in the repository passes one
(`GraphConv(torch.tensor(a))`, a parent's `Child(self.adj)`).  Finding the calls means
reading every file that names the class, so it is done only for classes that keep an
untyped argument and use that attribute as a tensor (`gate`), and memoised per class.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection
from typing import TYPE_CHECKING

from codemod import torch_names as tn
from codemod.keywords import kwargs_access
from codemod.rules.complex_values import complex_value
from codemod import torch_table as table
from codemod.segments import ARGUMENT_TENSOR_METHODS, TENSOR_METHOD_SLOTS, TENSOR_ONLY_METHODS, torch_slot_takes_tensor
from codemod.tensors import (
    ARGUMENT_STATE,
    UNKNOWN,
    Evaluator,
    Kind,
    Value,
    constructor_attributes,
    dotted_path,
    merge_branches,
    registry_entry,
)

if TYPE_CHECKING:
    from codemod.repo_index import RepoIndex
    from codemod.symbols import ModuleSymbols

_TENSOR_METHODS = frozenset(TENSOR_ONLY_METHODS)
# The methods that only a tensor among a constructor's arguments has (segments.ARGUMENT_TENSOR_METHODS).
_ONLY_TENSOR_METHODS = _TENSOR_METHODS & ARGUMENT_TENSOR_METHODS
# The most positional arguments some of those tensor methods take (torch 2.13: one more raises
# TypeError): `self.scaler.dim(x, unit)` is another object's method, not Tensor.dim().
TENSOR_METHOD_MAX_POSITIONAL = {
    **dict.fromkeys(("t", "numel", "dim", "detach", "contiguous", "long", "float", "half", "bool", "cpu", "clone",
                     "nonzero", "to_dense"), 0),
    **dict.fromkeys(("size", "unsqueeze", "unbind", "new_tensor", "cuda", "to_sparse"), 1),
    "transpose": 2,
}


def _fits_tensor_method(method: str, call: ast.Call) -> bool:
    """Whether a call `x.<method>(...)` passes no more positional arguments than a tensor's
    method of that name takes."""
    most = TENSOR_METHOD_MAX_POSITIONAL.get(method)
    return most is None or len(call.args) <= most


# Where a torch function is called from: `torch.f`, `torch.linalg.f`, `F.f`, `nn.functional.f`.
_TORCH_NAMESPACES = frozenset(
    {("torch",), ("torch", "sparse"), ("torch", "linalg"), ("torch", "fft"), ("torch", "special"),
     ("torch", "nn", "functional"), ("nn", "functional"), ("F",), ("functional",)}
)


# Bare aliases that are torch.nn.functional by convention only: other libraries' `functional`
# modules go by the same names (`import torchvision.transforms.functional as F`), so a call
# through one is torch's only for a function torch.nn.functional (or torch) has.
_BARE_ALIASES = frozenset({"F", "functional"})
_FUNCTIONS_OF_TORCH = frozenset().union(
    table.FUNCTIONAL_TENSOR_FUNCTIONS, table.FUNCTIONAL_SEQUENCE_FUNCTIONS, table.FUNCTIONAL_MIXED_FUNCTIONS,
    table.FUNCTIONAL_NON_TENSOR_FUNCTIONS, table.RANDOM_FUNCTIONAL_FUNCTIONS, table.TORCH_TENSOR_FUNCTIONS,
    table.TORCH_SEQUENCE_FUNCTIONS, table.TORCH_MIXED_FUNCTIONS, table.TORCH_NON_TENSOR_FUNCTIONS)


def _torch_function(func: ast.expr, shadowed: Collection[str] = ()) -> str | None:
    """The name of the torch function a call's `func` spells (`F.cross_entropy`: cross_entropy);
    None where its head is one of ``shadowed``, names the enclosing function binds itself
    (`F = self.f(x)`, then `F.view(...)`: a tensor's method)."""
    if not isinstance(func, ast.Attribute):
        return None
    parts: list[str] = []
    head = func.value
    while isinstance(head, ast.Attribute):
        parts.append(head.attr)
        head = head.value
    if not isinstance(head, ast.Name) or head.id in shadowed or (head.id, *reversed(parts)) not in _TORCH_NAMESPACES:
        return None
    if not parts and head.id in _BARE_ALIASES and func.attr not in _FUNCTIONS_OF_TORCH:
        return None  # `F.resized_crop(img, ..., self.interpolation)`: F is torchvision's functional there
    return func.attr


def _tensor_arguments(call: ast.Call, strict: bool = False, shadowed: Collection[str] = ()) -> list[ast.expr]:
    """The arguments a torch function call takes in tensor slots (segments.torch_slot_takes_tensor),
    with the items of a list or tuple literal there (`torch.cat([x, self.pe], 1)`); `strict`:
    without the slots where another overload takes a number (`torch.gt(x, self.threshold)`)."""
    name = _torch_function(call.func, shadowed)
    if name is None:
        return []
    scalar = table.SCALAR_ARGUMENT_POSITIONS.get(name, ()) if strict else ()
    found: list[ast.expr] = []
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if torch_slot_takes_tensor(name, position, None) and position not in scalar:
            found.append(arg)
    found += [k.value for k in call.keywords if k.arg is not None and torch_slot_takes_tensor(name, None, k.arg)]
    return [item for arg in found for item in (arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg])]


def _tensor_method_arguments(call: ast.Call) -> list[ast.expr]:
    """The argument of a tensor-only method's call that must itself be a tensor."""
    if not isinstance(call.func, ast.Attribute) or _torch_function(call.func) is not None or (
            isinstance(call.func.value, ast.Name) and call.func.value.id in ("np", "numpy")):
        return []  # `torch.index_select(x, dim, index)`: a function, with the dimension there
    position = TENSOR_METHOD_SLOTS.get(call.func.attr)
    if position is None or len(call.args) <= position or isinstance(call.args[position], ast.Starred):
        return []
    return [call.args[position]]


def _conditions(function: ast.AST) -> set[int]:
    """ids of the comparisons that are conditions (`if self.k > 0:`, `while not a < b and c:`)."""
    found: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            pending = [node.test]
        elif isinstance(node, ast.comprehension):
            pending = list(node.ifs)
        else:
            continue
        while pending:
            test = pending.pop()
            found.add(id(test))
            if isinstance(test, ast.BoolOp):
                pending.extend(test.values)
            elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                pending.append(test.operand)
    return found


def _is_number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _compared_value(node: ast.Compare, conditions: set[int]) -> list[ast.expr]:
    """The operands compared with a number written out, where the comparison makes a value
    (`mask = self.adj > 0`; a tensor's comparison is elementwise), not a condition."""
    if id(node) in conditions or len(node.ops) != 1 or isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
        return []
    left, right = node.left, node.comparators[0]
    return [left] if _is_number(right) else [right] if _is_number(left) else []


def _root_name(node: ast.expr) -> tuple[ast.Name, str] | None:
    """The argument a value is made from, with the attribute path read from it: `adj` for
    `adj`, `adj.to(device)`, `adj.float().t()`, `Variable(adj)`, `aabb[1] - aabb[0]`,
    `1.0 / scale`; `args.gso` for `args.gso`, `config.adj.to(device)`.  None when the value
    mixes several names (`a @ b`) or is not built from one."""
    roots = _data_roots(node)
    if not roots or len({dotted for _, dotted in roots}) != 1:
        return None
    return roots[0]


def _data_roots(node: ast.expr) -> list[tuple[ast.Name, str]] | None:
    """The names (and attribute paths) whose data a value is: through method calls on them,
    items, arithmetic with numbers; None for anything else (a function call, a literal list)."""
    if isinstance(node, ast.Constant):
        return [] if isinstance(node.value, (int, float)) and not isinstance(node.value, bool) else None
    if isinstance(node, ast.Name):
        return [(node, node.id)]
    if isinstance(node, ast.Attribute):
        parts: list[str] = []
        head: ast.expr = node
        while isinstance(head, ast.Attribute):
            parts.append(head.attr)
            head = head.value
        if isinstance(head, ast.Name):
            return [(head, ".".join([head.id, *reversed(parts)]))]
        return None
    if isinstance(node, ast.Subscript):
        return _data_roots(node.value)
    if isinstance(node, ast.UnaryOp):
        return _data_roots(node.operand)
    if isinstance(node, ast.BinOp):
        left, right = _data_roots(node.left), _data_roots(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "Variable" and node.args:
            return _data_roots(node.args[0])  # Variable(arg, requires_grad=False): the tensor itself
        if isinstance(func, ast.Attribute) and func.attr != "Variable":
            return _data_roots(func.value)
        if isinstance(func, ast.Attribute) and node.args:
            return _data_roots(node.args[0])
    return None


def bound_node(event) -> ast.expr | None:
    """The expression an attribute event binds: its value, or for `self.lo, self.hi = bounds`
    the name unpacked (each attribute an item of the argument, typed from the calls as a whole)."""
    if event.value_node is None and event.unpacked is not None and isinstance(event.stmt, ast.Assign) \
            and isinstance(event.stmt.value, ast.Name):
        return event.stmt.value
    return event.value_node


def kept_arguments(init: ast.FunctionDef | ast.AsyncFunctionDef, events, evaluator: Evaluator, worth=None) -> dict[str, str]:
    """attr -> argument, for `self.attr = arg...` whose value the analysis could not type and
    whose argument is never rebound in the constructor; `worth(attrs)` keeps only some."""
    args = init.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} | set(keywords_taken(init))
    kept: dict[str, str] = {}
    for event in events:
        if event.kind != "assign" or event.value is None:
            continue
        node = bound_node(event)
        found = _root_name(node) if node is not None else None
        keyword = keyword_taken(event.value_node, init) if event.value_node is not None else None
        if keyword is not None:
            found = (ast.Name(id=keyword, ctx=ast.Load()), keyword)  # `kwargs.get("mean")`: the keyword `mean`
        if event.value.kind is not Kind.UNKNOWN and not _variable_of_untyped(event.value_node, evaluator) and not (
                typed_by_signature_only(event.value) and found is not None):
            continue
        if found is not None and found[0].id in names and found[0].id != evaluator.self_name:
            kept.setdefault(event.attr, found[1])  # "adj", or "args.gso" for an attribute of the argument
    if kept and worth is not None:
        chosen = worth(set(kept))
        kept = {attr: name for attr, name in kept.items() if attr in chosen}
    if kept:
        rebound = {n.id for n in ast.walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        kept = {attr: name for attr, name in kept.items() if name.partition(".")[0] not in rebound}
    return kept


def keywords_taken(init: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr | None]:
    """keyword -> its default, for each keyword the constructor takes out of its `**kwargs`
    (`kwargs.get("mean")`: None; `kwargs.pop("std", 1.0)`: 1.0; `kwargs["adj"]`: no default,
    None here): arguments its callers pass by name like any other."""
    var = init.args.kwarg.arg if init.args.kwarg is not None else None
    found: dict[str, ast.expr | None] = {}
    if var is None:
        return found
    for node in ast.walk(init):
        keyword = kwargs_access(node, var)
        if keyword is not None and keyword not in found:
            assert isinstance(node, (ast.Call, ast.Subscript))
            if isinstance(node, ast.Call):
                found[keyword] = node.args[1] if len(node.args) > 1 else ast.Constant(value=None)
            else:
                found[keyword] = None
    return found


def keyword_taken(node: ast.expr, init: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The keyword of `**kwargs` a value is made from, through method calls and items on it
    (`kwargs.get("mean").to(device)`), as _data_roots follows an argument."""
    var = init.args.kwarg.arg if init.args.kwarg is not None else None
    while var is not None:
        keyword = kwargs_access(node, var)
        if keyword is not None:
            return keyword
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return None
    return None


def typed_by_signature_only(value: Value) -> bool:
    """An argument typed by its tensor default or its `Tensor` annotation alone
    (tensors.Evaluator): a tensor, maybe an nn.Parameter a caller hands in; the repository's
    calls may say it is a plain one.  (`Union[Parameter, Tensor]` has its own state: the
    author said a Parameter may come, whatever the calls pass.)"""
    return value.maybe_parameter and value.kind in (Kind.TENSOR, Kind.TENSOR_OR_NONE) and value.stateful == ARGUMENT_STATE


def _variable_of_untyped(node: ast.expr | None, evaluator: Evaluator) -> bool:
    """`Variable(mask)` of a value the analysis cannot type: a tensor whatever mask is, but
    the calls may say what mask is (and so whether the rewrite can drop the Variable)."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    qualname = evaluator.qualify(node.func)
    return (
        qualname is not None and tn.classify_call(qualname) is tn.CallKind.VARIABLE
        and evaluator.eval(node.args[0]).kind is Kind.UNKNOWN
    )


def used_as_tensor(cls: ast.ClassDef, self_name: str, attrs: set[str]) -> set[str]:
    """The attributes the class's methods use the way only a tensor (or a list of them) is used:
    `self.adj @ x`, `torch.mm(self.adj, x)`, `self.adj.t()`, `for a in self.supports`."""
    wanted = set(attrs)
    derived = _derived_attributes(cls, self_name)  # self.inv = 1.0 / self.scale: inv -> {scale}
    pending = list(wanted)
    while pending:
        source = pending.pop()
        for target, sources in derived.items():
            if source in sources and target not in wanted:
                wanted.add(target)
                pending.append(target)
    found = _used_as_tensor(cls, self_name, wanted)
    changed = True
    while changed:  # an attribute whose derived attribute is used as a tensor is one
        changed = False
        for target, sources in derived.items():
            if target in found:
                for source in sources & wanted:
                    if source not in found:
                        found.add(source)
                        changed = True
    return found & set(attrs)


_ARITHMETIC = (ast.Mult, ast.Add, ast.Sub, ast.Div, ast.MatMult)


def combined_with_inputs(cls: ast.ClassDef, attrs: set[str]) -> set[str]:
    """Those of `attrs` that forward (or a method it calls on self, with what that method is
    handed) combines with one of its inputs, or with a value it computed from them, by arithmetic (`inputs * self.mask`, `(1 - self.mask) * x`) or hands on
    with them to a function, a method or a child module of the repository
    (`focal_loss(input, y, weight=self.weight)`, `self.read(emb, self.graph_neigh)`), or
    indexes one with them (`x[:, self.unpool_idx]`).  A number, a list
    or a tensor: only what the repository's calls pass can say which, so this is a reason to
    read them, never evidence for a report of its own.  Found once per class (memoised on it)."""
    if not attrs:
        return set()
    found = getattr(cls, _COMBINED_MEMO_ATTR, None)
    if found is None:
        found = _combined_with_inputs(cls)
        setattr(cls, _COMBINED_MEMO_ATTR, found)
    return found & set(attrs)


_COMBINED_MEMO_ATTR = "_codemod_combined_with_inputs"


def _computed_from(inputs: set[str], function: ast.AST) -> set[str]:
    """`inputs` and the local names `function` binds from them (`z = self.fc(x)`, `emb =
    self.act(z)`), in the order the statements come."""
    names = set(inputs)
    bindings = sorted((n for n in ast.walk(function) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                       and n.value is not None), key=lambda n: (n.lineno, n.col_offset))
    for node in bindings:
        if not any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node.value)):
            continue
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def _operand_attr(node: ast.expr, self_name: str, aliases: dict[str, str] | None = None) -> str | None:
    """`self.mask`, `self.mask[i]`, `(1 - self.mask)`, `self.mask.view(1, -1)`, and a local
    alias of one (`K = self.K`, then `K[0]`): the attribute an operand is made of."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value  # a method of the attribute: `self.weight.view(1, -1)`
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.BinOp) and isinstance(node.left, ast.Constant):
        node = node.right
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
        return node.attr
    if aliases and isinstance(node, ast.Name):
        return aliases.get(node.id)
    return None


def _aliases(function: ast.AST, self_name: str) -> dict[str, str]:
    """Local names a function binds once, to an attribute of self (`K = self.K`)."""
    bound: dict[str, list[ast.expr]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        bound.setdefault(name.id, []).append(node.value if target is name else None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension)):
            for name in ast.walk(node.target):
                if isinstance(name, ast.Name):
                    bound.setdefault(name.id, []).append(None)
    return {
        name: values[0].attr
        for name, values in bound.items()
        if len(values) == 1 and isinstance(values[0], ast.Attribute) and isinstance(values[0].value, ast.Name)
        and values[0].value.id == self_name
    }


def _combined_with_inputs(cls: ast.ClassDef) -> frozenset[str]:
    methods = {m.name: m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    forward = methods.get("forward")
    if forward is None or not forward.args.args:
        return frozenset()
    self_name = forward.args.args[0].arg
    found: set[str] = set()
    for method in _reached_from(methods, forward, self_name):
        own = [*method.args.posonlyargs, *method.args.args]
        if own and not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list):
            found |= _combined_in(method, own[0].arg)
    return frozenset(found)


def _reached_from(methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef], start: ast.FunctionDef | ast.AsyncFunctionDef,
                  self_name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """`start` and the methods of the class it calls on self, transitively (`forward` handing its
    inputs to `self.process(H, y)`): each runs on what the call is handed."""
    reached = [start]
    seen = {start.name}
    for function in reached:
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == self_name and node.func.attr in methods and node.func.attr not in seen \
                    and node.func.attr != "__init__":
                seen.add(node.func.attr)
                reached.append(methods[node.func.attr])
    return reached


def _combined_in(function: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str) -> set[str]:
    """The attributes `function` combines with its own inputs (see combined_with_inputs)."""
    parameters = [*function.args.posonlyargs, *function.args.args][1:]
    inputs = _computed_from({a.arg for a in [*parameters, *function.args.kwonlyargs]}, function)
    if not inputs:
        return set()

    aliases = {name: attr for name, attr in _aliases(function, self_name).items() if name not in inputs}

    def has_input(node: ast.expr) -> bool:
        return any(isinstance(n, ast.Name) and n.id in inputs for n in ast.walk(node))

    found: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            method_of_input = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in inputs
            # `x.mul(self.mask)`: arithmetic written as a method of an input combines the attribute with
            # it as `x * self.mask` does
            if _torch_function(func) is not None or (method_of_input and func.attr not in tn.ARITHMETIC_METHODS):
                continue  # torch's own slots and tensor methods have their own evidence
            handed = [*node.args, *(k.value for k in node.keywords)]
            attrs = {a for a in (_operand_attr(h, self_name, aliases) for h in handed) if a is not None}
            if attrs and (method_of_input or any(has_input(h) for h in handed)):
                found |= attrs
        elif isinstance(node, ast.Subscript) and has_input(node.value):
            # `x[:, self.unpool_idx]`: an index of an input, a tensor or a list of numbers
            slots = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            found |= {a for a in (_operand_attr(s, self_name, aliases) for s in slots) if a is not None}
        elif isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if not has_input(other):
                    continue
                # `(x - self.lo) / (self.hi - self.lo)`: each attribute of the arithmetic on
                # the other side meets the input too
                for leaf in _arithmetic_leaves(side):
                    attr = _operand_attr(leaf, self_name, aliases)
                    if attr is not None:
                        found.add(attr)
    return found


def _arithmetic_leaves(node: ast.expr) -> list[ast.expr]:
    """The operands of an arithmetic expression (`self.hi - self.lo`: both attributes); a
    node that is no arithmetic is its own leaf (`(1 - self.mask)` stays one operand)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC) and not isinstance(node.left, ast.Constant):
        return [*_arithmetic_leaves(node.left), *_arithmetic_leaves(node.right)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _arithmetic_leaves(node.operand)
    return [node]


def _derived_attributes(cls: ast.ClassDef, self_name: str) -> dict[str, set[str]]:
    """attr -> the attributes of self its value in __init__ reads (`self.inv = 1.0 / self.scale`)."""
    derived: dict[str, set[str]] = {}
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name == "__init__":
            for node in ast.walk(method):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
                        read = {
                            n.attr
                            for n in ast.walk(node.value)
                            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == self_name
                        }
                        derived.setdefault(target.attr, set()).update(read - {target.attr})
    return derived


def _child_modules(cls: ast.ClassDef, self_name: str) -> set[str]:
    """Attributes of self that __init__ binds to an instance of a class (`self.block =
    Block(...)`, `nn.ModuleList(...)`): the child modules, as far as the names tell."""
    children: set[str] = set()
    methods = {m.name for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name == "__init__":
            for node in ast.walk(method):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    func = node.value.func
                    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                    if not name[:1].isupper():
                        continue
                    for target in node.targets:
                        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
                            children.add(target.attr)
    return children - methods


def binding_evidence(events, attrs: set[str]) -> dict[str, str]:
    """attr -> the constructor's own use of the argument as only a tensor is used, in the value
    it binds (`self.mean = mean.view(-1, 1, 1)`, `self.adj = adj.t()`)."""
    found: dict[str, str] = {}
    for event in events:
        if event.attr not in attrs or event.attr in found or event.kind != "assign" or event.value_node is None:
            continue
        node = event.value_node
        # the outermost call makes the value: a tensor method that returns a tensor (not
        # `x.size(0)`, an int, nor `x.unbind()`, a tuple)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
            node.func.attr in _ONLY_TENSOR_METHODS - _NOT_A_TENSOR_RESULT or _reshapes(node.func.attr, node)
        ):
            found[event.attr] = f"`{short_source(node)}` in __init__, line {event.stmt.lineno}"
    return found


_TENSOR_ATTRIBUTES = (
    table.TENSOR_METHODS_RETURNING_TENSOR | table.TENSOR_METHODS_RETURNING_SEQUENCE | table.TENSOR_METHODS_MIXED
    | table.TENSOR_METHODS_RETURNING_NON_TENSOR | table.TENSOR_PROPERTIES_TENSOR | table.TENSOR_PROPERTIES_NON_TENSOR
)


def elements_used_as_objects(cls: ast.ClassDef, self_name: str, attr: str) -> str | None:
    """Where the class reads an attribute no tensor has from an element of self.<attr>
    (`self.meshes[i].edges_count`, or `mesh = self.meshes[i]` then `mesh.edges_count`):
    self.<attr> holds objects, not a tensor.  None when nothing shows it."""

    def element_of_attr(node: ast.expr) -> bool:
        return (
            isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == attr
            and isinstance(node.value.value, ast.Name) and node.value.value.id == self_name
        )

    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        aliases = {
            target.id
            for node in ast.walk(method) if isinstance(node, ast.Assign) and element_of_attr(node.value)
            for target in node.targets if isinstance(target, ast.Name)
        }
        for node in ast.walk(method):
            if not isinstance(node, ast.Attribute) or node.attr.startswith("_") or node.attr in _TENSOR_ATTRIBUTES:
                continue
            if element_of_attr(node.value) or (isinstance(node.value, ast.Name) and node.value.id in aliases):
                return f"`{short_source(node)}` in {method.name}, line {node.lineno}"
    return None


def short_source(node: ast.AST, width: int = 60) -> str:
    """A node's source, cut to ``width`` characters for a finding's text."""
    text = ast.unparse(node)
    return text if len(text) <= width else text[: width - 3] + "..."


_NOT_A_TENSOR_RESULT = frozenset({"size", "numel", "dim", "unbind"})


def tensor_use_evidence(cls: ast.ClassDef, self_name: str, attrs: set[str]) -> dict[str, str]:
    """attr -> where a method of the class uses it in a way only a tensor can be used
    (`torch.mm(self.adj, x)` in forward, line 40): a torch function's tensor argument, `@`,
    or a method no numpy array, string, list or module has (`self.adj.t()`).  Handing it to
    a child module and comparing it with a number do not count here."""
    evidence: dict[str, str] = {}
    _used_as_tensor(cls, self_name, attrs, strict=True, evidence=evidence)
    return evidence


def arithmetic_uses(cls: ast.ClassDef, self_name: str, attrs: set[str]) -> dict[str, str]:
    """attr -> where a method other than `__init__` does arithmetic on it (`self.lens - 1`,
    `-self.bias`, `self.scale[i] * 2`).  Evidence of a tensor only for a value that also moved
    with `.to(device)` / `.cuda()`: a number has no `.to`, a module does no arithmetic."""
    found: dict[str, str] = {}

    def attr_of(node: ast.expr) -> str | None:
        if isinstance(node, ast.Subscript):
            node = node.value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
            return node.attr if node.attr in attrs else None
        return None

    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name == "__init__":
            continue
        for node in ast.walk(method):
            if isinstance(node, ast.BinOp) and isinstance(node.op, (*_ARITHMETIC, ast.FloorDiv, ast.Mod, ast.Pow)):
                operands = [node.left, node.right]
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
                operands = [node.operand]
            else:
                continue
            for attr in filter(None, map(attr_of, operands)):
                found.setdefault(attr, f"`{short_source(node)}` in {method.name}, line {node.lineno}")
    return found


def handed_to_tensor_helpers(cls: ast.ClassDef, self_name: str, attrs: set[str]) -> set[str]:
    """Those of ``attrs`` a method hands to a helper method of the class that uses the
    parameter they arrive as the way only a tensor is used (`self.get_loss(ids, self.word_map)`
    with `torch.index_select(word_map, 0, ids)` in `get_loss`)."""
    return _used_as_tensor(cls, self_name, attrs, strict=True, helpers_only=True)


def _used_as_tensor(cls: ast.ClassDef, self_name: str, attrs: set[str], strict: bool = False,
                    evidence: dict[str, str] | None = None, helpers_only: bool = False) -> set[str]:
    found: set[str] = set()
    children = _child_modules(cls, self_name) if not strict else set()
    methods_of_tensors = _ONLY_TENSOR_METHODS if strict else _TENSOR_METHODS

    def attr_of(node: ast.expr) -> str | None:
        if isinstance(node, ast.Subscript):
            node = node.value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name and node.attr in attrs:
            return node.attr
        return None

    def is_child(func: ast.expr, loop_children: set[str]) -> bool:
        """`self.block(...)`, `self.layers[i](...)`, `layer(...)` for `layer` in `self.layers`."""
        if isinstance(func, ast.Subscript):
            func = func.value
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self_name:
            return func.attr in children
        return isinstance(func, ast.Name) and func.id in loop_children

    own_methods = {m.name: m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def handed_to_helper(call: ast.Call) -> list[ast.expr]:
        """The arguments of `self.helper(..., self.adj, ...)` that the class's own helper uses
        as only a tensor is used (`torch.index_select(example_word_map, 0, ids)`) under its
        parameter's name."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self_name):
            return []
        helper = own_methods.get(func.attr)
        if helper is None or any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in helper.decorator_list):
            return []
        names = [a.arg for a in (*helper.args.posonlyargs, *helper.args.args)][1:]
        pairs = [(names[k], arg) for k, arg in enumerate(call.args) if k < len(names) and not isinstance(arg, ast.Starred)]
        keywords = {a.arg for a in (*helper.args.args, *helper.args.kwonlyargs)}
        pairs += [(k.arg, k.value) for k in call.keywords if k.arg in keywords]
        return [arg for name, arg in pairs if attr_of(arg) and _name_used_as_tensor(helper.body, name, methods_of_tensors)]

    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name == "__init__":
            continue
        loop_children = {
            n.target.id
            for n in ast.walk(method)
            if isinstance(n, ast.For) and isinstance(n.target, ast.Name) and isinstance(n.iter, ast.Attribute)
            and isinstance(n.iter.value, ast.Name) and n.iter.value.id == self_name and n.iter.attr in children
        }
        conditions = _conditions(method)
        guarded = _parameter_guarded(method, self_name)
        # names the method binds itself: `F = self.f(x)` then `F.view(b, self.in_ch, -1)` is a
        # tensor's view, not torch.nn.functional (tensors._local_names would also count a local
        # `import torch.nn.functional as F`, which is torch's)
        bound_here = {n.id for n in ast.walk(method) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | {
            a.arg for a in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs)}

        def use(attrs_used, node: ast.AST) -> None:
            for attr in attrs_used:
                if attr and id(node) not in guarded.get(attr, ()):
                    found.add(attr)
                    if evidence is not None and attr not in evidence:
                        evidence[attr] = f"`{short_source(node)}` in {method.name}, line {node.lineno}"

        for node in ast.walk(method):
            if helpers_only:
                if isinstance(node, ast.Call):
                    use(map(attr_of, handed_to_helper(node)), node)
                continue
            if isinstance(node, ast.Call) and is_child(node.func, loop_children):
                # handed to a child module's forward (`self.block(x, self.mask)`): the child
                # uses it as its input, a tensor where the repository's calls pass one
                use(map(attr_of, [*node.args, *(k.value for k in node.keywords)]), node)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                use((attr_of(node.left), attr_of(node.right)), node)
            elif isinstance(node, ast.Compare) and not strict:
                use(map(attr_of, _compared_value(node, conditions)), node)
            elif isinstance(node, ast.Call):
                func = node.func
                if (func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None) \
                        == "TensorDataset":
                    # `TensorDataset(self.x_train, self.y_train)` takes tensors only (it calls
                    # `.size(0)` of each, which a numpy array's int `size` refuses)
                    use(map(attr_of, node.args), node)
                if isinstance(func, ast.Attribute):
                    receiver = attr_of(func.value) if isinstance(func.value, ast.Attribute) else None
                    if receiver and _fits_tensor_method(func.attr, node) and (
                            func.attr in methods_of_tensors or (strict and _reshapes(func.attr, node))):
                        use((receiver,), node)
                    # handed to a torch function where it takes a tensor: `F.cross_entropy(x, y, self.w)`
                    use(map(attr_of, _tensor_arguments(node, strict, bound_here)), node)
                    # a tensor method's mask or index: `scores.masked_fill_(self.mask, -inf)`
                    use(map(attr_of, _tensor_method_arguments(node)), node)
                    # handed to a helper of the class that uses it as a tensor
                    use(map(attr_of, handed_to_helper(node)), node)
            elif isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Attribute):
                attr = attr_of(node.iter)
                if attr and _name_used_as_tensor(node.body, node.target.id, methods_of_tensors):
                    use((attr,), node.iter)
            elif isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
                for generator in node.generators:
                    attr = attr_of(generator.iter) if isinstance(generator.iter, ast.Attribute) else None
                    if attr and isinstance(generator.target, ast.Name) and _name_used_as_tensor(
                        [node.elt], generator.target.id, methods_of_tensors
                    ):
                        use((attr,), node)
    return found


def _parameter_guarded(method: ast.AST, self_name: str) -> dict[str, set[int]]:
    """attr -> ids of the nodes in the arm of `if isinstance(self.attr, nn.Parameter):` (or a
    module type) that runs when the test holds: a use there shows a parameter or a module, which
    the attribute is registered as when it is one, not a raw tensor (`self.token.expand(B, -1,
    -1)` where the token is learnable, and a list of embedding layers otherwise)."""
    found: dict[str, set[int]] = {}
    for node in ast.walk(method):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Call) and isinstance(node.test.func, ast.Name)
                and node.test.func.id == "isinstance" and len(node.test.args) == 2):
            continue
        target, types = node.test.args
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name):
            continue
        names = types.elts if isinstance(types, ast.Tuple) else [types]
        if not names or not all(ast.unparse(n).rpartition(".")[2] in ("Parameter", "Module", "ModuleList", "ModuleDict",
                                                                    "Sequential") for n in names):
            continue
        ids = found.setdefault(target.attr, set())
        for statement in node.body:
            ids.update(id(inner) for inner in ast.walk(statement))
    return found


def _reshapes(method: str, call: ast.Call) -> bool:
    """`x.view(a, b)`, `x.view(-1)`: a tensor's view takes a shape; numpy's takes a dtype."""
    if method != "view" or call.keywords:
        return False
    return len(call.args) > 1 or (len(call.args) == 1 and isinstance(call.args[0], (ast.UnaryOp, ast.Tuple)))


def _name_used_as_tensor(nodes: list[ast.AST], name: str, methods_of_tensors: frozenset[str] = _TENSOR_METHODS) -> bool:
    """`p @ x`, `p.t()`, `torch.mm(p, x)` for a loop variable `p` (`for p in self.polynomials`)."""

    def is_name(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and (is_name(node.left) or is_name(node.right)):
                return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if is_name(node.func.value) and node.func.attr in methods_of_tensors:
                    return True
                if any(is_name(a) for a in _tensor_arguments(node)):
                    return True
    return False


# How many constructors an argument is followed through (a parent's call, a subclass's
# `super().__init__(...)`), one inside another.
_MAX_DEPTH = 8


def argument_values(index: RepoIndex, symbols: ModuleSymbols, cls: ast.ClassDef, init, wanted: set[str]) -> dict[str, Value]:
    """argument -> its value when every repository call of `cls` passes a tensor (or every
    one a list of tensors) for it; arguments left out fall back on their default.  The calls
    of subclasses that inherit the constructor count, and so does a subclass's constructor
    handing its own arguments on (`super().__init__(adj)`), typed from that subclass's calls."""
    paths = tuple(sorted(w for w in wanted if "." in w))  # `args.gso`: an attribute of what is passed
    key = ("call_sites", symbols.path, cls.name, cls.lineno, paths)
    # The answer depends on every file of the run (any of them may call the class).
    index.scanned_repository = True
    memo = index.memo.get(key)
    if memo is None:
        depth = index.memo.get("call_sites_depth", 0)
        if depth >= _MAX_DEPTH:
            return {}  # too deep to follow: nothing typed
        index.memo[key] = {}  # a class handing its argument on to itself: nothing typed
        index.memo["call_sites_depth"] = depth + 1
        try:
            memo = index.memo[key] = _observe(index, symbols, cls, init, paths)
        finally:
            index.memo["call_sites_depth"] = depth
    return {name: memo[name] for name in wanted if name in memo}


# `self.name = nn.Parameter(...)`, `self.register_buffer("name", ...)`: what a class registers.
_REGISTERS = re.compile(r"self\.(\w+)\s*=\s*(?:torch\.)?(?:nn\.)?Parameter\(|register_buffer\(\s*['\"](\w+)['\"]")


def registered_elsewhere(index: RepoIndex, argument: str) -> bool:
    """Whether `obj.name` (`clip_model.text_projection`) names what a module of the repository
    makes a parameter or a buffer under that name: then the argument is most likely that
    module's registered tensor, which `Module.__setattr__` registers here too (a Parameter),
    not a raw tensor to report."""
    owner, _, name = argument.rpartition(".")
    if not owner or not name.isidentifier():
        return False
    # The answer depends on every file of the run; the names are gathered once per run.
    index.scanned_repository = True
    names = index.memo.get("registered_names")
    if names is None:
        names = set()
        for path in index.files_calling(["Parameter", "register_buffer"]):
            for match in _REGISTERS.finditer(index.text(path) or ""):
                names.add(match.group(1) or match.group(2))
        index.memo["registered_names"] = names
    return name in names


def refuted_arguments(index: RepoIndex, symbols: ModuleSymbols, cls: ast.ClassDef) -> frozenset[str]:
    """The arguments (and attribute paths) argument_values found some repository call passing
    a non-tensor for, or every call leaving None; empty before argument_values ran."""
    return index.memo.get(("call_sites_refuted", symbols.path, cls.name, cls.lineno), frozenset())


def partly_typed_arguments(index: RepoIndex, symbols: ModuleSymbols, cls: ast.ClassDef) -> dict[str, tuple[str, str]]:
    """argument -> (where a repository call hands it a tensor, where another hands it a value
    the analysis cannot type), as argument_values found them; empty before it ran."""
    return index.memo.get(("call_sites_partly_typed", symbols.path, cls.name, cls.lineno), {})


def mixed_arguments(index: RepoIndex, symbols: ModuleSymbols, cls: ast.ClassDef) -> dict[str, tuple[str, str]]:
    """argument -> (where a repository call hands it a tensor, where another call, or its
    default, gives it a non-tensor: `RX(0, torch.tensor(0.5))` and `RX(0, "theta")`), as
    argument_values found them; empty before it ran.  A raw tensor in the first configuration,
    which no rewrite can register in the other."""
    return index.memo.get(("call_sites_mixed", symbols.path, cls.name, cls.lineno), {})


def complex_arguments(index: RepoIndex, symbols: ModuleSymbols, cls: ast.ClassDef) -> dict[str, str]:
    """argument -> where a repository call hands it a complex tensor (an expression the
    caller's constructor makes complex: `self.H = torch.exp(-1j * beta)`, then
    `FNN(n, init_value=self.H)`), as argument_values found them; empty before it ran."""
    return index.memo.get(("call_sites_complex", symbols.path, cls.name, cls.lineno), {})


def _own_init(cls: ast.ClassDef):
    return next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None)


def _constructor_heirs(index: RepoIndex, symbols: ModuleSymbols, cls: ast.ClassDef):
    """The repository subclasses whose construction runs this class's __init__: those that
    define none (their calls are calls of it), and those whose own __init__ may call it
    ({id of that __init__: (symbols, subclass, whether `super()` there means this class)})."""
    inheriting: list[tuple[ModuleSymbols, ast.ClassDef]] = []
    extending: dict[int, tuple[ModuleSymbols, ast.ClassDef, bool]] = {}
    pending = [(symbols, cls)]
    while pending:
        base_symbols, base = pending.pop()
        target = (base_symbols.path, base.name, base.lineno)
        for sub_symbols, sub in index.subclasses_of(base_symbols, base):
            # subclasses_of lists every descendant: keep the direct ones of `base`
            direct = [
                i
                for i, b in enumerate(sub.bases)
                if (r := index.resolve_expr(sub_symbols, b.value if isinstance(b, ast.Subscript) else b)) is not None
                and r.kind == "class" and r.path is not None and (r.path, r.name, r.header.lineno) == target
            ]
            if not direct:
                continue
            first = direct[0] == 0  # `super()` (and an inherited __init__) reach the first base
            sub_init = _own_init(sub)
            if sub_init is None:
                if first:
                    inheriting.append((sub_symbols, sub))
                    pending.append((sub_symbols, sub))
            elif id(sub_init) not in extending:
                extending[id(sub_init)] = (sub_symbols, sub, first)
    return inheriting, extending


def _base_constructor_arguments(index: RepoIndex, call: ast.Call, evaluator: Evaluator, target, extending):
    """(positional, keywords) when `call` runs the constructor of the class `target` from a
    subclass's __init__: `super().__init__(a)`, `super(Sub, self).__init__(a)`,
    `super(self.__class__, self).__init__(a)`, `Base.__init__(self, a)`; else None."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
        return None
    owner = getattr(evaluator, "constructor_of", None)
    heir = extending.get(id(owner[2])) if owner is not None else None
    self_name = evaluator.self_name
    if heir is None or self_name is None:
        return None
    _, sub, first = heir
    receiver = func.value
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
        if not first:
            return None  # the next class of the MRO is another base
        if receiver.args:
            if len(receiver.args) != 2 or not (isinstance(receiver.args[1], ast.Name) and receiver.args[1].id == self_name):
                return None
            kind = receiver.args[0]
            named = isinstance(kind, ast.Name) and kind.id == sub.name
            own_class = (
                isinstance(kind, ast.Attribute) and kind.attr == "__class__"
                and isinstance(kind.value, ast.Name) and kind.value.id == self_name
            ) or (
                isinstance(kind, ast.Call) and isinstance(kind.func, ast.Name) and kind.func.id == "type"
                and len(kind.args) == 1 and isinstance(kind.args[0], ast.Name) and kind.args[0].id == self_name
            )
            if not (named or own_class):
                return None
        return call.args, call.keywords
    if call.args and isinstance(call.args[0], ast.Name) and call.args[0].id == self_name:
        resolved = index.resolve_expr(evaluator.symbols, receiver)
        if resolved is not None and resolved.kind == "class" and (resolved.path, resolved.name) == target:
            return call.args[1:], call.keywords
    return None


def _observe(index: RepoIndex, symbols: ModuleSymbols, cls: ast.ClassDef, init, paths: tuple[str, ...] = ()) -> dict[str, Value]:
    args = init.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]][1:]  # without self
    keyword_names = set(positional) | {a.arg for a in args.kwonlyargs}
    defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    taken = {k: d for k, d in keywords_taken(init).items() if k not in keyword_names}
    keyword_names |= set(taken)
    defaults.update((k, d) for k, d in taken.items() if d is not None)
    default_values = {name: Evaluator(index, symbols, None).eval(node) for name, node in defaults.items()}
    # argument -> where the first call handing it a tensor is, and where the first call
    # handing it a value that cannot be typed is (partly_typed_arguments)
    tensor_at: dict[str, str] = {}
    untyped_at: dict[str, str] = {}
    non_tensor_at: dict[str, str] = {}  # where a call hands it a number, a string, ... (mixed_arguments)
    complex_at: dict[str, str] = {}  # where a call hands it a complex tensor (complex_arguments)
    seen: dict[str, list[Value]] = {name: [] for name in [*keyword_names, *paths]}
    calls = 0
    target = (symbols.path, cls.name)
    inheriting, extending = _constructor_heirs(index, symbols, cls)
    targets = {target, *((s.path, c.name) for s, c in inheriting)}
    names = {cls.name, *(c.name for _, c in inheriting)}
    # A call added in any file changes this class's result: the cache must know.
    index.scanned_repository = True

    observed: set[tuple] = set()  # where each call is: a module's trees may be parsed twice
    # A class defined inside a function (`class Op(nn.Module)` in `main()`) has no name the
    # module exports: its calls are those by its bare name in the same top-level definition.
    enclosing = _enclosing_definition(symbols, cls)
    local_ranges = [enclosing] if enclosing is not None else _local_definitions(symbols, cls.name)

    def on_call(outer: ast.Call, evaluator: Evaluator) -> None:
        # The evaluator does not read the arguments of calls it types without them
        # (`nn.ModuleList([Child(adj)])`): look inside each call it meets.
        for call in ast.walk(outer):
            if isinstance(call, ast.Call):
                where = (evaluator.symbols.path, call.lineno, call.col_offset, call.end_lineno, call.end_col_offset)
                if where not in observed:
                    observed.add(where)
                    observe(call, evaluator)

    def observe(call: ast.Call, evaluator: Evaluator) -> None:
        nonlocal calls
        arguments = _base_constructor_arguments(index, call, evaluator, target, extending) if extending else None
        if arguments is None:
            func = call.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name not in names:
                if not _registry_call_of(index, evaluator.symbols, func, targets):
                    return
                name = None  # `MODELS["cnn"](...)`: the class its registry holds under that key
            local = name is not None and isinstance(func, ast.Name) and func.id == cls.name and evaluator.symbols is symbols \
                and any(start < call.lineno <= end for start, end in local_ranges)
            if enclosing is not None:
                if not local:
                    return  # a class defined in a function answers only that function's calls
            elif local:
                return  # a call of the same-named class a function defines, not of this one
            elif name is not None:
                resolved = index.resolve_expr(evaluator.symbols, func)
                if resolved is None or resolved.kind != "class" or (resolved.path, resolved.name) not in targets:
                    return
            arguments = call.args, call.keywords
        passed, keywords = arguments
        calls += 1
        where = f"{evaluator.symbols.path.name if evaluator.symbols.path else 'its file'}, line {call.lineno}"
        if any(isinstance(a, ast.Starred) for a in passed) or any(k.arg is None for k in keywords):
            for name, values in seen.items():
                values.append(UNKNOWN)
                untyped_at.setdefault(name, where)
            return
        given: dict[str, Value] = {}
        nodes: dict[str, ast.expr] = {}
        for position, arg in enumerate(passed):
            if position < len(positional):
                nodes[positional[position]] = arg
        for kw in keywords:
            if kw.arg in keyword_names:
                nodes[kw.arg] = kw.value
        for name, node in nodes.items():
            given[name] = _passed_value(index, evaluator, node)
            if name not in complex_at and complex_value(node, evaluator.function, evaluator.self_name, None):
                complex_at[name] = where  # `FNN(n, init_value=self.H)`, `self.H = torch.exp(-1j * beta)`
        for path in paths:
            root, *attributes = path.split(".")
            if root in nodes:
                # Model(args): the value of `args.gso` where the call is made
                node = nodes[root]
                for attribute in attributes:
                    node = ast.Attribute(value=node, attr=attribute, ctx=ast.Load())
                given[path] = evaluator.eval(node)
        for name, values in seen.items():
            value = given[name] if name in given else default_values.get(name, UNKNOWN)
            values.append(value)
            if value.is_tensor and not value.is_guess:
                tensor_at.setdefault(name, where)
            elif value.kind is Kind.UNKNOWN:
                untyped_at.setdefault(name, where)
            elif value.kind is Kind.NON_TENSOR and not value.maybe_parameter:
                non_tensor_at.setdefault(name, where if name in given else f"{where} (its default)")

    needles = tuple(sorted(name + "(" for name in names))
    for path in index.files_calling(names):
        other = index.symbols_for_path(path)
        if other is None:
            continue
        index.note((path,))
        _walk_calls(index, other, needles, on_call)
    if enclosing is None:
        for path, lookups in index.registry_call_files(names).items():
            other = index.symbols_for_path(path)
            if other is not None:
                index.note((path,))
                _walk_calls(index, other, lookups, on_call)
    # The constructors of subclasses that may hand their arguments on to this one.
    for sub_symbols, sub, _ in extending.values():
        sub_init = _own_init(sub)
        if sub_init is not None and sub_init.args.args:
            _walk_function(index, sub_symbols, sub_init, on_call, (sub_symbols, sub, sub_init), methods=lambda _name: None)
    # Arguments some call proves are no plain tensor (a number, a string, an array, a
    # Parameter), or that every call leaves None: see refuted_arguments.
    index.memo[("call_sites_refuted", symbols.path, cls.name, cls.lineno)] = frozenset(
        name
        for name, values in seen.items()
        if any(v.kind in (Kind.NON_TENSOR, Kind.PARAMETER, Kind.BUFFER) or v.maybe_parameter for v in values)
        or (values and all(v.kind is Kind.NONE for v in values))
    )
    index.memo[("call_sites_partly_typed", symbols.path, cls.name, cls.lineno)] = {
        name: (tensor_at[name], untyped_at[name]) for name in seen if name in tensor_at and name in untyped_at
    }
    index.memo[("call_sites_complex", symbols.path, cls.name, cls.lineno)] = dict(complex_at)
    index.memo[("call_sites_mixed", symbols.path, cls.name, cls.lineno)] = {
        name: (tensor_at[name], non_tensor_at[name]) for name in seen if name in tensor_at and name in non_tensor_at
    }
    if not calls:
        return {}
    plural = "call" if calls == 1 else f"{calls} calls"
    state = f"{ARGUMENT_STATE[:-1]}; typed from its {plural} in the repository)"
    return {name: _combine(values, state) for name, values in seen.items()}


def _registry_call_of(index: RepoIndex, symbols: ModuleSymbols, func: ast.expr, targets: set) -> bool:
    """Whether `func` looks up one of `targets` (path, class name) with a constant key in a
    module-level dict of classes (registry_entry)."""
    entry = registry_entry(index, symbols, func)
    if entry is None or not isinstance(entry[1], (ast.Name, ast.Attribute)):
        return False
    resolved = index.resolve_expr(entry[0], entry[1])
    return resolved is not None and resolved.kind == "class" and (resolved.path, resolved.name) in targets


def _top_level_definitions(symbols: ModuleSymbols, needle: str, line: int | None = None):
    """The module's top-level functions and classes whose text holds `needle` (and `line`)."""
    for definitions in (symbols.functions, symbols.classes):
        for name in list(definitions):
            segment = definitions.segment(name)
            if segment is not None and (needle not in segment.text
                                        or (line is not None and not segment.start <= line <= segment.end)):
                continue
            yield definitions[name]


def _functions_holding(top: ast.AST, cls_name: str):
    """(function, class) for each class `cls_name` defined inside a function within `top`, the
    innermost function for each."""
    found: dict[int, tuple[ast.AST, ast.ClassDef]] = {}
    for function in ast.walk(top):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(function):
                if isinstance(inner, ast.ClassDef) and inner.name == cls_name:
                    found[id(inner)] = (function, inner)  # ast.walk goes outside in: the last is innermost
    return list(found.values())


def _enclosing_definition(symbols: ModuleSymbols, cls: ast.ClassDef) -> tuple[int, int] | None:
    """The lines of the function holding `cls`, when `cls` is defined in one (a top-level
    function or a method; after the class, up to the function's end); None for a class the
    module defines."""
    if cls.name in symbols.classes and symbols.classes[cls.name] is cls:
        return None
    for top in _top_level_definitions(symbols, f"class {cls.name}", cls.lineno):
        for function, inner in _functions_holding(top, cls.name):
            if inner is cls:
                return cls.end_lineno, function.end_lineno
    return None


def _local_definitions(symbols: ModuleSymbols, name: str) -> list[tuple[int, int]]:
    """Where a class `name` defined inside a function (or a method) shadows the module's own
    class of that name: from the local class to the function's end."""
    return [(inner.end_lineno, function.end_lineno)
            for top in _top_level_definitions(symbols, f"class {name}")
            for function, inner in _functions_holding(top, name)]


# The names torch's layers give their parameters (`nn.Linear(...).weight`).
_PARAMETER_NAMES = frozenset({"weight", "bias", "in_proj_weight", "in_proj_bias"})


_ABSENT = object()


def _passed_value(index: RepoIndex, evaluator: Evaluator, node: ast.expr) -> Value:
    """The value a call hands in; an argument of the calling constructor handed on unchanged
    (`Block(adj)` inside `Parent.__init__(self, adj)`) is typed from the parent's own calls."""
    value = evaluator.eval(node)
    if value.kind is Kind.UNKNOWN and isinstance(node, ast.Attribute) and node.attr in _PARAMETER_NAMES:
        # `Head(weight=self.embed.weight)`: another module's parameter, tied (refuted_arguments)
        return Value(Kind.UNKNOWN, maybe_parameter=True)
    owner = getattr(evaluator, "constructor_of", None)
    if value.kind is not Kind.UNKNOWN or owner is None:
        return value
    # `Unpool(mesh.unpool_idx[0])` inside `Parent.__init__(self, mesh)`: the attribute path
    # (`mesh.unpool_idx`) is typed where the parent's calls are made, the rest read here.
    held = node.value if isinstance(node, ast.Subscript) else node
    path = held.id if isinstance(held, ast.Name) else dotted_path(held)
    if path is None:
        return value
    root = path.partition(".")[0]
    symbols, cls, init = owner
    args = init.args
    if root not in {a.arg for a in [*args.posonlyargs, *args.args[1:], *args.kwonlyargs]}:
        return value
    if any(isinstance(n, ast.Name) and n.id == root and isinstance(n.ctx, ast.Store) for n in ast.walk(init)):
        return value  # rebound in the parent's constructor: another value
    passed = argument_values(index, symbols, cls, init, {path}).get(path)
    if passed is None:
        return value
    if held is node:
        return passed
    saved = evaluator.env.get(path, _ABSENT)
    evaluator.env[path] = passed
    try:
        return evaluator.eval(node)
    finally:
        if saved is _ABSENT:
            del evaluator.env[path]
        else:
            evaluator.env[path] = saved


def _combine(values: list[Value], state: str) -> Value:
    if all(v.kind is Kind.SEQUENCE for v in values):
        shaped = [v.elements for v in values if v.elements is not None]
        if not shaped:
            return Value(Kind.SEQUENCE, state)
        if len(shaped) == len(values) and len({len(e) for e in shaped}) == 1:
            # `Head((x.min(), 1.0))`: what each item is, merged over the calls, position by position
            return Value(Kind.SEQUENCE, state, elements=tuple(_combine(list(column), state) for column in zip(*shaped)))
        if all(item.is_tensor and not item.is_guess for e in shaped for item in e):
            return Value(Kind.SEQUENCE, state)
        return UNKNOWN  # items of different kinds, in tuples of different lengths
    result = values[0]
    for value in values[1:]:
        result = merge_branches(result, value)
    if any(v.kind is Kind.NON_TENSOR for v in values):
        return Value(Kind.NON_TENSOR, state)  # some call passes a non-tensor: see refuted_arguments
    if all(v.kind is Kind.NONE for v in values):
        return Value(Kind.NONE, state)
    if not result.is_tensor or any(v.requires_grad for v in values):
        return UNKNOWN  # a caller handing in a trained tensor decides what it is, not the child
    return Value(result.kind, state, None, result.integer, integer_guessed=result.integer_guessed)


def _walk_function(index: RepoIndex, symbols: ModuleSymbols, function, on_call, constructor_of=None, body=None, methods=None,
                   self_attrs=None) -> None:
    """Walk a function's body (or `body`), calling `on_call` on each call with its evaluator;
    `constructor_of` (symbols, class, __init__) when the function is a class's constructor;
    `self_attrs`, for another method, what its class's constructor binds on self."""
    from codemod.walker import BodyWalker  # walker builds on tensors, as this module does

    evaluator = Evaluator(index, symbols, function, methods, self_attrs=self_attrs)
    evaluator.on_call = on_call
    evaluator.constructor_of = constructor_of  # type: ignore[attr-defined]  (see _passed_value)
    BodyWalker(evaluator).walk(function.body if body is None else body)


def _walk_calls(index: RepoIndex, symbols: ModuleSymbols, needles: tuple[str, ...], on_call) -> None:
    """Walk every function, method and module-level block of a module that mentions one of
    `needles`, calling `on_call` on each call with the evaluator of its scope."""
    lines = symbols.source_lines

    def named(text: str) -> bool:
        return any(needle in text for needle in needles)

    def mentions(stmt: ast.stmt) -> bool:
        return named("\n".join(lines[stmt.lineno - 1 : stmt.end_lineno]))

    # The module-level statements up to the last that mentions the class: the ones before
    # may set what its call passes (`args.adj = torch.tensor(adj)`, then `Model(args)`).
    mentioning = [i for i, s in enumerate(symbols.header) if mentions(s)]
    if mentioning:
        _walk_function(index, symbols, None, on_call, body=symbols.header[: mentioning[-1] + 1])
    for name in list(symbols.functions):
        segment = symbols.functions.segment(name)
        if segment is not None and not named(segment.text):
            continue
        node = symbols.functions[name]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _walk_function(index, symbols, node, on_call)
    for name in list(symbols.classes):
        segment = symbols.classes.segment(name)
        if segment is not None and not named(segment.text):
            continue
        owner = symbols.classes[name]
        for stmt in owner.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and mentions(stmt):
                if stmt.name == "__init__":
                    _walk_function(index, symbols, stmt, on_call, (symbols, owner, stmt), methods=lambda _name: None)
                else:
                    # `Encoder(self.graph_neigh)` in a trainer's method: what its constructor bound
                    held = dict(constructor_attributes(index, [(symbols, owner)], 0))
                    _walk_function(index, symbols, stmt, on_call, methods=lambda _name: None, self_attrs=held)
