"""Tensors whose values end in code that takes only CPU data stay plain attributes.

Torch fact (torch 2.13): `model.to(device)` / `.cuda()` move every buffer, and a raw
attribute stays where it was made.  `Tensor.numpy()` and the legacy typed constructors given
data (`torch.LongTensor(t)`, `torch.FloatTensor(t)`) take only CPU tensors: on a CUDA
tensor they raise `TypeError`, and so does a numpy function given the tensor itself
(`np.maximum(self.err / self.count, 1e-32)`), which reads it through `Tensor.numpy()`.  A
tensor read where its value (or one computed from it in the same method) reaches such a
call, in its own class or in the method of the repository it is handed to
(`self.embedding.forward_o(nwords)` with `nwords` drawn from it), works today on the CPU
while the model runs on the GPU, and would raise as a buffer.  numpy has
no bfloat16 either: a float buffer cast by `model.to(torch.bfloat16)` makes even
`.cpu().numpy()` raise, so for a float tensor every `.numpy()` of its values counts.
`torch.set_rng_state(t)` (and the CUDA setters) take a CPU ByteTensor only: an RNG state
kept on `self` (a lazy slot filled by `torch.get_rng_state()`) must not follow the model.
A value read from the tensor (an element of `for i in self.ids`) that a method compares with,
or combines with, a tensor it moves to the CPU itself (`labels = labels.to("cpu")`, then
`i not in labels`) meets a CPU tensor: a CUDA element there raises a device mismatch.  Indexed
by such a tensor (`self.gallery[probs.cpu().topk(k).indices]`), a CUDA table gives a CUDA
result where the method's other values are on the CPU.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod import torch_names as tn
from codemod.segments import CONFIG_NAMES
from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts
    from codemod.repo_index import RepoIndex
    from codemod.symbols import ModuleSymbols

RULE = Rule(
    "BUF218",
    "cpu-data-read",
    "its values reach Tensor.numpy(), a numpy function (np.maximum(t, ...)), a legacy typed constructor "
    "(torch.LongTensor(t)) or an RNG state setter (torch.set_rng_state(t)), which take only CPU tensors, or meet a "
    "tensor the method moves to the CPU itself, or makes there (torch.rand(1) with no device=)",
    fact="model.cuda() moves every buffer, not a raw attribute; Tensor.numpy(), a numpy function given a tensor (which reads it through Tensor.numpy()) and torch.LongTensor(t) raise TypeError on a CUDA tensor, and torch.set_rng_state(t) takes only a CPU ByteTensor, so a value drawn from a buffer there fails where the attribute's CPU value works; so does an element of it compared with a tensor moved to the CPU (i not in labels.to('cpu')), and arithmetic with a CPU tensor of one dimension or more made without device= (only 0-dim CPU tensors mix with CUDA ones).",
    before="def __init__(self, weights):\n    super().__init__()\n    self.weights = torch.FloatTensor(weights)\n\n"
    "def forward(self, n):\n    draws = torch.multinomial(self.weights, n)\n    return torch.LongTensor(draws)",
)
RULES = (RULE,)

REASON = (
    "a value read from it reaches {sink}, which takes only CPU tensors: the plain attribute stays on the CPU when "
    "the model moves, a buffer would follow it to the GPU and that call would raise"
)
SUGGESTION = "leave it as it is; or register it and move what reaches that call to the CPU first (.cpu())"
# A float tensor's host copy (`.cpu().numpy()`) reaching numpy: only a cast of the model breaks it.
_CAST_SINK = "Tensor.numpy() of a host copy"
CAST_REASON = (
    "a value read from it reaches {sink}: numpy has no bfloat16, so a float buffer that model.to(torch.bfloat16) "
    "casts would make that call raise, where the plain attribute stays float32"
)
CAST_SUGGESTION = "leave it as it is; or register it and cast what reaches numpy to float32 first (.float())"

_METHODS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _self_name(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    parameters = [*function.args.posonlyargs, *function.args.args]
    return parameters[0].arg if parameters else None


# Calls whose result is no tensor (a number, a list, an array), on any device and dtype.
_NO_TENSOR = frozenset({"item", "tolist", "numpy"})
# What a tensor says of itself (its sizes, dtype, device), the same on any device.
_METADATA = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad"})
# Builtins that make a Python number (or a string) of a tensor on any device.
_PYTHON_NUMBERS = frozenset({"float", "int", "bool", "len", "str", "round", "repr"})


def _ends(node: ast.AST, dtype: bool) -> bool:
    """Whether a call's result no longer carries the buffer's device (`.cpu()`, `.item()`),
    or, with `dtype`, its dtype (only what leaves tensors: `.item()`, `.tolist()`)."""
    if isinstance(node, ast.Attribute) and node.attr in _METADATA:
        return True  # `x.shape[2]`, `t.device`: what a tensor says of itself, on any device
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _PYTHON_NUMBERS:
        return True  # `float(t)`, `len(t)`: a Python number, read from any device
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if node.func.attr in _NO_TENSOR:
        return True
    if dtype:
        return False
    if node.func.attr == "cpu":
        return True
    return node.func.attr == "to" and any(
        isinstance(a, ast.Constant) and a.value == "cpu" for a in [*node.args, *(k.value for k in node.keywords)])


def _mentions(node: ast.AST, self_name: str | None, attr: str | None, tainted: set[str], dtype: bool = False) -> bool:
    """Whether `node` computes from self.<attr> or a tainted name, other than through a call
    that brings the value to the host (`.cpu()`, `.item()`); with `dtype`, other than
    through one that leaves tensors (`.item()`)."""
    def is_source(inner: ast.AST) -> bool:
        return attr is not None and isinstance(inner, ast.Attribute) and inner.attr == attr \
            and isinstance(inner.value, ast.Name) and inner.value.id == self_name

    return _computes_from(node, is_source, tainted, dtype)


def _computes_from(node: ast.AST, is_source, tainted: set[str], dtype: bool = False, stops=None) -> bool:
    """Whether `node` computes from a node `is_source` accepts or a tainted name (see _mentions),
    other than through a node `stops` accepts (by default _ends': what brings the value to
    the host or to a number)."""
    pending = [node]
    while pending:
        inner = pending.pop()
        if stops(inner) if stops is not None else _ends(inner, dtype):
            continue
        if isinstance(inner, ast.Name) and inner.id in tainted and isinstance(inner.ctx, ast.Load):
            return True
        if is_source(inner):
            return True
        pending.extend(ast.iter_child_nodes(inner))
    return False


def _tainted_names(function: ast.AST, self_name: str | None, attr: str | None, seeds: set[str],
                   dtype: bool = False) -> set[str]:
    """The local names whose values are computed from self.<attr> or from `seeds`, in any
    order of the assignments (a loop may bind a name before its source)."""
    return _propagate([function], lambda value, tainted: _mentions(value, self_name, attr, tainted, dtype), seeds)


def _propagate(nodes: list[ast.AST], computes, seeds: set[str] = frozenset()) -> set[str]:
    """The local names bound, in `nodes`, to values `computes(value, tainted)` accepts, to a fixed
    point (a name may be bound before its source, in a loop)."""
    tainted = set(seeds)
    assignments = [n for node in nodes for n in ast.walk(node) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))]
    changed = True
    while changed:
        changed = False
        for node in assignments:
            if node.value is None or not computes(node.value, tainted):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for name in (n for target in targets for n in _bound_names(target)):
                if name not in tainted:
                    tainted.add(name)
                    changed = True
    return tainted


def _bound_names(target: ast.expr) -> list[str]:
    """The local names an assignment target binds (`a`, `a, (b, *c)`); a subscript or an
    attribute (`out["x"] = ...`) binds none: the container is not the value."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _bound_names(element)]
    return []


def _cpu_sink(call: ast.Call, symbols: ModuleSymbols, self_name: str | None, attr: str | None,
              tainted: set[str], cast: set[str] | None = None, held: frozenset[str] = frozenset(),
              returns_values=None) -> str | None:
    """What in `call` takes only CPU data from a tainted value: `x.numpy()`, `LongTensor(x)`.
    `cast`: the names tainted through `.cpu()` too, for a float tensor (numpy has no bfloat16);
    `held`: the locals that hold the attribute's values themselves (_holds_values)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "numpy":
        if _mentions(func.value, self_name, attr, tainted):
            return "Tensor.numpy()"
        if cast is not None and _mentions(func.value, self_name, attr, cast, dtype=True):
            return _CAST_SINK
    qualname = symbols.qualify(func)
    if qualname in _RNG_STATE_SETTERS and any(
            _mentions(a, self_name, attr, tainted) for a in [*call.args, *(k.value for k in call.keywords)]):
        return f"{qualname}() (a random number generator's state is a CPU ByteTensor, whatever the device)"
    if qualname is not None and tn.classify_call(qualname) is tn.CallKind.LEGACY and any(
            _mentions(a, self_name, attr, tainted) for a in call.args):
        return f"{qualname}(data)"
    if qualname is not None and qualname.split(".")[0] == "numpy" and qualname not in NUMPY_METADATA_READERS and attr is not None and any(
            _holds_values(a, self_name, attr, held, returns_values) for a in [*call.args, *(k.value for k in call.keywords)]):
        return f"{qualname}() (numpy reads the tensor through Tensor.numpy())"
    return None


# numpy functions that read a tensor's metadata, not its values (`np.shape(t)` returns
# `t.shape`): they work on a tensor on any device (tests/test_cpu_data_reads.py measures it).
NUMPY_METADATA_READERS = frozenset({"numpy.shape", "numpy.ndim", "numpy.size", "numpy.isscalar", "numpy.iterable"})


# What restores a random number generator's state takes it as a CPU ByteTensor, even for a
# CUDA generator (torch.get_rng_state() and torch.cuda.get_rng_state() both return one).
_RNG_STATE_SETTERS = frozenset({
    "torch.set_rng_state", "torch.random.set_rng_state", "torch.cuda.set_rng_state", "torch.cuda.random.set_rng_state",
    "torch.cuda.set_rng_state_all", "torch.utils.checkpoint.set_device_states",
})


# Tensor methods whose result is a number or a shape, not the tensor's values (those that bring
# the values to the host, `.cpu()`, `.item()`, are _ends').
_SIZES = frozenset({"size", "dim", "numel", "nelement", "ndimension", "element_size", "stride", "data_ptr", "get_device",
                    "is_contiguous", "storage_offset"})


def _holds_values(node: ast.expr, self_name: str | None, attr: str, held: set[str] = frozenset(),
                  returns_values=None) -> bool:
    """Whether an argument is self.<attr>'s values, or computed from them by arithmetic, items
    and tensor methods (`self.err / self.n.clamp(min=1)`), or a local in `held`: not a size
    read from it (`self.x.shape[0]`, `len(self.x)`), which numpy takes as a number.  What a
    function makes of the values counts where `returns_values(call)` says it hands them back
    (`make_batch(n, self.states)`, a repository helper that indexes them)."""
    def holds(inner: ast.expr) -> bool:
        return _holds_values(inner, self_name, attr, held, returns_values)

    if isinstance(node, ast.Name):
        return node.id in held
    if isinstance(node, ast.Attribute):
        return node.attr == attr and isinstance(node.value, ast.Name) and node.value.id == self_name
    if isinstance(node, ast.BinOp):
        return holds(node.left) or holds(node.right)
    if isinstance(node, ast.UnaryOp):
        return holds(node.operand)
    if isinstance(node, ast.Subscript):
        return holds(node.value)
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(holds(element) for element in node.elts)
    if isinstance(node, ast.Call) and not _ends(node, dtype=False):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _SIZES:
            return False
        if isinstance(func, ast.Attribute) and holds(func.value):
            return True  # a tensor method of the values
        return returns_values is not None and any(holds(a) for a in node.args) and returns_values(node)
    return False


def _value_holders_at(method: ast.AST, self_name: str | None, attr: str, returns_values) -> dict[int, frozenset[str]]:
    """id(call) -> the locals holding self.<attr>'s values where that call of `method` is, in
    the order the statements are written: `s, a = make_batch(n, self.states, self.actions)`
    binds both, `s = to_numpy(s)` (a function that does not hand them back) unbinds `s`."""
    held: set[str] = set()
    found: dict[int, frozenset[str]] = {}
    steps = []
    for node in ast.walk(method):
        if isinstance(node, ast.Call):
            steps.append(((node.lineno, node.col_offset), 0, node))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            # after the calls of its value
            steps.append(((node.end_lineno or node.lineno, node.end_col_offset or 0), 1, node))
    for _, _, node in sorted(steps, key=lambda step: (step[0], step[1])):
        if isinstance(node, ast.Call):
            found[id(node)] = frozenset(held)
            continue
        holds = _holds_values(node.value, self_name, attr, held, returns_values)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for name in (n for target in targets for n in _bound_names(target)):
            (held.add if holds else held.discard)(name)
    return found


def _hands_values_back(index: RepoIndex, symbols: ModuleSymbols):
    """returns_values for _holds_values: a torch function (its result is on the values'
    device), or a function of the repository one of whose returns is made of its parameters'
    values (`return [v[idx] for v in values]`), not of their host copies (`.cpu().numpy()`)."""
    def returns_values(call: ast.Call) -> bool:
        qualname = symbols.qualify(call.func) or ""
        if qualname.startswith("torch."):
            return True
        resolved = index.resolve_expr(symbols, call.func)
        if resolved is None or resolved.kind != "function" or resolved.module is None:
            return False
        function = resolved.node
        if not isinstance(function, _METHODS):
            return False
        # asked once per function and run: every method and attribute that calls it asks again
        key = ("hands_values_back", resolved.path, function.name, function.lineno)
        if key not in index.memo:
            index.memo[key] = _returns_its_arguments(function)
        return index.memo[key]
    return returns_values


def _returns_its_arguments(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether one of the function's returns is made of its parameters' values."""
    arguments = function.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    names |= {a.arg for a in (arguments.vararg,) if a is not None}
    names |= {target for node in ast.walk(function) if isinstance(node, ast.comprehension)
              for target in _bound_names(node.target)
              if _holds_values(node.iter, None, "", names)}
    names = _propagate([function], lambda value, held: _holds_values(value, None, "", held), names)
    return any(isinstance(node, ast.Return) and node.value is not None
               and _holds_values(node.value.elt if isinstance(node.value, (ast.ListComp, ast.GeneratorExp))
                                 else node.value, None, "", names)
               for node in ast.walk(function))


def _handed(call: ast.Call, self_name: str | None, attr: str, tainted: set[str]) -> tuple[str, list[int], list[str]] | None:
    """`self.<held>.<method>(...)` with tainted arguments: (method, positions, keywords)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute)
            and isinstance(func.value.value, ast.Name) and func.value.value.id == self_name):
        return None
    positions = [i for i, a in enumerate(call.args) if _mentions(a, self_name, attr, tainted)]
    keywords = [k.arg for k in call.keywords if k.arg is not None and _mentions(k.value, self_name, attr, tainted)]
    return (func.attr, positions, keywords) if positions or keywords else None


def _method_sinks(index: RepoIndex, name: str, positions: list[int], keywords: list[str]) -> str | None:
    """Whether a repository method called `name` (any class: the receiver is not typed) hands
    the parameters at those positions or keywords to a CPU-only call."""
    for path in index.files_calling([name]):
        symbols = index.symbols_for_path(path)
        if symbols is None:
            continue
        index.note([path])
        for class_name in list(symbols.classes):
            cls = symbols.classes[class_name]
            for method in cls.body:
                if not isinstance(method, _METHODS) or method.name != name:
                    continue
                parameters = [*method.args.posonlyargs, *method.args.args][1:]
                seeds = {parameters[i].arg for i in positions if i < len(parameters)}
                seeds |= {k for k in keywords if any(p.arg == k for p in [*parameters, *method.args.kwonlyargs])}
                if not seeds:
                    continue
                tainted = _tainted_names(method, None, None, seeds)
                for call in (n for n in ast.walk(method) if isinstance(n, ast.Call)):
                    sink = _cpu_sink(call, symbols, None, None, tainted)
                    if sink is not None:
                        return f"{sink} in {class_name}.{name}"
    return None


def cpu_data_sink(facts: AttributeFacts) -> str | None:
    """Where a value read from self.<attr> outside __init__ reaches a CPU-only call, or None."""
    cls = facts.cls
    attr = facts.attr
    # an integer or bool tensor is never cast by the model, so its host copies stay readable
    integer = all(e.value is not None and e.value.integer and not e.value.integer_guessed
                  for e in facts.events if e.value is not None and e.value.is_tensor)
    return _sink_in_methods(cls, attr, integer) or _sink_through_other_objects(facts)


def _sink_in_methods(cls, attr: str, integer: bool) -> str | None:
    """Where a value read from self.<attr> in a method of the class (or one it hands it to)
    reaches a CPU-only call, or None."""
    for method in cls.cls.body:
        if not isinstance(method, _METHODS) or method.name == "__init__":
            continue
        me = _self_name(method)
        if me is None or not any(isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name)
                                 and n.value.id == me for n in ast.walk(method)):
            continue
        tainted = _tainted_names(method, me, attr, set())
        elements = _loop_targets(method, lambda node: _mentions(node, me, attr, tainted))
        if elements - tainted:
            # `for i in self.ids`, `[i for i in self.ids if ...]`: each element comes from it
            tainted = _tainted_names(method, me, attr, elements)
        cast = None if integer else _tainted_names(method, me, attr, set(), dtype=True)
        met = _meets_host_tensor(method, lambda node: _mentions(node, me, attr, tainted), cls.symbols.qualify)
        if met is not None:
            what, line, how = met
            return f"{what} (line {line}) with a tensor {cls.cls.name}.{method.name} {how}"
        returns_values = _hands_values_back(cls.index, cls.symbols)
        held_at = _value_holders_at(method, me, attr, returns_values)
        for call in (n for n in ast.walk(method) if isinstance(n, ast.Call)):
            sink = _cpu_sink(call, cls.symbols, me, attr, tainted, cast, held_at.get(id(call), frozenset()), returns_values)
            if sink is not None:
                return f"{sink} in {cls.cls.name}.{method.name}"
            handed = _handed(call, me, attr, tainted)
            if handed is not None:
                sink = _method_sinks(cls.index, *handed)
                if sink is not None:
                    return sink
    return None


def _loop_targets(function: ast.AST, from_source) -> set[str]:
    """The names a `for` loop or a comprehension binds to the elements of a value
    `from_source` accepts."""
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and from_source(node.iter):
            names.update(_bound_names(node.target))
    return names


def _moved_to_host(node: ast.AST) -> bool:
    """`x.cpu()`, `x.to("cpu")`: a tensor on the CPU whatever the model's device."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
        node.func.attr == "cpu" or (node.func.attr == "to" and any(
            isinstance(a, ast.Constant) and a.value == "cpu" for a in [*node.args, *(k.value for k in node.keywords)])))


def _host_valued(node: ast.AST, host: set[str], qualify=None) -> bool:
    """Whether `node` computes a tensor from one moved to the CPU in the method (a name bound to
    one, or the move itself), other than through a call that leaves tensors (`.item()`); with
    `qualify`, from one a torch factory makes there without `device=` too."""
    pending = [node]
    while pending:
        inner = pending.pop()
        if _moved_to_host(inner) or (qualify is not None and _made_on_host(inner, qualify)):
            return True
        if isinstance(inner, ast.Call) and (
                (isinstance(inner.func, ast.Attribute) and inner.func.attr in _NO_TENSOR)
                or (isinstance(inner.func, ast.Name) and inner.func.id in _PYTHON_NUMBERS)):
            continue
        if qualify is not None and isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) \
                and inner.func.attr in ("to", "cuda", "type_as"):
            continue  # `torch.rand(1).to(self.device)`: moved where the model computes
        if qualify is not None and isinstance(inner, ast.Call) and not (qualify(inner.func) or "").startswith("torch."):
            # a factory's CPU tensor handed to a module or another function (`self.embed(ids)`)
            # gives what that computes, on the model's device: only a tensor method's receiver
            # (`draws.view(...)`) carries the CPU value on
            if isinstance(inner.func, ast.Attribute):
                pending.append(inner.func.value)
            continue
        if isinstance(inner, ast.Name) and inner.id in host and isinstance(inner.ctx, ast.Load):
            return True
        pending.extend(ast.iter_child_nodes(inner))
    return False


def _meets_host_tensor(method: ast.AST, from_attribute, qualify=None) -> tuple[str, int, str] | None:
    """What and on which line a value `from_attribute` accepts is compared with (`i not in labels`,
    `ids == labels`), combined by arithmetic with, or indexed by a tensor the method itself moves to the
    CPU (`labels = torch.unique(labels).to("cpu")`): on the CPU today, a device mismatch once
    the attribute follows the model.  With `qualify`, a comparison or arithmetic with a tensor the
    method makes on the CPU (`x0 = torch.rand(1) * w`, no `device=`) counts too: as a plain
    attribute the value meets it on the CPU; as a buffer on the GPU it meets a CPU tensor of one
    dimension or more, which torch refuses (only 0-dim CPU tensors mix with CUDA ones)."""
    host = _propagate([method], lambda value, names: _host_valued(value, names))
    made = _propagate([method], lambda value, names: _host_valued(value, names, qualify)) if qualify is not None else None
    for node in ast.walk(method):
        if isinstance(node, ast.Compare):
            operands, what, arithmetic = [node.left, *node.comparators], "a comparison or arithmetic", True
        elif isinstance(node, ast.BinOp):
            operands, what, arithmetic = [node.left, node.right], "a comparison or arithmetic", True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _BINARY_OPERATIONS:
            # `self.mask.mul(x)`, `x.matmul(self.w)`, `torch.mul(self.mask, x)`: arithmetic, as a method
            # or a torch function
            torch_function = qualify is not None and (qualify(node.func) or "") == f"torch.{node.func.attr}"
            operands = list(node.args) if torch_function else [node.func.value, *node.args]
            what, arithmetic = "a comparison or arithmetic", True
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            # `self.gallery[top.indices]` with top drawn from `probs.cpu()`: a CPU result today,
            # beside the method's other CPU values; a GPU one once the table follows the model
            # (a CUDA tensor indexed by a CPU one it has not been moved with is fine: moved only)
            operands, what, arithmetic = [node.value, node.slice], "an indexing", False
        else:
            continue
        for i, operand in enumerate(operands):
            others = operands[:i] + operands[i + 1:]
            if from_attribute(operand) and not _host_valued(operand, host) and any(_host_valued(o, host) for o in others):
                return what, node.lineno, "moves to the CPU"
            if arithmetic and made is not None and from_attribute(operand) and not _host_valued(operand, made, qualify) \
                    and any(_host_valued(o, made, qualify) for o in others):
                return what, node.lineno, "makes on the CPU (a torch factory without device=)"
    return None


# Tensor methods (and torch functions of the same name) that combine their tensors elementwise
# or by a product: operands on two devices raise, as with the operators.
_BINARY_OPERATIONS = tn.ARITHMETIC_METHODS | {
    "floor_divide", "remainder", "fmod", "dot", "outer", "atan2", "hypot", "eq", "ne", "lt", "le", "gt", "ge",
    "masked_fill", "where",
}

# torch factories whose result is on the CPU when no `device=` is given.
_HOST_FACTORIES = frozenset({"torch.rand", "torch.randn", "torch.zeros", "torch.ones", "torch.empty", "torch.full",
                             "torch.arange", "torch.linspace", "torch.logspace", "torch.randint", "torch.randperm",
                             "torch.eye", "torch.tensor", "torch.as_tensor", "torch.from_numpy"})


def _made_on_host(node: ast.AST, qualify) -> bool:
    """`torch.rand(1)`, `torch.zeros(n, m)`, `torch.tensor([1.0, 2.0])`, `torch.from_numpy(a)`
    with no `device=`: a CPU tensor of one dimension or more (a 0-dim one, `torch.tensor(2.0)`,
    `torch.zeros(())`, mixes with CUDA tensors, so it does not count)."""
    if not isinstance(node, ast.Call) or any(k.arg == "device" for k in node.keywords):
        return False
    name = qualify(node.func)
    if name not in _HOST_FACTORIES:
        return False
    first = node.args[0] if node.args else None
    if name in ("torch.tensor", "torch.as_tensor"):
        return isinstance(first, (ast.List, ast.Tuple, ast.ListComp)) and bool(getattr(first, "elts", True))
    if name == "torch.from_numpy":
        return True
    return first is not None and not (isinstance(first, (ast.Tuple, ast.List)) and not first.elts)


def _sink_through_other_objects(facts: AttributeFacts) -> str | None:
    """Where the repository reads the attribute through another object (`ppnet.module.<attr>` in
    a pruning script, a model loaded whole and moved with `.cuda()`) and a value computed from
    it reaches a CPU-only call: `torch.argmax(net.<attr>[idx], dim=1).numpy()`.  Device only:
    what another script casts the model to is not known."""
    cls = facts.cls
    attr = facts.attr
    own = (cls.symbols.path, cls.cls.lineno, cls.cls.end_lineno or cls.cls.lineno)
    for path, tree in cls.index.parsed_files_mentioning(f".{attr}", any_of=("numpy", "Tensor(", "rng_state")):
        if tree is None:
            continue
        symbols = cls.index.symbols_for_path(path)
        if symbols is not None and _builds_another_class_of_the_name(cls, symbols):
            continue  # `from utils.model import GraNDAG`: the objects read there are the other class's
        scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, _METHODS))]
        for scope in scopes:
            if path == own[0] and own[1] <= getattr(scope, "lineno", 0) <= own[2]:
                continue  # the class's own methods: read above, through self
            body = scope.body if isinstance(scope, _METHODS) else [s for s in scope.body if not isinstance(s, (*_METHODS, ast.ClassDef))]
            reads = [n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Attribute) and n.attr == attr
                     and isinstance(n.ctx, ast.Load) and not (isinstance(n.value, ast.Name) and n.value.id == "self")
                     and root_name(n.value) not in CONFIG_NAMES]  # `args.weight` is an option, not the model's
            if reads:
                others = _bound_by_other_libraries(body, symbols, cls.index)
                reads = [n for n in reads if root_name(n.value) not in others]
            if not reads:
                continue
            receivers = {id(n) for n in reads}
            tainted = _propagate(body, lambda value, names: _reads_through(value, receivers, names))
            for stmt in body:
                for call in (n for n in ast.walk(stmt) if isinstance(n, ast.Call)):
                    sink = None
                    if isinstance(call.func, ast.Attribute) and call.func.attr == "numpy":
                        if _reads_through(call.func.value, receivers, tainted):
                            sink = "Tensor.numpy()"
                    elif symbols is not None and any(_reads_through(a, receivers, tainted)
                                                     for a in [*call.args, *(k.value for k in call.keywords)]):
                        qualname = symbols.qualify(call.func) or ""
                        if qualname in _RNG_STATE_SETTERS:
                            sink = f"{qualname}()"
                        elif qualname and tn.classify_call(qualname) is tn.CallKind.LEGACY and call.args:
                            sink = f"{qualname}(data)"
                    if sink is not None:
                        return f"{sink} ({path.name}, line {call.lineno}, reading .{attr} through another object)"
    return None


def _builds_another_class_of_the_name(cls, symbols: ModuleSymbols) -> bool:
    """Whether the module binds the class's name to another class of the repository (a
    same-named class of another file: `utils/model.py` beside `utils/model_.py`), and so reads
    that class's attributes, not this one's."""
    name = cls.cls.name
    if symbols.path == cls.symbols.path or name not in symbols.imports and name not in symbols.classes:
        return False
    resolved = cls.index.resolve_expr(symbols, ast.Name(id=name, ctx=ast.Load()))
    return resolved is not None and resolved.kind == "class" and (resolved.path, resolved.name) != (cls.symbols.path, name)


def _bound_by_other_libraries(body: list[ast.stmt], symbols: ModuleSymbols | None, index: RepoIndex) -> set[str]:
    """Local names every binding of which in `body` is what a function of a library other than
    torch returns (`oc = OmegaConf.merge(oc, loaded)`, `cfg = yaml.safe_load(f)`): a config or
    a data object, not the repository's model, whose attribute of the same name is its own."""
    if symbols is None:
        return set()
    verdicts: dict[str, bool] = {}
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                verdicts[target.id] = verdicts.get(target.id, True) and isinstance(node.value, ast.Call) \
                    and index.from_another_library(symbols, node.value.func)
    return {name for name, other in verdicts.items() if other}


def root_name(node: ast.expr) -> str | None:
    """The name an attribute, item or call chain starts from (`args` of `args.cfg[0].x`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _reads_through(node: ast.AST, receivers: set[int], tainted: set[str]) -> bool:
    """Whether `node` computes from one of the reads `receivers` (by node id) or a tainted
    local, other than through a call that brings the value to the host."""
    return _computes_from(node, lambda inner: id(inner) in receivers, tainted)


def decide(facts: AttributeFacts) -> Decision | None:
    from codemod.rules import lazy  # a None slot filled later would become a buffer too

    if not facts.events:
        return None
    if not any(e.value is not None and e.value.is_tensor for e in facts.events) and not lazy.is_lazy(facts):
        return None
    sink = cpu_data_sink(facts)
    if sink is None:
        return None
    if sink.startswith(_CAST_SINK):
        # `.cpu().numpy()`: the device is not the problem, a cast of the model is
        return RULE.skip(CAST_REASON.format(sink=sink), CAST_SUGGESTION)
    return RULE.skip(REASON.format(sink=sink), SUGGESTION)
