"""Static tensor inference: does an expression evaluate to a tensor, and what kind?

The evaluator walks `ast` expressions of a constructor (or a helper it calls)
with an environment of local variables.  Anything it cannot prove is UNKNOWN,
and UNKNOWN is never rewritten: a missed rewrite is cheap, a wrong one is not.
"""

from __future__ import annotations

import ast
import enum
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from codemod import torch_names as tn
from codemod.torch_table import TENSOR_METHODS_NOT_ON_OTHER_VALUES
from codemod.rules import inplace_init, not_a_tensor
from codemod.keywords import kwargs_access
from codemod.symbols import ModuleSymbols, collect_imports, qualify

if TYPE_CHECKING:
    from codemod.repo_index import RepoIndex


# The state of forward's unannotated inputs: the batch tensors a model is called with, assumed.
FORWARD_INPUT = "data passed in (a forward input)"
# forward's `batch_size`, `hidden_dim`, `num_steps`: a size or a count, not a batch tensor
_SIZE_LIKE_NAME = re.compile(r"(?:^|_)(?:size|dim|count|number)$|^(?:num|n|no_of)_|^seq_len$")


class Kind(enum.Enum):
    TENSOR = "tensor"
    TENSOR_OR_NONE = "tensor or None"
    NONE = "None"
    SEQUENCE = "sequence of tensors"
    PARAMETER = "nn.Parameter"
    BUFFER = "nn.Buffer"
    NON_TENSOR = "non-tensor"
    UNKNOWN = "unknown"


# The names torch's layers give their parameters (`nn.Linear(...).weight`), and what `.data`
# of one of them is.
_LAYER_PARAMETER_NAMES = frozenset({"weight", "bias"})
LAYER_PARAMETER_DATA = "data passed in (the tensor under a layer's parameter)"

# The env key under which an evaluator holds the value of a keyword taken out of **kwargs.
TAKEN_KEYWORD = "**"

# torch.nn containers of layers: calling one of their items runs a layer.
_LAYER_CONTAINERS = frozenset({"ModuleList", "ModuleDict", "Sequential"})
# torch.nn recurrent layers, whose call returns (output, h_n).
_RECURRENT = frozenset({"RNN", "GRU", "LSTM"})


@dataclass(frozen=True)
class Value:
    kind: Kind
    stateful: str | None = None  # why the value carries state; None: fully determined by the code
    requires_grad: str | None = None  # how it was made trainable, if it was
    integer: bool = False  # integer or bool dtype
    # `integer` is a guess (torch.arange(n) with an n of unknown type is integer only when n is
    # an int): enough to keep a value from becoming an nn.Parameter, not to call it cast-proof.
    integer_guessed: bool = False
    moved_parameter: bool = False  # nn.Parameter(...) followed only by device moves
    # What unpacking the value gives (`a, b = value`).  elements: the value of each item of
    # a tuple or list of known length; items: the value of every item otherwise (a split,
    # torch.max(x, dim)), with integer_items the positions known to hold integer tensors.
    # A SEQUENCE with neither holds tensors.
    elements: tuple[Value, ...] | None = None
    items: Value | None = None
    integer_items: tuple[int, ...] = ()
    maybe_parameter: bool = False  # an argument annotated Union[Parameter, Tensor]: a Parameter passed in stays one
    module: str | None = None  # a torch.nn module instance (NON_TENSOR): its class, to type what calling it returns
    # An instance of a repository class (NON_TENSOR, a Resolved class): what its methods
    # return, and what calling it returns (its forward), are typed from their bodies.
    instance: Any = None
    # A tensor type (NON_TENSOR: `Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor`,
    # a `tensor=torch.FloatTensor` default): calling it makes a tensor, as calling the type does.
    tensor_type: str | None = None
    # torch.nn module classes themselves (NON_TENSOR: `rnn_cls = nn.GRU if gru else nn.LSTM`):
    # calling it builds one of them, as calling the class does.
    module_types: tuple[str, ...] = ()
    # A function defined inside the method (NON_TENSOR): calling it is typed from its body,
    # with what the call passes (`def matrix_to_torch(m): return [...]` then `matrix_to_torch(net)`).
    function: Any = None
    # A tensor only by a guess fit for a report, never for a rewrite: what a child module whose
    # class the analysis cannot pin down returns, called outside the constructor.
    guessed: bool = False
    # UNKNOWN: `std if isinstance(std, str) else torch.tensor(std)`, a tensor in one arm of a
    # conditional and something else (not None) in the other (rules/conditional_tensors.py)
    tensor_in_one_arm: bool = False
    # SEQUENCE: a tensor in one arm and a tuple of tensors in the other (an LSTM's `(h, c)`
    # or a GRU's `h`, by configuration)
    or_tensor: bool = False

    @property
    def is_guess(self) -> bool:
        """A tensor only by a guess, or computed from one (its state names the guess)."""
        return self.guessed or self.stateful in GUESSED_STATES

    @property
    def is_tensor(self) -> bool:
        return self.kind in (Kind.TENSOR, Kind.TENSOR_OR_NONE)

    def unpacked(self, count: int) -> list[Value] | None:
        """The values of `count` targets unpacking this value; None when unpacking it is not
        understood (or would raise: a tuple of another length)."""
        if self.elements is not None:
            return list(self.elements) if len(self.elements) == count else None
        item = self.items
        if item is None and self.kind is Kind.SEQUENCE:
            item = Value(Kind.TENSOR, self.stateful)
        if item is None and self.kind is Kind.TENSOR:
            item = Value(Kind.TENSOR, self.stateful, None, self.integer, integer_guessed=self.integer_guessed)  # the rows of a tensor
        if item is None:
            return None
        return [replace(item, integer=True, integer_guessed=False) if i in self.integer_items else item for i in range(count)]


UNKNOWN = Value(Kind.UNKNOWN)


def is_built_module(value: Value) -> bool:
    """A module the code built: a torch.nn layer or a repository class's instance (or one of
    several, SOME_REPOSITORY_MODULE)."""
    return value.kind is Kind.NON_TENSOR and (value.instance is not None or value.module is not None)

# The function a lambda stands for (Evaluator._eval_Lambda), kept on the lambda's node.
_LAMBDA_FUNCTION_ATTR = "_codemod_lambda_function"

# The states of guessed tensors (Value.guessed), which arithmetic on them hands on
# (combine_state): what a child module of no known class or a Sequential returns.
CHILD_MODULE_OUTPUT = "data passed in (computed by a child module)"
SEQUENTIAL_OUTPUT = "data passed in (computed by Sequential)"
# `grad.clone()` on a value nothing types: a method no array, module, container, string or
# number has (torch_table.TENSOR_METHODS_NOT_ON_OTHER_VALUES), which a repository class may still have
TENSOR_METHOD_OUTPUT = "data passed in (the result of a method only a tensor has among common values)"
# `self.enc.kl`, which the child's class sets to None in __init__ and to a tensor in a method:
# a tensor once that method has run (lazily_bound_attributes)
CHILD_LAZY_ATTRIBUTE = "data passed in (what a child module's method binds to one of its attributes)"
GUESSED_STATES = frozenset({CHILD_MODULE_OUTPUT, SEQUENTIAL_OUTPUT, LAYER_PARAMETER_DATA, TENSOR_METHOD_OUTPUT,
                            CHILD_LAZY_ATTRIBUTE})
ARGUMENT_STATE = "data passed in (constructor argument)"
# Union[Parameter, Tensor]: the author says a Parameter may come, whatever the repository's calls pass
PARAMETER_ARGUMENT_STATE = "data passed in (constructor argument; annotated to admit an nn.Parameter)"
# `model.state_dict()`: a dict of the module's tensors (sharing storage with its parameters and buffers)
STATE_DICT = Value(Kind.SEQUENCE, "a module's state_dict() (its parameters and buffers)")
NON_TENSOR = Value(Kind.NON_TENSOR)
NONE = Value(Kind.NONE)

_DEVICE_LITERAL = re.compile(r"^(cuda|cpu|mps|xpu|meta|hpu|npu|xla)(:\d+)?$")
_DEVICE_WORD = re.compile(r"(^|_)(device|devices|dev)$", re.IGNORECASE)


def combine_state(*values: Value) -> str | None:
    for value in values:
        if value.is_tensor and value.stateful:
            return value.stateful
    return None


def merge_branches(a: Value, b: Value) -> Value:
    """The value of `a if c else b`."""
    if a.is_tensor and b.is_tensor:
        kind = Kind.TENSOR if a.kind is b.kind is Kind.TENSOR else Kind.TENSOR_OR_NONE
        return Value(
            kind, combine_state(a, b), a.requires_grad or b.requires_grad, a.integer and b.integer,
            integer_guessed=a.integer_guessed or b.integer_guessed,
            maybe_parameter=a.maybe_parameter or b.maybe_parameter,
        )
    if a.kind is b.kind is Kind.SEQUENCE:
        elements = None
        if a.elements is not None and b.elements is not None and len(a.elements) == len(b.elements):
            elements = tuple(merge_branches(x, y) for x, y in zip(a.elements, b.elements))
        state = a.stateful or b.stateful
        or_tensor = a.or_tensor or b.or_tensor
        if elements is None and (a.elements is not None or b.elements is not None):
            if _holds_only_tensors(a) and _holds_only_tensors(b):
                return Value(Kind.SEQUENCE, state, or_tensor=or_tensor)  # tensors, in tuples of other shapes
            return Value(Kind.SEQUENCE, state, items=UNKNOWN)  # tuples of other shapes: items unknown
        return Value(Kind.SEQUENCE, state, elements=elements, or_tensor=or_tensor)
    for t, other in ((a, b), (b, a)):
        if t.is_tensor and other.kind is Kind.NONE:
            return replace(t, kind=Kind.TENSOR_OR_NONE)
        if t.kind in (Kind.TENSOR, Kind.PARAMETER) and other.kind is Kind.SEQUENCE and _holds_only_tensors(other):
            # an LSTM's `(h, c)` or a GRU's `h` by configuration: tensors either way, never
            # one buffer (a report's business, as any sequence of tensors is), learnt ones too
            # (a pair of initial states as nn.Parameters, or the first alone)
            return Value(Kind.SEQUENCE, combine_state(t, other), or_tensor=True)
    if a.kind is b.kind and a.kind in (Kind.NONE, Kind.NON_TENSOR):
        if a.module_types or b.module_types:
            # one module class or another: calling it builds either (NON_TENSOR where one arm is no class)
            both = a.module_types and b.module_types
            return Value(Kind.NON_TENSOR, module_types=tuple(dict.fromkeys(a.module_types + b.module_types))) \
                if both else NON_TENSOR
        if (a.tensor_type is None) != (b.tensor_type is None):
            return NON_TENSOR  # a tensor type in one arm only: calling it may not make a tensor
        if a.instance is not b.instance or a.module != b.module:
            # `net = ResnetGenerator(...)` in one arm, `net = UnetGenerator(...)` in the other:
            # calling it runs one forward or the other, which neither arm alone tells
            both_built = is_built_module(a) and is_built_module(b)
            return Value(Kind.NON_TENSOR, module=tn.SOME_REPOSITORY_MODULE) if both_built else NON_TENSOR
        return a
    return UNKNOWN


def _holds_only_tensors(value: Value) -> bool:
    """A sequence whose every item is known to be a tensor (the elements of a tuple display, or
    a sequence of tensors with no item of another kind recorded)."""
    if value.elements is not None:
        return bool(value.elements) and all(e.kind in (Kind.TENSOR, Kind.PARAMETER) for e in value.elements)
    return value.items is None or value.items.kind in (Kind.TENSOR, Kind.PARAMETER)


def is_literal(node: ast.expr) -> bool:
    """A constant, or lists/tuples/arithmetic of constants."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(is_literal(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return is_literal(node.operand)
    if isinstance(node, ast.BinOp):
        return is_literal(node.left) and is_literal(node.right)
    return False


def _is_scalar_arithmetic(node: ast.expr) -> bool:
    """`d ** 0.5`, `-math.log(10000.0) / d`: arithmetic with a number in it is a scalar, not data."""
    if not isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return False
    has_number = False
    for child in ast.walk(node):
        if isinstance(child, ast.Constant):
            if not isinstance(child.value, (int, float)) or isinstance(child.value, bool):
                return False
            has_number = True
        elif isinstance(child, ast.Call):
            func = child.func
            if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "math"):
                return False
        elif not isinstance(child, (ast.BinOp, ast.UnaryOp, ast.Name, ast.Attribute, ast.operator, ast.unaryop, ast.Load)):
            return False
    return has_number


def _proves_int(node: ast.expr) -> bool:
    """An expression that is a Python int whatever the program's inputs: an int literal,
    `len(...)`, `int(...)`, `x.size(i)`, `x.shape[i]`, `x.numel()`, `x.dim()`, `x.ndim`, and
    +, -, *, //, % of those."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _proves_int(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
        return _proves_int(node.left) and _proves_int(node.right)
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id in ("len", "int"):
            return True
        return isinstance(node.func, ast.Attribute) and node.func.attr in ("size", "numel", "dim") and bool(node.args or node.func.attr != "size")
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.Attribute):
        return node.attr == "ndim"
    return False


def _literal_is_integer(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (bool, int))
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_literal_is_integer(e) for e in node.elts) and bool(node.elts)
    if isinstance(node, ast.UnaryOp):
        return _literal_is_integer(node.operand)
    return False


def _has_float_literal(node: ast.expr) -> bool:
    return any(isinstance(n, ast.Constant) and isinstance(n.value, float) for n in ast.walk(node))


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def _literal_keywords(call: ast.Call) -> dict[str, bool | None]:
    """A call's keywords: name -> True or False for a literal bool, None for another value;
    `**kwargs` under the key "**"."""
    return {k.arg or "**": True if is_true(k.value) else False if is_false(k.value) else None for k in call.keywords}


def is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def is_false(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def mentions_self_attribute(node: ast.AST, self_name: str | None, attr: str) -> bool:
    """Whether `self.<attr>` appears anywhere in `node` (read or bound)."""
    return any(
        isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name) and n.value.id == self_name
        for n in ast.walk(node)
    )


def short_call_name(node: ast.Call) -> str:
    func = node.func
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts)) or "call"


class Evaluator:
    """Evaluates expressions of one function body to abstract `Value`s."""

    def __init__(
        self,
        index: RepoIndex | None,
        symbols: ModuleSymbols,
        function: ast.FunctionDef | ast.AsyncFunctionDef | None,
        class_methods: Callable[[str], tuple[ModuleSymbols, ast.FunctionDef | ast.AsyncFunctionDef] | None] | None = None,
        self_attrs: dict[str, Value] | None = None,
        depth: int = 0,
        arguments: dict[str, Value] | None = None,
    ):
        self.index = index
        self.symbols = symbols
        self.depth = depth
        # a constructor's values may be rewritten, another method's only reported: a guess that
        # is fine for a report (what a Sequential returns) is made only outside __init__
        self.per_call = function is not None and function.name != "__init__" and depth == 0
        self.class_methods = class_methods
        self._layer_dicts: dict[str, bool] = {}  # self.<attr> -> filled with layers only by __init__
        self.env: dict[str, Value] = {}
        self.self_attrs: dict[str, Value] = self_attrs if self_attrs is not None else {}
        self.self_name: str | None = None
        self.on_call: Callable[[ast.Call, Evaluator], None] | None = None  # sees every call evaluated
        self.imports = dict(symbols.imports)
        self.function = function
        if function is not None:
            collect_imports(function.body, symbols.package, self.imports)
            args = function.args
            positional = [*args.posonlyargs, *args.args]
            if positional and class_methods is not None and not _is_static(function):
                self.self_name = positional[0].arg
                positional = positional[1:]
            for arg in [*positional, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None:
                    self.env[arg.arg] = _annotation_value(arg.annotation, self)
            annotated = {name for name, value in self.env.items() if value.is_tensor}
            for name in annotated & type_tested(function):
                # `weight: Tensor` that the function itself tests (`if not isinstance(weight,
                # torch.Tensor): weight = torch.tensor(weight)`): its author expects other values
                self.env[name] = UNKNOWN
            for name in annotated & _layer_sizes(function, self):
                # `in_ch: torch.Tensor` handed to `nn.Conv2d(in_ch, out_ch, 3)`: a size, whatever
                # the annotation says (a torch layer refuses a tensor there)
                self.env[name] = NON_TENSOR
            if function.name == "forward" and self.self_name is not None:
                # forward's inputs without a default or an annotation are the batch tensors a model is called with
                required = positional[: len(positional) - len(args.defaults)]
                for arg in required:
                    if arg.annotation is None and not _SIZE_LIKE_NAME.search(arg.arg):
                        self.env[arg.arg] = Value(Kind.TENSOR, FORWARD_INPUT)
            # `def __init__(self, weight=torch.ones(3))`: an argument whose default is a tensor is one.
            defaults = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults))
            defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
            for name, default in defaults.items():
                if self.env.get(name) is UNKNOWN and isinstance(default, ast.Attribute):
                    value = self.eval(default)
                    if value.tensor_type is not None:  # `tensor=torch.FloatTensor`: the type, called later
                        self.env[name] = value
                    continue
                if self.env.get(name) is UNKNOWN and isinstance(default, (ast.Call, ast.BinOp, ast.UnaryOp)):
                    value = self.eval(default)
                    if value.kind is Kind.TENSOR and not value.requires_grad:
                        # the default says a tensor is expected, not which: a caller may hand in an
                        # nn.Parameter (`Flow(tau_par=nn.Parameter(...))`), which must stay one
                        self.env[name] = Value(Kind.TENSOR, ARGUMENT_STATE, None, value.integer,
                                               integer_guessed=value.integer_guessed, maybe_parameter=True)
            # what one call site passes (a layer handed to a helper: `attention(q, k, v, dropout=self.dropout)`)
            self.env.update((name, value) for name, value in (arguments or {}).items() if name in self.env)

    # -- names ---------------------------------------------------------------------------------

    def qualify(self, node: ast.expr) -> str | None:
        head = node
        while isinstance(head, ast.Attribute):
            head = head.value
        if isinstance(head, ast.Name) and head.id in self.env:
            return None  # a local variable shadows any import
        return qualify(node, self.imports, self.symbols.local_names, self.symbols.name)

    def is_self(self, node: ast.expr) -> bool:
        return self.self_name is not None and isinstance(node, ast.Name) and node.id == self.self_name

    def self_attr(self, node: ast.expr) -> str | None:
        """"x" for `self.x`."""
        if isinstance(node, ast.Attribute) and self.is_self(node.value):
            return node.attr
        return None

    # -- expressions ---------------------------------------------------------------------------

    def eval(self, node: ast.expr | None) -> Value:
        if node is None:
            return UNKNOWN
        method = getattr(self, "_eval_" + type(node).__name__, None)
        if method is None:
            return UNKNOWN
        return method(node)

    def _eval_Constant(self, node: ast.Constant) -> Value:
        return NONE if node.value is None else NON_TENSOR

    def _eval_JoinedStr(self, node: ast.JoinedStr) -> Value:
        return NON_TENSOR

    def _eval_Lambda(self, node: ast.Lambda) -> Value:
        # `randn = lambda: torch.randn(n, h).to(device)`: calls of it are typed from its body, as
        # those of a function defined in the method are
        return Value(Kind.NON_TENSOR, function=lambda_function(node))

    def _sequence(self, elements: list[ast.expr], known_length: bool = False) -> Value:
        values = [self.eval(e) for e in elements]
        known = known_length and not any(isinstance(e, ast.Starred) for e in elements)
        if any(v.is_tensor or v.kind in (Kind.SEQUENCE, Kind.PARAMETER) for v in values):
            return Value(Kind.SEQUENCE, combine_state(*values), elements=tuple(values) if known else None)
        if all(v.kind in (Kind.NON_TENSOR, Kind.NONE) for v in values):
            return NON_TENSOR
        return Value(Kind.UNKNOWN, elements=tuple(values)) if known else UNKNOWN

    def _eval_List(self, node: ast.List) -> Value:
        return self._sequence(node.elts, known_length=True)

    def _eval_Tuple(self, node: ast.Tuple) -> Value:
        return self._sequence(node.elts, known_length=True)

    def _eval_Set(self, node: ast.Set) -> Value:
        return self._sequence(node.elts)

    def _eval_Dict(self, node: ast.Dict) -> Value:
        return self._sequence([v for v in node.values if v is not None])

    def _comprehension(self, element: ast.expr, generators: list[ast.comprehension], keyed: bool = False) -> Value:
        saved = dict(self.env)
        for gen in generators:
            iterated = self.eval(gen.iter)
            for name in target_names(gen.target):
                self.env[name] = UNKNOWN
            if isinstance(gen.target, ast.Name):
                # `[Loss(c) for c in convs]` over `convs = [t.detach() for t in feats]`: each a tensor
                self.env[gen.target.id] = _item_of(iterated)
        value = self.eval(element)
        self.env = saved
        if value.is_tensor or value.kind in (Kind.SEQUENCE, Kind.PARAMETER):
            # every item of a list of tensors is one (iterating a dict gives its keys, not these)
            plain = value.is_tensor and not value.is_guess and not keyed
            return Value(Kind.SEQUENCE, value.stateful, items=value if plain else None)
        return UNKNOWN

    def _eval_ListComp(self, node: ast.ListComp) -> Value:
        return self._comprehension(node.elt, node.generators)

    def _eval_GeneratorExp(self, node: ast.GeneratorExp) -> Value:
        return self._comprehension(node.elt, node.generators)

    def _eval_DictComp(self, node: ast.DictComp) -> Value:
        return self._comprehension(node.value, node.generators, keyed=True)

    def _eval_Name(self, node: ast.Name) -> Value:
        if node.id in self.env:
            return self.env[node.id]
        if node.id in ("True", "False", "None"):
            return NONE if node.id == "None" else NON_TENSOR
        return self._module_constant(node)

    def _module_constant(self, node: ast.Name) -> Value:
        """`MEAN` where the module (or a repository module it is imported from) binds it once at
        top level to a tensor (`MEAN = torch.tensor([0.485, 0.456, 0.406])`): that tensor.
        Only tensors are typed this way; anything else stays unknown."""
        if self.depth >= _MAX_DEPTH or node.id in self.imports and self.imports[node.id].startswith("torch"):
            return UNKNOWN
        if self.function is not None and node.id in _local_names(self.function):
            return UNKNOWN  # a local the walk did not type, not the module's constant
        qualname = self.qualify(node)
        if qualname is None:
            return UNKNOWN
        return self._constant_at(qualname)

    def _constant_at(self, qualname: str) -> Value:
        """The value of the module-level binding `qualname` names, in this module or a module of
        the repository, where it is a tensor or an instance built once (see _module_constant)."""
        found = _alias(qualname, _ModuleScope(self.symbols, self.index))
        if found is None or not isinstance(found[0], (ast.Call, ast.BinOp, ast.Attribute, ast.Subscript)):
            return UNKNOWN
        value_node, scope = found
        name = qualname.rpartition(".")[2]
        if _module_bindings(scope.symbols).get(name, 0) != 1:
            return UNKNOWN  # bound twice (or in a loop): which value a read sees depends on the order
        memo = getattr(scope.symbols, "_codemod_constants", None)
        if memo is None:
            memo = scope.symbols._codemod_constants = {}  # type: ignore[attr-defined]
        if name not in memo:
            memo[name] = UNKNOWN  # a constant defined through itself
            value = Evaluator(self.index, scope.symbols, None, depth=self.depth + 1).eval(value_node)
            # a tensor; or an instance of a repository class built once at top level (`tx = Tx()`),
            # whose constructor's attributes a read of it is typed from (`Fiber(tx.lam_set)`)
            kept = (value.kind is Kind.TENSOR and not value.requires_grad) or (
                value.kind is not Kind.TENSOR and value.instance is not None and isinstance(value_node, ast.Call))
            memo[name] = value if kept else UNKNOWN
        return memo[name]

    def _eval_NamedExpr(self, node: ast.NamedExpr) -> Value:
        value = self.eval(node.value)
        if isinstance(node.target, ast.Name):
            self.env[node.target.id] = value
        return value

    def _eval_Attribute(self, node: ast.Attribute) -> Value:
        attr = self.self_attr(node)
        if attr is not None:
            if attr in self.self_attrs:
                return self.self_attrs[attr]
            return self._property_value(attr)
        path = dotted_path(node)
        if path is not None and path in self.env:
            # an attribute of a local or argument set here (`args.gso = t`) or typed from the
            # repository's calls (`Model(args)` where args.gso is a tensor; see call_sites)
            return self.env[path]
        qualname = self.qualify(node)
        if qualname is not None and qualname.startswith("torch."):
            if tn.dtype_is_integer(qualname) is not None:
                return NON_TENSOR  # torch.float32 and friends
            kind = tn.classify_call(qualname)
            if kind is tn.CallKind.LEGACY:
                return Value(Kind.NON_TENSOR, tensor_type=qualname)  # torch.cuda.FloatTensor, the type itself
            if kind is tn.CallKind.MODULE:
                return Value(Kind.NON_TENSOR, module_types=(qualname,))  # nn.LSTM, the class itself
            return UNKNOWN
        if qualname is not None and isinstance(node.value, ast.Name) and node.value.id in self.imports \
                and self.depth < _MAX_DEPTH and not (self.function is not None and node.value.id in _local_names(self.function)):
            # `config.power` after `import config`, where config.py binds `power = torch.ones(3)`
            constant = self._constant_at(qualname)
            if constant is not UNKNOWN:
                return constant
        receiver = self.eval(node.value)
        if receiver.instance is not None:
            # `self.prompts = self.learner.prompts`: what the instance's constructor bound
            return self._instance_attribute(receiver.instance, node.attr)
        if receiver.kind is not Kind.TENSOR and receiver.items is not None and node.attr in ("values", "indices"):
            # torch.sort(x).indices, x.max(1).values: the fields of torch.return_types
            return replace(receiver.items, integer=True, integer_guessed=False) if node.attr == "indices" and 1 in receiver.integer_items else receiver.items
        if receiver.kind is Kind.TENSOR:
            kind = tn.property_kind(node.attr)
            if kind is tn.CallKind.TENSOR:
                return receiver if node.attr != "data" else replace(receiver, requires_grad=None)
            if kind is tn.CallKind.NON_TENSOR:
                return NON_TENSOR
        if node.attr == "data" and receiver.kind is Kind.UNKNOWN and isinstance(node.value, ast.Attribute) \
                and node.value.attr in _LAYER_PARAMETER_NAMES:
            # `layer.bias.data` of a layer the analysis cannot type: the tensor under a layer's
            # parameter, sharing its storage; a guess, for a report (never a rewrite)
            return Value(Kind.TENSOR, LAYER_PARAMETER_DATA, guessed=True)
        return UNKNOWN

    def _eval_Subscript(self, node: ast.Subscript) -> Value:
        if (taken := self._taken_keyword(node)) is not None:
            return taken
        index = node.slice
        if isinstance(node.value, ast.Attribute) and node.value.attr == "data" and isinstance(index, ast.Constant) \
                and type(index.value) is int:
            # `loss.data[0]`: how code written for torch before 0.4 took a number out of a loss
            # (today it raises on a 0-dim loss); nothing says a tensor is kept
            return UNKNOWN
        receiver = self.eval(node.value)
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) and isinstance(index.operand, ast.Constant):
            position = -index.operand.value if type(index.operand.value) is int else None
        else:
            position = index.value if isinstance(index, ast.Constant) and type(index.value) is int else None
        if position is not None and receiver.kind is not Kind.TENSOR:
            if receiver.elements is not None:  # (mask, size)[0]
                if -len(receiver.elements) <= position < len(receiver.elements):
                    return receiver.elements[position]
                if self.per_call and receiver.elements and all(e.kind is Kind.TENSOR for e in receiver.elements):
                    # `self.outs = [x]`, appended to by a loop of untyped values, then `self.outs[-2]`:
                    # a list of tensors that grew, most likely; a guess, for reports only
                    return Value(Kind.TENSOR, receiver.elements[0].stateful, guessed=True)
                return UNKNOWN
            if receiver.items is not None and position >= 0:  # torch.max(x, 1)[1]
                return replace(receiver.items, integer=True, integer_guessed=False) if position in receiver.integer_items else receiver.items
        if not_a_tensor.is_string_key(node.slice):
            # x["key"]: x is a mapping (torch.load(...)["meta"], a config); a tensor only
            # when x is a proven dict of tensors
            return Value(Kind.TENSOR, receiver.stateful) if receiver.kind is Kind.SEQUENCE else UNKNOWN
        if receiver.kind is Kind.TENSOR:
            return receiver
        if receiver.kind is Kind.SEQUENCE:
            if isinstance(node.slice, ast.Slice):
                return receiver
            return Value(Kind.TENSOR, receiver.stateful)
        if receiver.kind is Kind.NON_TENSOR:
            return NON_TENSOR
        return UNKNOWN

    def _eval_BinOp(self, node: ast.BinOp) -> Value:
        left, right = self._operand(node.left), self._operand(node.right)
        if isinstance(node.op, ast.Mult):
            for repeated, count in ((left, right), (right, left)):
                if repeated.kind is Kind.SEQUENCE and count.kind not in (Kind.TENSOR, Kind.SEQUENCE):
                    # `[torch.zeros(1)] * self.nl`: the list repeated, the same tensors again
                    item = _item_of(repeated)
                    return Value(Kind.SEQUENCE, repeated.stateful, items=item if item.is_tensor else None)
        if isinstance(node.op, ast.Add) and left.kind is right.kind is Kind.SEQUENCE:
            return Value(Kind.SEQUENCE, combine_state(left, right))  # `[a] + [b]`: a longer list of tensors
        tensors = [v for v in (left, right) if v.kind is Kind.TENSOR]
        if not tensors:
            if left.kind is right.kind is Kind.NON_TENSOR:
                return NON_TENSOR
            return UNKNOWN
        others = [v for v in (left, right) if v.kind is not Kind.TENSOR]
        integer = all(v.integer for v in tensors) and not isinstance(node.op, ast.Div)
        if integer and others:
            operand = node.right if others[0] is right else node.left
            integer = not _has_float_literal(operand) and not isinstance(operand, (ast.Name, ast.Attribute))
        state = combine_state(left, right)
        if state in GUESSED_STATES and any(not v.is_guess for v in tensors):
            # `self.transition(x) + torch.randn_like(x)`: arithmetic with a tensor gives a tensor
            # (or raises) whatever the guessed operand is, as `self.net(x).detach()` does
            state = "data passed in"
        return Value(Kind.TENSOR, state, None, integer, integer_guessed=any(v.integer_guessed for v in tensors))

    def _operand(self, node: ast.expr) -> Value:
        """An operand's value; arithmetic on a frozen parameter written in place
        (`nn.Parameter(t, requires_grad=False) - w / 2`) gives a plain tensor of its data, which
        nothing registers.  A trainable one stays untyped: the result carries its gradient, and
        neither a buffer nor a parameter of the result would keep that as it is."""
        value = self.eval(node)
        if value.kind is not Kind.PARAMETER or not isinstance(node, ast.Call) or not node.args:
            return value
        flag = next((k.value for k in node.keywords if k.arg == "requires_grad"), node.args[1] if len(node.args) > 1 else None)
        if not is_false(flag):
            return UNKNOWN
        data = self.eval(node.args[0])
        return replace(data, requires_grad=None, moved_parameter=False) if data.kind is Kind.TENSOR else UNKNOWN

    def _eval_UnaryOp(self, node: ast.UnaryOp) -> Value:
        operand = self.eval(node.operand)
        if operand.kind is Kind.TENSOR:
            return replace(operand, requires_grad=None, moved_parameter=False)
        if isinstance(node.op, ast.Not):
            return NON_TENSOR
        return operand if operand.kind is Kind.NON_TENSOR else UNKNOWN

    def _eval_Compare(self, node: ast.Compare) -> Value:
        values = [self.eval(node.left), *(self.eval(c) for c in node.comparators)]
        if any(v.kind is Kind.TENSOR for v in values) and not any(
            isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops
        ):
            return Value(Kind.TENSOR, combine_state(*values), None, True)
        return NON_TENSOR

    def _eval_IfExp(self, node: ast.IfExp) -> Value:
        body, orelse = self.eval(node.body), self.eval(node.orelse)
        merged = merge_branches(body, orelse)
        if merged.kind is Kind.UNKNOWN and any(
                arm.kind is Kind.TENSOR and other.kind in (Kind.UNKNOWN, Kind.NON_TENSOR)
                for arm, other in ((body, orelse), (orelse, body))):
            if self.per_call and any(arm.kind is Kind.TENSOR and other.kind is Kind.UNKNOWN
                                     and self._applied_to_tensor(other_node)
                                     for arm, other, other_node in ((body, orelse, node.orelse), (orelse, body, node.body))):
                # `act(layer(x)) if act else layer(x)` in a method: an untyped callable applied to
                # the tensor of the other arm (an activation, a norm); a tensor by a guess, for reports
                tensor = body if body.kind is Kind.TENSOR else orelse
                return Value(Kind.TENSOR, tensor.stateful, None, guessed=True)
            return replace(merged, tensor_in_one_arm=True)
        return merged

    def _applied_to_tensor(self, node: ast.expr) -> bool:
        """Whether ``node`` is a call of a local name (not a torch or imported function) whose
        only argument is a tensor: `act(layer(x))`."""
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in self.env \
            and len(node.args) == 1 and not node.keywords and self.eval(node.args[0]).kind is Kind.TENSOR

    def _taken_keyword(self, node: ast.expr) -> Value | None:
        """`kwargs.get("mean")`, `kwargs["adj"]` of the function's **kwargs: the value the
        repository's calls hand that keyword, where they were read (facts._typed_arguments)."""
        kwarg = self.function.args.kwarg if self.function is not None else None
        keyword = kwargs_access(node, kwarg.arg) if kwarg is not None else None
        return self.env.get(TAKEN_KEYWORD + keyword) if keyword is not None else None

    def _eval_Call(self, node: ast.Call) -> Value:
        if self.on_call is not None:
            self.on_call(node, self)
        if (taken := self._taken_keyword(node)) is not None:
            return taken
        func = node.func
        # getattr(torch, name)(...): a torch function chosen at run time.
        if (
            isinstance(func, ast.Call)
            and isinstance(func.func, ast.Name)
            and func.func.id == "getattr"
            and len(func.args) >= 2
            and self.qualify(func.args[0]) in tn.RUNTIME_LOOKUP_NAMESPACES
        ):
            name = func.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                return self._qualified_call(f"{self.qualify(func.args[0])}.{name.value}", node)
            if not node.args and not node.keywords:
                return UNKNOWN  # `getattr(nn.functional, activation)()`: called with nothing, no tensor op
            return Value(Kind.TENSOR, "value from a torch function chosen at run time")
        if isinstance(func, ast.Call):
            # `nn.MSELoss(reduction="sum")(pred, target)`: a torch layer built and called at once
            built = self.eval(func)
            if built.module is not None and tn.module_returns_tensor(built.module):
                return Value(Kind.TENSOR, f"data passed in (computed by {built.module.rpartition('.')[2]})")
        if isinstance(func, ast.Attribute):
            if self.is_self(func.value):
                return self._helper_method(func.attr, node)
            qualname = self.qualify(func)
            if qualname is not None and self._is_imported_head(func):
                return self._qualified_call(qualname, node)
            receiver = self.eval(func.value)
            if func.attr == "state_dict" and (receiver.instance is not None or receiver.module is not None):
                return STATE_DICT
            if (receiver.instance is not None or is_built_module(receiver)) \
                    and (func.attr in tn.DEVICE_METHODS or func.attr in _MODULE_SELF_METHODS):
                # self.net = Generator().to(device); `nn.Linear(n, m).double()`: the module itself
                return receiver
            if receiver.instance is not None:
                # self.converter.encode(text)
                layer = self._instance_layer(receiver.instance, func.attr)
                if layer is not None:
                    return layer  # `self.attention.memory_layer(memory)`: a torch layer the instance holds
                return self._instance_method(receiver.instance, func.attr)
            if receiver.kind is Kind.UNKNOWN and func.attr in tn.TENSOR_ONLY_METHODS:
                # x.detach(), x.unsqueeze(0): methods nothing but a tensor has
                receiver = Value(Kind.TENSOR, "data passed in")
            elif receiver.kind in (Kind.UNKNOWN, Kind.NON_TENSOR) and isinstance(func.value, ast.Compare) and func.attr in _COMPARISON_CASTS:
                # `(ids != pad).float()`: a Python bool and a numpy array of them have no such method
                receiver = Value(Kind.TENSOR, "data passed in (an elementwise comparison)", None, True)
            if receiver.kind is Kind.TENSOR and receiver.is_guess and func.attr in tn.TENSOR_ONLY_METHODS:
                # `self.netG(x).detach()`: only a tensor has it
                receiver = replace(receiver, guessed=False, stateful="data passed in")
            if receiver.kind is Kind.UNKNOWN and self.per_call and func.attr in TENSOR_METHODS_NOT_ON_OTHER_VALUES \
                    and func.attr not in tn.BATCH_MOVES_AND_CASTS:  # a batch moved or cast: rules/assigned_from_outside.py
                return Value(Kind.TENSOR, TENSOR_METHOD_OUTPUT, guessed=True)
            if receiver.kind is Kind.UNKNOWN and func.attr == "forward" and self.per_call:
                # `net.forward(fake_B)` with net handed in: what a module returns, most often a tensor
                return Value(Kind.TENSOR, CHILD_MODULE_OUTPUT, guessed=True)
            if receiver.kind is Kind.TENSOR:
                return self._tensor_method(receiver, func.attr, node)
            if receiver.kind is Kind.PARAMETER and func.attr in _FRESH_TENSOR_METHODS:
                # `self.weight_ih.new_empty(b, n)`: a new tensor of the parameter's dtype and
                # device, not the parameter (what fills it decides its state)
                return Value(Kind.TENSOR, self._args_state(node), None, False)
            if receiver.kind is Kind.PARAMETER and func.attr in tn.DEVICE_METHODS:
                if device_move_args(self, func.attr, node) == "drop":
                    return Value(Kind.TENSOR, "trainable parameter", "nn.Parameter", moved_parameter=True)
                return Value(Kind.TENSOR, "trainable parameter", "nn.Parameter")
            if receiver.kind is Kind.NON_TENSOR:
                return UNKNOWN
            return UNKNOWN
        if isinstance(func, ast.Subscript) and self.per_call and self._holds_layers(func.value):
            # `self.blocks[i](x)`, `self.convs[("disp", i)](x)` in a method: what a layer picked
            # from a container of them returns, most often a tensor (a guess, for reports only)
            return Value(Kind.TENSOR, CHILD_MODULE_OUTPUT, guessed=True)
        if isinstance(func, ast.Name):
            if func.id in self.env:
                held = self.env[func.id]
                if held.function is not None:
                    return function_value(self.index, self.symbols, held.function, None, self.depth + 1,
                                          arguments=self._arguments_passed(held.function, node))
                if held.tensor_type is not None:
                    return self._qualified_call(held.tensor_type, node)  # Tensor(...) with Tensor a tensor type
                if held.module_types:
                    # `rnn_cls(input_size, hidden)` with rnn_cls one torch.nn class or another
                    built = [self._qualified_call(qualname, node) for qualname in held.module_types]
                    return functools.reduce(merge_branches, built)
                if held.module is not None and tn.module_returns_tensor(held.module):
                    # `dropout(p_attn)` with an nn.Dropout handed in by the call site
                    return Value(Kind.TENSOR, f"data passed in (computed by {held.module.rpartition('.')[2]})")
                if held.module == tn.SOME_REPOSITORY_MODULE and self.per_call:
                    # `layer(x)` with `layer` one of a container's layers, in a method: a guess
                    return Value(Kind.TENSOR, CHILD_MODULE_OUTPUT, guessed=True)
                return self._instance_method(held.instance, "__call__") if held.instance is not None else UNKNOWN
            qualname = self.qualify(func)
            if qualname is None:
                return UNKNOWN
            if func.id in tn.SEQUENCE_BUILTINS and node.args:
                inner = self.eval(node.args[0])
                if inner.kind is Kind.SEQUENCE or inner.is_tensor:
                    return Value(Kind.SEQUENCE, inner.stateful)
                return NON_TENSOR if inner.kind is Kind.NON_TENSOR else UNKNOWN
            return self._qualified_call(qualname, node)
        return UNKNOWN

    def _holds_layers(self, node: ast.expr) -> bool:
        """Whether `node` is an nn.ModuleList / ModuleDict / Sequential of self, or a plain dict
        of self that the constructor fills with layers only (`self.convs[("upconv", i)] =
        ConvBlock(a, b)`, then wrapped in a ModuleList for registration)."""
        held = self.eval(node)
        if held.module is not None and held.module.rpartition(".")[2] in _LAYER_CONTAINERS:
            return True
        attr = self.self_attr(node)
        if attr is None or self.class_methods is None or self.index is None:
            return False
        if attr not in self._layer_dicts:
            self._layer_dicts[attr] = self._filled_with_layers(attr)
        return self._layer_dicts[attr]

    def _filled_with_layers(self, attr: str) -> bool:
        found = self.class_methods("__init__")
        if found is None:
            return False
        symbols, init = found
        owner = init.args.args[0].arg if init.args.args else None
        layers = 0
        for stmt in ast.walk(init):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)):
                continue
            target = stmt.targets[0].value
            if not (isinstance(target, ast.Attribute) and target.attr == attr and isinstance(target.value, ast.Name)
                    and target.value.id == owner):
                continue
            if not isinstance(stmt.value, ast.Call) or not self._builds_a_layer(symbols, stmt.value.func):
                return False
            layers += 1
        return layers > 0

    def _builds_a_layer(self, symbols, func: ast.expr) -> bool:
        qualname = symbols.qualify(func)
        if qualname is None:
            return False
        if tn.classify_call(qualname) is tn.CallKind.MODULE:
            return True
        resolved = self.index.resolve(qualname, symbols.path)
        return resolved.kind == "class" and self.index.is_resolved_module_class(resolved)

    def _is_imported_head(self, node: ast.expr) -> bool:
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id not in self.env and (
            node.id in self.imports or node.id in self.symbols.local_names
        )

    def _args_state(self, node: ast.Call) -> str | None:
        values = [self.eval(a) for a in node.args] + [self.eval(k.value) for k in node.keywords]
        return combine_state(*values)

    def _qualified_call(self, qualname: str, node: ast.Call) -> Value:
        if not_a_tensor.loads_anything(qualname):
            return UNKNOWN
        if qualname in tn.SAME_KIND_AS_FIRST_ARGUMENT and node.args:
            # `rearrange(qkv, "b n (qkv h d) -> qkv b h n d", ...)`: a tensor of a tensor, a guess of a guess
            first = self.eval(node.args[0])
            return replace(first, integer=False, integer_guessed=False) if first.kind is Kind.TENSOR else UNKNOWN
        kind = tn.classify_call(qualname)
        name = qualname.rpartition(".")[2]
        if kind is tn.CallKind.TENSOR:
            return self._torch_function(qualname, name, node)
        if kind is tn.CallKind.SEQUENCE:
            return Value(Kind.SEQUENCE, self._args_state(node), items=self._piece(name, node.args, node),
                         integer_items=tn.integer_positions(qualname))
        if tn.unpacks_to_tensors(qualname):
            if len(node.args) == 1 and not isinstance(node.args[0], ast.Starred) \
                    and tn.mixed_call_returns_tensor(name, 0, _literal_keywords(node)):
                # torch.max(x), torch.unique(x): one tensor, of the input's dtype (nonzero: integer)
                first = self.eval(node.args[0])
                return self._mixed_result(name, first if first.kind is Kind.TENSOR else None, node)
            # torch.max(x, 1): a tensor or a tuple of tensors; typed only when unpacked
            return Value(Kind.UNKNOWN, items=self._piece(name, node.args, node), integer_items=tn.integer_positions(qualname))
        if kind is tn.CallKind.MODULE:
            return Value(Kind.NON_TENSOR, module=qualname)
        if kind is tn.CallKind.NON_TENSOR:
            return NON_TENSOR
        if kind is tn.CallKind.PARAMETER:
            return Value(Kind.PARAMETER)
        if kind is tn.CallKind.BUFFER:
            return Value(Kind.BUFFER)
        if kind is tn.CallKind.VARIABLE:
            inner = self.eval(node.args[0]) if node.args else UNKNOWN
            if not inner.is_tensor:
                if inner.kind is not Kind.UNKNOWN or is_true(keyword(node, "requires_grad")):
                    return UNKNOWN
                # Variable(x) raises TypeError unless x is a tensor or None (an empty tensor): what
                # it returns is a tensor, whatever x is (edits keep the call, as x is not proven one)
                return Value(Kind.TENSOR, self._args_state(node) or ARGUMENT_STATE)
            requires_grad = "Variable(..., requires_grad=True)" if is_true(keyword(node, "requires_grad")) else None
            return Value(Kind.TENSOR, inner.stateful, requires_grad, inner.integer, integer_guessed=inner.integer_guessed)
        if kind is tn.CallKind.LEGACY:
            dotted = qualname[len("torch.") :]
            integer = tn.legacy_is_integer(dotted)
            if tn.is_sparse_legacy(dotted) and len(node.args) >= 2 and all(self.eval(a).is_tensor for a in node.args[:2]):
                # torch.sparse.FloatTensor(indices, values, size): made of the tensors it is given
                return Value(Kind.TENSOR, self._args_state(node), None, integer)
            if len(node.args) == 1 and is_literal(node.args[0]) and isinstance(node.args[0], (ast.List, ast.Tuple)):
                stateful = None
            elif len(node.args) == 1 and isinstance(node.args[0], (ast.Name, ast.Attribute)) and not self.eval(node.args[0]).is_tensor:
                # torch.FloatTensor(x): x may be a size (uninitialised values) or the data itself
                stateful = f"data passed in or uninitialised memory ({short_call_name(node)})"
            elif node.args and all(isinstance(a, (ast.Name, ast.Attribute, ast.Constant)) for a in node.args) and not any(
                self.eval(a).is_tensor for a in node.args
            ):
                stateful = f"uninitialised memory ({short_call_name(node)})"
            else:
                stateful = f"data passed in ({short_call_name(node)})"
            return Value(Kind.TENSOR, stateful, None, integer)
        if kind is tn.CallKind.INIT:
            argument = self.eval(node.args[0]) if node.args else UNKNOWN
            result = inplace_init.result_kind(argument.kind.name, argument.is_tensor)
            if result == "parameter":
                return Value(Kind.PARAMETER)
            if result == "buffer":
                return Value(Kind.BUFFER)
            if result == "unknown":
                return UNKNOWN
            if tn.init_is_random(name):
                return Value(Kind.TENSOR, f"random initialisation ({short_call_name(node)})", argument.requires_grad, argument.integer,
                             integer_guessed=argument.integer_guessed)
            return Value(Kind.TENSOR, self._args_state(node), argument.requires_grad, argument.integer,
                         integer_guessed=argument.integer_guessed)
        owner = qualname.rpartition(".")[0]
        local = self._local_class(owner)
        if local is not None:
            # `SinusoidalPositionalEmbedding.get_embedding(n, dim)`: a static method of a class
            # of this module is typed from its body, as a helper function is
            found = method_in([(self.symbols, local)], name)
            if found is None or not _is_static(found[1]):
                return UNKNOWN
            return function_value(self.index, self.symbols, found[1], None, self.depth + 1)
        if self._is_method_of_a_class(owner):
            # `AutoModel.from_config(...)`: a method of a class, which the analysis cannot
            # type; finding the class through a package's re-exports would be the costly part.
            return UNKNOWN
        if kind is tn.CallKind.UNKNOWN and self.index is not None and not qualname.startswith("torch."):
            resolved = self.index.resolve(qualname, self.symbols.path)
            if resolved.kind == "function" and resolved.module is not None:
                value = function_value(self.index, resolved.module, resolved.node, None, self.depth + 1)  # type: ignore[arg-type]
                if _partly_typed(value):
                    typed = self._typed_arguments_passed(resolved.node, node)  # type: ignore[arg-type]
                    if typed:
                        return function_value(self.index, resolved.module, resolved.node, None, self.depth + 1,
                                              arguments=typed)  # type: ignore[arg-type]
                return value
            if resolved.kind == "class":
                # An instance of a repository class: a module, a config, ... never a raw
                # tensor worth registering (a torch.Tensor subclass is left alone too).
                return Value(Kind.NON_TENSOR, instance=resolved)
            if resolved.kind == "unknown" or (resolved.kind == "external" and "." not in qualname):
                # `_to_tensor = _numpy_to_cuda`, where another module binds
                # `_numpy_to_cuda = lambda x: torch.from_numpy(x).cuda()`: typed from its body
                found = _module_lambda(qualname, _ModuleScope(self.symbols, self.index))
                if found is not None:
                    symbols, function = found
                    return function_value(self.index, symbols, function, None, self.depth + 1,
                                          arguments=self._typed_arguments_passed(function, node) or None)
        if kind is tn.CallKind.UNKNOWN and self.index is None and qualname in self.symbols.functions:
            return function_value(None, self.symbols, self.symbols.functions[qualname], None, self.depth + 1)
        local = qualname.rpartition(".")
        if kind is tn.CallKind.UNKNOWN and local[0] == self.symbols.name and local[2] in self.symbols.functions:
            return function_value(self.index, self.symbols, self.symbols.functions[local[2]], None, self.depth + 1)
        return UNKNOWN

    def _arguments_passed(self, function: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.Call,
                          skip_first: bool = False) -> dict[str, Value]:
        """What a call hands the parameters of a function, by name: its keywords, and its
        positional arguments where none is unpacked (`f(*qkv, dropout=self.dropout)`);
        `skip_first`: a method called on an instance, whose first parameter is the instance."""
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)]
        positional = params[1:] if skip_first else params
        passed = dict(zip(positional, node.args)) if not any(isinstance(a, ast.Starred) for a in node.args) else {}
        passed.update((k.arg, k.value) for k in node.keywords if k.arg in params)
        return {name: self.eval(expr) for name, expr in passed.items()}

    def _typed_arguments_passed(self, function: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.Call,
                                skip_first: bool = False) -> dict[str, Value]:
        """The tensors and torch.nn layers a call hands a function, by parameter name: what a
        helper returns may depend on them (`reshape_by_heads(self.Wk(x), n)` returns
        `qkv.reshape(...).transpose(1, 2)`, a tensor only when qkv is one)."""
        return {name: value for name, value in self._arguments_passed(function, node, skip_first).items()
                if value.kind is Kind.TENSOR or (value.module is not None and tn.module_returns_tensor(value.module))}

    def _local_class(self, owner: str) -> ast.ClassDef | None:
        """The class of this module that a dotted owner names (`<module>.Table`), or None."""
        module, _, name = owner.rpartition(".")
        return self.symbols.classes[name] if module == self.symbols.name and name in self.symbols.classes else None

    def _is_method_of_a_class(self, owner: str) -> bool:
        """Whether the owner of a called name is a class, told by what it is bound to: a
        module named `Models` (`Models.build_adj(...)`) is a module, not a class.  A
        capitalised owner that is not one of the run's modules counts as a class."""
        if not owner.rpartition(".")[2][:1].isupper() or owner == self.symbols.name:
            return False
        return self.index is None or not self.index.is_module(owner)

    def _torch_function(self, qualname: str, name: str, node: ast.Call) -> Value:
        label = short_call_name(node)
        if tn.is_random(name):
            stateful: str | None = f"random initialisation ({label})"
        elif name in tn.DATA_FUNCTIONS:
            if name in tn.LITERAL_DATA_FUNCTIONS and node.args and (is_literal(node.args[0]) or _is_scalar_arithmetic(node.args[0])):
                stateful = None
            elif name.startswith("empty"):
                stateful = f"uninitialised memory ({label})"
            else:
                stateful = f"data passed in ({label})"
        else:
            stateful = self._args_state(node)
        requires_grad = f"{label}(..., requires_grad=True)" if is_true(keyword(node, "requires_grad")) else None
        dtype = tn.dtype_is_integer(self.qualify(keyword(node, "dtype"))) if keyword(node, "dtype") is not None else None
        guessed = False
        if dtype is not None:
            integer = dtype
        elif name in tn.INTEGER_FUNCTIONS:
            integer = True
        elif name == "arange":
            integer = not any(_has_float_literal(a) for a in node.args)
            # arange(n) is integer only when n is an int, which only some expressions prove
            guessed = integer and not all(_proves_int(a) for a in node.args)
        elif name in tn.LITERAL_DATA_FUNCTIONS and node.args and is_literal(node.args[0]):
            integer = _literal_is_integer(node.args[0])
        else:
            inputs = [self.eval(a) for a in node.args]
            tensors = [v for v in inputs if v.kind in (Kind.TENSOR, Kind.SEQUENCE)]
            integer = bool(tensors) and all(v.integer for v in tensors) and name in _SHAPE_FUNCTIONS
            guessed = integer and any(v.integer_guessed for v in tensors)
        return Value(Kind.TENSOR, stateful, requires_grad, integer, integer_guessed=guessed)

    def _piece(self, name: str, inputs: list[ast.expr], node: ast.Call, receiver: Value | None = None) -> Value:
        """One item of the tensors a split, sort or max(dim) returns."""
        values = ([receiver] if receiver is not None else []) + [self.eval(a) for a in inputs]
        tensors = [v for v in values if v.kind in (Kind.TENSOR, Kind.SEQUENCE)]
        integer = bool(tensors) and all(v.integer for v in tensors) and name in tn.SAME_DTYPE_PIECES
        if tensors and all(v.kind is Kind.SEQUENCE for v in tensors):
            integer = False  # the integer flag of a sequence says nothing of its items
        stateful = (receiver.stateful if receiver is not None else None) or self._args_state(node)
        return Value(Kind.TENSOR, stateful, None, integer, integer_guessed=integer and any(v.integer_guessed for v in tensors))

    def _mixed_result(self, name: str, source: Value | None, node: ast.Call) -> Value:
        """The one tensor `x.max()`, `torch.unique(x)`, `x.nonzero()` return, from `source`
        (the tensor it reads, when known): its dtype, or integer indices for nonzero."""
        stateful = (source.stateful if source is not None else None) or self._args_state(node)
        if name == "nonzero":
            return Value(Kind.TENSOR, stateful, None, True)
        if source is None:
            return Value(Kind.TENSOR, stateful, None, False)
        if source.requires_grad:
            stateful = f"computed from a tensor that requires grad (.{name}())"
        return Value(Kind.TENSOR, stateful, None, source.integer, integer_guessed=source.integer_guessed)

    def _tensor_method(self, receiver: Value, name: str, node: ast.Call) -> Value:
        if name in tn.DEVICE_METHODS:
            value = replace(receiver, moved_parameter=False)
            for arg in [*node.args, *(k.value for k in node.keywords if k.arg == "dtype")]:
                integer = tn.dtype_is_integer(self.qualify(arg))
                if integer is not None:
                    value = replace(value, integer=integer, integer_guessed=False)
            return value
        if name == "requires_grad_":
            if node.args and is_false(node.args[0]):
                return replace(receiver, requires_grad=None)
            return replace(receiver, requires_grad=".requires_grad_()")
        if name in ("detach", "detach_"):
            return replace(receiver, requires_grad=None)
        if name in tn.INTEGER_CAST_METHODS:
            return replace(receiver, integer=True, integer_guessed=False)
        if name in tn.INTEGER_RESULT_METHODS and tn.method_kind(name) is tn.CallKind.TENSOR:
            return Value(Kind.TENSOR, receiver.stateful or self._args_state(node), None, True)
        if name in tn.FLOAT_CAST_METHODS:
            return replace(receiver, integer=False, integer_guessed=False)
        if name == "type" and node.args:
            integer = tn.dtype_is_integer(self.qualify(node.args[0]))
            if integer is None:
                # .type(torch.FloatTensor), .type("torch.cuda.FloatTensor"), .type(x.type()), .type(self.dtype_name)
                integer = tn.legacy_type_is_integer(node.args[0], self.qualify(node.args[0]))
                return replace(receiver, integer=bool(integer), integer_guessed=False) if integer is not None else replace(
                    receiver, integer=False, integer_guessed=False
                )
            return replace(receiver, integer=bool(integer), integer_guessed=False)
        if name in tn.RANDOM_INPLACE_METHODS:
            return replace(receiver, stateful=f"random initialisation (.{name}())")
        if name in ("zero_", "fill_"):
            return replace(receiver, stateful=self._args_state(node))  # every element overwritten
        if tn.method_returns_sequence(name):
            return Value(Kind.SEQUENCE, receiver.stateful or self._args_state(node), items=self._piece(name, node.args, node, receiver),
                         integer_items=tn.integer_positions(name, method=True))
        if tn.method_unpacks_to_tensors(name):
            if not any(isinstance(a, ast.Starred) for a in node.args) \
                    and tn.mixed_call_returns_tensor(name, len(node.args), _literal_keywords(node)):
                return self._mixed_result(name, receiver, node)  # `x.max()`, `x.unique()`: one tensor
            return Value(Kind.UNKNOWN, items=self._piece(name, node.args, node, receiver), integer_items=tn.integer_positions(name, method=True))
        kind = tn.method_kind(name)
        if kind is tn.CallKind.NON_TENSOR:
            return NON_TENSOR
        if kind is tn.CallKind.TENSOR:
            stateful = receiver.stateful or self._args_state(node)
            if receiver.requires_grad:
                # `Variable(t, requires_grad=True).repeat(10, 1, 1)`: a result computed from the
                # trainable leaf, not the leaf; as an nn.Parameter its copies would train apart,
                # and nothing trains it as it is
                return Value(Kind.TENSOR, f"computed from a tensor that requires grad (.{name}())", None, receiver.integer,
                             integer_guessed=receiver.integer_guessed)
            return Value(Kind.TENSOR, stateful, receiver.requires_grad, receiver.integer, integer_guessed=receiver.integer_guessed)
        return UNKNOWN

    def _helper_method(self, name: str, node: ast.Call) -> Value:
        if self.class_methods is None:
            return UNKNOWN
        found = self.class_methods(name)
        if found is None and name == "state_dict" and not node.args:
            return STATE_DICT
        if found is None:
            # self.crit(a, b) / self.fc(x): calling a torch.nn layer or loss held by self
            held = self.self_attrs.get(name)
            if held is not None and held.module is not None and tn.module_returns_tensor(held.module):
                return Value(Kind.TENSOR, f"data passed in (computed by {held.module.rpartition('.')[2]})")
            if held is not None and held.module is not None and held.module.rpartition(".")[2] in _RECURRENT:
                # (output, h_n); an LSTM's h_n is (h, c): `out, self.hidden = self.gru(x)`
                layer = held.module.rpartition(".")[2]
                state = f"data passed in (computed by {layer})"
                tensor = Value(Kind.TENSOR, state)
                last = Value(Kind.SEQUENCE, state, elements=(tensor, tensor)) if layer == "LSTM" else tensor
                return Value(Kind.SEQUENCE, state, elements=(tensor, last))
            if held is not None and held.module is not None and held.module.rpartition(".")[2] == "MultiheadAttention":
                # (attn_output, attn_weights): the weights are None only with need_weights=False
                state = "data passed in (computed by MultiheadAttention)"
                tensor = Value(Kind.TENSOR, state)
                weights = NONE if is_false(keyword(node, "need_weights")) else tensor
                return Value(Kind.SEQUENCE, state, elements=(tensor, weights))
            sequential = self._sequential_guess(held)  # `self.utt_shared_t = self.shared(x)` in a method
            if sequential is not None:
                return sequential
            if held is not None and held.module == tn.SOME_REPOSITORY_MODULE and self.per_call:
                # `self.fake_B = self.netG(self.real_A)` with netG from a factory that returns one
                # of several repository modules: what a module returns, most often a tensor
                return Value(Kind.TENSOR, CHILD_MODULE_OUTPUT, guessed=True)
            if held is not None and held.instance is not None:
                value = self._instance_method(held.instance, "__call__")  # self.netG(x): a repository module's forward
                if value.kind is Kind.UNKNOWN and self.per_call and self.index is not None \
                        and self.index.is_resolved_module_class(held.instance):
                    # a forward too deep to type: what a module returns, most often a tensor
                    return Value(Kind.TENSOR, CHILD_MODULE_OUTPUT, guessed=True)
                return value
            if held is not None and held.tensor_type is not None:
                return self._qualified_call(held.tensor_type, node)  # self.Tensor(...)
            return UNKNOWN
        symbols, method = found
        first = method.args.args[0].arg if method.args.args and not _is_static(method) else None
        reads_self = first is not None and any(
            isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == first and isinstance(n.ctx, ast.Load)
            for n in ast.walk(method)
        )
        held = dict(self.self_attrs) if reads_self and self.self_attrs else None
        # `self.norm = self._normaliser()` where the method reads tensors set before the call:
        # typed with what self holds at this point (not memoised: it depends on the caller)
        value = function_value(self.index, symbols, method, self.class_methods, self.depth + 1, held)
        if value.kind is Kind.UNKNOWN and (node.args or node.keywords):
            # `self.get_tau(self.sims[:, i])` returning `self.min_tau + (1 - sims) * w`: a
            # tensor when the call hands one in; typed again with the tensors it hands
            passed = self._typed_arguments_passed(method, node, skip_first=first is not None)
            if passed:
                value = function_value(self.index, symbols, method, self.class_methods, self.depth + 1, held,
                                       arguments=passed)
        return value

    def _lineage(self, resolved) -> list | None:
        """A repository class and its bases ((symbols, class) pairs, nearest first), or None
        where it cannot be read or the typing is deep enough already."""
        module = resolved.module
        if self.index is None or module is None or self.depth >= _MAX_DEPTH:
            return None
        return [(module, resolved.node), *self.index.base_classes(module, resolved.node)]

    def _instance_attribute(self, resolved, name: str) -> Value:
        """An attribute of an instance of a repository class, as its constructors bind it."""
        lineage = self._lineage(resolved)
        if lineage is None:
            return UNKNOWN
        value = constructor_attributes(self.index, lineage, self.depth + 1).get(name, UNKNOWN)
        if value.kind is Kind.NONE and self.per_call:
            # `self.kl = self.rnn.kl + self.out.kl` in a forward, where each child's class sets
            # its `kl = None` in __init__ and to a tensor in its own forward: once the children
            # have run, a tensor, by a guess fit for a report only
            return lazily_bound_attributes(self.index, lineage, self.depth + 1).get(name, UNKNOWN)
        return value if value.is_tensor or value.kind in (Kind.PARAMETER, Kind.SEQUENCE) else UNKNOWN

    def _instance_layer(self, resolved, name: str) -> Value | None:
        """Calling `obj.name(...)` where obj's constructor binds name to a torch layer that
        returns a tensor, or to a repository module whose forward returns one (and obj's class
        has no method of that name): that tensor."""
        lineage = self._lineage(resolved)
        if lineage is None or method_in(lineage, name) is not None:
            return None
        held = constructor_attributes(self.index, lineage, self.depth + 1).get(name)
        if held is not None and held.module is not None and tn.module_returns_tensor(held.module):
            return Value(Kind.TENSOR, f"data passed in (computed by {held.module.rpartition('.')[2]})")
        sequential = self._sequential_guess(held)  # `self.memory = self.grader.conv1(x)` in a method
        if sequential is not None:
            return sequential
        if held is not None and held.instance is not None:
            value = self._instance_method(held.instance, "__call__")  # a repository module: its forward
            return value if value.kind is Kind.TENSOR else None
        return None

    def _sequential_guess(self, held: Value | None) -> Value | None:
        """What calling an nn.Sequential (self's own or a child's) returns in a method other
        than __init__: a stack of layers hands on one tensor, by a guess good for reports only."""
        if held is not None and held.module is not None and self.per_call and held.module.rpartition(".")[2] == "Sequential":
            return Value(Kind.TENSOR, SEQUENTIAL_OUTPUT, guessed=True)
        return None

    def _property_value(self, name: str) -> Value:
        """`self.err_rate` where the class defines `@property def err_rate(self)`: what its body
        returns, typed with what self holds at this point."""
        found = self.class_methods(name) if self.class_methods is not None else None
        if found is None:
            return UNKNOWN
        symbols, method = found
        if not _decorated(method, "property"):
            return UNKNOWN
        return function_value(self.index, symbols, method, self.class_methods, self.depth + 1, dict(self.self_attrs))

    def _instance_method(self, resolved, name: str) -> Value:
        """What a method of a repository class's instance returns; name "__call__" is calling
        the instance (its forward, for an nn.Module).  Typed from the method's body, with the
        methods of the instance's own class (not the caller's) for its self calls."""
        lineage = self._lineage(resolved)
        if lineage is None:
            return UNKNOWN
        wanted = [name]
        if name == "__call__" and self.index.is_resolved_module_class(resolved):
            wanted = ["forward", "__call__"]

        def methods(method_name: str):
            return method_in(lineage, method_name)

        for method_name in wanted:
            found = methods(method_name)
            if found is not None:
                symbols, method = found
                if _decorated(method, "classmethod", "property"):
                    return UNKNOWN
                return _instance_call_value(self.index, lineage, symbols, method, methods, self.depth + 1)
        return UNKNOWN


_CONSTRUCTOR_MEMO_ATTR = "_codemod_constructor_attrs"
_INSTANCE_CALL_MEMO_ATTR = "_codemod_instance_calls"


def constructor_attributes(index: RepoIndex | None, lineage, depth: int) -> dict[str, Value]:
    """What self holds once a class is built: the attributes that the constructors of the class
    and of its repository bases bind (lineage: (symbols, class) pairs, nearest first), a base's
    first, as `super().__init__()` runs it first.  Memoised on the class."""
    from codemod.walker import BodyWalker  # local import: walker builds on this module

    def bind() -> dict[str, Value]:
        attrs: dict[str, Value] = {}
        for position in reversed(range(len(lineage))):
            found = method_in(lineage[position : position + 1], "__init__")
            if found is None:
                continue
            symbols, init = found
            rest = lineage[position:]
            evaluator = Evaluator(index, symbols, init, lambda name, rest=rest: method_in(rest, name), depth=depth, self_attrs=dict(attrs))
            BodyWalker(evaluator).walk(init.body)
            attrs.update(evaluator.self_attrs)
        return attrs

    return _memoised_on_class(lineage[0][1], _CONSTRUCTOR_MEMO_ATTR, index, depth, bind)


def _memoised_on_class(cls: ast.ClassDef, attr: str, index: RepoIndex | None, depth: int,
                       compute: Callable[[], dict[str, Value]]) -> dict[str, Value]:
    """compute()'s attributes of a class, memoised on its node with the files they were read
    from (noted again for whoever asks later, for the result cache); {} past the depth limit,
    and while it is being computed (a class reached again through itself)."""
    memo = getattr(cls, attr, None)
    if memo is not None:
        found, dependencies = memo
        if index is not None:
            index.note(dependencies)
        return found
    if depth > _MAX_DEPTH:
        return {}
    setattr(cls, attr, ({}, ()))  # recursion guard
    found, dependencies = _tracked(index, compute)
    setattr(cls, attr, (found, dependencies))
    return found


_METHOD_BOUND_MEMO_ATTR = "_codemod_method_bound_attrs"


def method_bound_attributes(index: RepoIndex | None, lineage) -> dict[str, Value]:
    """attr -> the tensor type or the module that a method of the class or of a repository
    base binds to it, wherever that method is (`self.Tensor = torch.cuda.FloatTensor if gpu
    else torch.Tensor`, `self.netG = networks.define_G(opt)` in a base's `initialize`): a name
    that only ever holds a tensor type makes a tensor when called (`self.Tensor(n, c, h, w)`),
    and one that only ever holds a module returns what that module returns, whichever method
    ran first.  An attribute any method binds to something else is left out.  Memoised on
    the class."""
    cls = lineage[0][1]
    memo = getattr(cls, _METHOD_BOUND_MEMO_ATTR, None)
    if memo is not None:
        return memo
    found: dict[str, Value] = {}
    other: set[str] = set()
    for symbols, owner in lineage:
        for method in owner.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
                continue
            self_name = method.args.args[0].arg
            evaluator = None
            for node in ast.walk(method):
                if not isinstance(node, ast.Assign):
                    continue
                for target in node.targets:
                    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                            and target.value.id == self_name):
                        continue
                    value = None
                    if isinstance(node.value, (ast.Attribute, ast.Name, ast.IfExp)) or (
                            method.name != "__init__" and _builds_module(node.value, self_name)):
                        evaluator = evaluator or Evaluator(index, symbols, None)
                        value = evaluator.eval(node.value)
                    if value is not None and (value.tensor_type is not None or _holds_module(index, value)):
                        found.setdefault(target.attr, value)
                    else:
                        other.add(target.attr)
    memo = {attr: value for attr, value in found.items() if attr not in other}
    setattr(cls, _METHOD_BOUND_MEMO_ATTR, memo)
    return memo


def _builds_module(node: ast.expr, self_name: str) -> bool:
    """A call that may build a module: not a method of self, not a method of a value."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id != self_name


def _holds_module(index: RepoIndex | None, value: Value) -> bool:
    """A torch.nn layer, or an instance of a repository class that is an nn.Module."""
    if not is_built_module(value):
        return False
    return value.module is not None or (index is not None and index.is_resolved_module_class(value.instance))


def _tracked(index: RepoIndex | None, compute: Callable[[], Any]) -> tuple[Any, frozenset]:
    """compute()'s result and the files it read (RepoIndex dependency tracking), to memoise both."""
    if index is None:
        return compute(), frozenset()
    index.begin_tracking()
    try:
        result = compute()
    finally:
        dependencies = frozenset(index.end_tracking())
    return result, dependencies


def _instance_call_value(index: RepoIndex | None, lineage, symbols: ModuleSymbols, method, methods, depth: int) -> Value:
    """What a method of an instance of a repository class returns, typed with what the
    instance's constructor bound (`return self.lin(x)`, `return self.outputs`).  Memoised on
    the instance's class."""
    cls = lineage[0][1]
    memo = getattr(cls, _INSTANCE_CALL_MEMO_ATTR, None)
    if memo is None:
        memo = {}
        setattr(cls, _INSTANCE_CALL_MEMO_ATTR, memo)
    if method.name in memo:
        value, dependencies = memo[method.name]
        if index is not None:
            index.note(dependencies)
        return value
    memo[method.name] = (UNKNOWN, ())  # recursion guard
    value, dependencies = _tracked(
        index, lambda: function_value(index, symbols, method, methods, depth, dict(constructor_attributes(index, lineage, depth)))
    )
    memo[method.name] = (value, dependencies)
    return value


_LAZY_MEMO_ATTR = "_codemod_lazily_bound_attrs"


def lazily_bound_attributes(index: RepoIndex | None, lineage, depth: int) -> dict[str, Value]:
    """attr -> a guessed tensor, for each attribute a method of the class (other than
    __init__) binds to a tensor: what a child's `kl` holds once its forward has run, where its
    constructor leaves None.  Each method is walked with what self holds after construction;
    memoised on the class."""
    from codemod.walker import BodyWalker  # local import: walker builds on this module

    def bind() -> dict[str, Value]:
        found: dict[str, Value] = {}
        built = constructor_attributes(index, lineage, depth)
        for position, (symbols, owner) in enumerate(lineage):
            for method in owner.body:
                if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name == "__init__" \
                        or not method.args.args or not _binds_self_attributes(method):
                    continue
                rest = lineage[position:]
                evaluator = Evaluator(index, symbols, method, lambda name, rest=rest: method_in(rest, name), depth=depth,
                                      self_attrs=dict(built))
                BodyWalker(evaluator).walk(method.body)
                for attr, value in evaluator.self_attrs.items():
                    if value.kind is Kind.TENSOR and built.get(attr, UNKNOWN).kind is not Kind.TENSOR:
                        found.setdefault(attr, Value(Kind.TENSOR, CHILD_LAZY_ATTRIBUTE, guessed=True))
        return found

    return _memoised_on_class(lineage[0][1], _LAZY_MEMO_ATTR, index, depth, bind)


def _binds_self_attributes(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    me = method.args.args[0].arg
    return any(isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
        isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])) for node in ast.walk(method))


def method_in(lineage, name: str) -> tuple[ModuleSymbols, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The first method called `name` in a class and its bases ((symbols, class) pairs, nearest
    first): where Python's attribute lookup finds it."""
    for symbols, cls in lineage:
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                return symbols, stmt
    return None


# Methods of a tensor that make a new one of its dtype and device, not a view or a copy of it.
_FRESH_TENSOR_METHODS = frozenset({"new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"})

# What only a tensor among the results of a comparison has (`(ids != pad).float()`).
_COMPARISON_CASTS = frozenset({"float", "long", "int", "bool", "byte", "half", "double", "type_as", "to", "cuda"})

# Module methods that return the module itself (`net.eval()`, `net.half()`).
_MODULE_SELF_METHODS = frozenset({"train", "eval", "float", "half", "double", "bfloat16", "requires_grad_", "share_memory"})

_SHAPE_FUNCTIONS = frozenset(
    {"cat", "concat", "concatenate", "stack", "tril", "triu", "flip", "roll", "reshape", "transpose", "permute",
     "unsqueeze", "squeeze", "repeat_interleave", "tile", "narrow", "index_select", "gather", "clone"}
)


def _decorated(function: ast.FunctionDef | ast.AsyncFunctionDef, *names: str) -> bool:
    """Whether a plain-name decorator among `names` (`@property`, `@staticmethod`) wraps it."""
    return any(isinstance(d, ast.Name) and d.id in names for d in function.decorator_list)


def _is_static(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return _decorated(function, "staticmethod")


def type_tested(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names `function` tests the type of: `isinstance(x, ...)`, `torch.is_tensor(x)`,
    `type(x) ...`."""
    tested = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in ("isinstance", "is_tensor", "type"):
                tested.add(node.args[0].id)
    return tested


def _layer_sizes(function: ast.FunctionDef | ast.AsyncFunctionDef, evaluator: Evaluator) -> set[str]:
    """The names the function hands, as they are, to a torch.nn layer's constructor as a
    positional argument (`nn.GroupNorm(32, in_ch)`, `nn.Linear(dim, dim)`): sizes.  Losses
    (`nn.NLLLoss(weight)`) and parameter containers take tensors there, and do not count."""
    found: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) for a in node.args):
            qualname = evaluator.qualify(node.func)
            if qualname is not None and qualname.startswith("torch.nn.") and tn.is_torch_module_class(qualname) \
                    and not qualname.endswith(("Loss", "ParameterList", "ParameterDict")):
                found.update(a.id for a in node.args if isinstance(a, ast.Name))
    return found


def _annotation_value(annotation: ast.expr | None, evaluator: Evaluator) -> Value:
    """A parameter annotated `Tensor`, `Optional[Tensor]` or `Tensor | None` carries data
    passed in; anything else (`Callable[[Tensor], None]`, `list[Tensor]`) is not a tensor."""
    annotation = _parse_annotation(annotation)
    if annotation is None:
        return UNKNOWN
    if _is_parameter_union(annotation, evaluator):
        # Union[Parameter, Tensor]: a Parameter handed in must stay a parameter, so the value
        # is not a plain tensor (registering it as a buffer would take it from the optimizer)
        return Value(Kind.TENSOR, PARAMETER_ARGUMENT_STATE, maybe_parameter=True)
    kind = _annotated_kind(annotation, evaluator)
    if kind in (Kind.TENSOR, Kind.TENSOR_OR_NONE):
        # `w: Tensor` admits an nn.Parameter too (a subclass), which `self.w = w` keeps a
        # parameter: the repository's calls may say a plain tensor comes (call_sites.py)
        return Value(kind, ARGUMENT_STATE, maybe_parameter=True)
    if kind is None:
        kind = _annotated_container(annotation, evaluator)
    if kind is None:
        return UNKNOWN
    return Value(kind, ARGUMENT_STATE)


def admits_a_tensor_among_others(annotation: ast.expr | None, evaluator: Evaluator) -> bool:
    """`str | int | float | Tensor`, `Union[Tensor, str]`: the author admits a tensor among
    values that are none (a parameter's name or its value); `Optional[Tensor]` does not count."""
    annotation = _parse_annotation(annotation)
    members = _union_members(annotation, evaluator, ("Union",)) if annotation is not None else []
    kinds = [_annotated_kind(m, evaluator) for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
    return Kind.TENSOR in kinds and None in kinds


def _item_of(iterated: Value) -> Value:
    """What iterating a value gives, where that is known: the items of a list every item of
    which is a tensor (a comprehension of tensors), or its elements when all are the same tensors."""
    if iterated.kind is not Kind.SEQUENCE:
        return UNKNOWN
    if iterated.items is not None and iterated.items.is_tensor and not iterated.items.is_guess:
        return iterated.items
    elements = iterated.elements
    if elements and all(e.is_tensor and not e.is_guess for e in elements):
        merged = elements[0]
        for element in elements[1:]:
            merged = merge_branches(merged, element)
        return merged if merged.is_tensor else UNKNOWN
    return UNKNOWN


def _parse_annotation(annotation: ast.expr | None) -> ast.expr | None:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return ast.parse(annotation.value, mode="eval").body  # a string annotation
        except SyntaxError:
            return None
    return annotation


_PARAMETER_ANNOTATIONS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})


def _is_parameter_union(node: ast.expr, evaluator: Evaluator) -> bool:
    """`Union[Parameter, Tensor]`, `Optional[Union[nn.Parameter, Tensor]]`, `Parameter | Tensor`."""
    members = _union_members(node, evaluator, ("Union", "Optional"))
    if len(members) < 2:
        return False
    parameters = [m for m in members if isinstance(m, (ast.Name, ast.Attribute)) and evaluator.qualify(m) in _PARAMETER_ANNOTATIONS]
    others = [m for m in members if m not in parameters and not (isinstance(m, ast.Constant) and m.value is None)]
    return bool(parameters) and bool(others) and all(_annotated_kind(m, evaluator) is Kind.TENSOR for m in others)


def _union_members(node: ast.expr, evaluator: Evaluator, wrappers: tuple[str, ...]) -> list[ast.expr]:
    """The members of a union annotation (`A | B`, and `Union[A, B]` or whichever ``wrappers``
    name), unions within it unfolded; [node] for one that is no union."""
    members: list[ast.expr] = []
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, ast.BinOp) and isinstance(current.op, ast.BitOr):
            pending += [current.left, current.right]
        elif isinstance(current, ast.Subscript) and (evaluator.qualify(current.value) or "").rpartition(".")[2] in wrappers:
            pending += list(current.slice.elts) if isinstance(current.slice, ast.Tuple) else [current.slice]
        else:
            members.append(current)
    return members


_CONTAINER_ANNOTATIONS = frozenset({"list", "List", "tuple", "Tuple", "Sequence", "dict", "Dict", "Mapping", "MutableMapping", "OrderedDict"})


def _annotated_container(node: ast.expr, evaluator: Evaluator) -> Kind | None:
    """`list[Tensor]`, `Tuple[Tensor, ...]`, `Dict[str, Tensor]`: a container of tensors."""
    if not isinstance(node, ast.Subscript):
        return None
    wrapper = (evaluator.qualify(node.value) or "").rpartition(".")[2]
    if wrapper not in _CONTAINER_ANNOTATIONS:
        return None
    members = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if wrapper in ("dict", "Dict", "Mapping", "MutableMapping", "OrderedDict"):
        members = members[1:]
    members = [m for m in members if not (isinstance(m, ast.Constant) and m.value is Ellipsis)]
    if members and all(_annotated_kind(m, evaluator) is Kind.TENSOR for m in members):
        return Kind.SEQUENCE
    return None


# jaxtyping's dtype wrappers: `Float[Tensor, "batch dim"]` annotates the array type it wraps
# (a torch tensor here, a JAX or numpy array elsewhere).
_JAXTYPING_WRAPPERS = frozenset({
    "Shaped", "Num", "Real", "Inexact", "Float", "Float8e4m3fn", "Float8e5m2", "Float16", "Float32", "Float64",
    "BFloat16", "Complex", "Complex64", "Complex128", "Int", "Int4", "Int8", "Int16", "Int32", "Int64", "Integer",
    "UInt", "UInt4", "UInt8", "UInt16", "UInt32", "UInt64", "Bool", "Key",
})
# How many module-level aliases an annotation is followed through (`Spectrum = Float[Tensor, "n 2"]`).
_MAX_ALIAS_DEPTH = 4


class _ModuleScope:
    """Names as one module of the repository binds them: where an annotation alias is defined."""

    def __init__(self, symbols: ModuleSymbols, index: RepoIndex | None) -> None:
        self.symbols = symbols
        self.index = index

    def qualify(self, node: ast.expr) -> str | None:
        return self.symbols.qualify(node)


def _alias(qualname: str, scope) -> tuple[ast.expr, _ModuleScope] | None:
    """The value of a module-level `Name = <annotation>` (or `Name: TypeAlias = ...`, also under
    `if TYPE_CHECKING:`) that a qualified name refers to, in this module or a module of the
    repository, with its module."""
    module, _, name = qualname.rpartition(".")
    symbols: ModuleSymbols | None = None
    if not module or module == scope.symbols.name:
        symbols = scope.symbols
    elif scope.index is not None and scope.index.resolve(qualname, scope.symbols.path).kind == "unknown":
        # neither a class, a function nor a module (memoised): perhaps a module-level assignment
        symbols = scope.index.symbols_for_module(module, scope.symbols.path)
    value = _module_assignments(symbols).get(name) if symbols is not None else None
    return (value, _ModuleScope(symbols, scope.index)) if value is not None and symbols is not None else None


def lambda_function(node: ast.Lambda) -> ast.FunctionDef:
    """The function a lambda stands for (`def <lambda>(args): return body`), made once and kept
    on the lambda's node, so that calls of it are typed and memoised as a function's are."""
    function = getattr(node, _LAMBDA_FUNCTION_ATTR, None)
    if function is None:
        function = ast.FunctionDef(name="<lambda>", args=node.args, body=[ast.Return(value=node.body)],
                                   decorator_list=[], returns=None, type_params=[])
        ast.copy_location(function, node)
        ast.copy_location(function.body[0], node.body)
        ast.fix_missing_locations(function)
        setattr(node, _LAMBDA_FUNCTION_ATTR, function)
    return function


def _module_lambda(qualname: str, scope: _ModuleScope) -> tuple[ModuleSymbols, ast.FunctionDef] | None:
    """The function a module-level `name = lambda ...` stands for, with its module, followed
    through plain aliases (`_to_tensor = _numpy_to_cuda`, imported from another module)."""
    for _ in range(_MAX_ALIAS_DEPTH):
        found = _alias(qualname, scope)
        if found is None:
            return None
        value, scope = found
        if _module_bindings(scope.symbols).get(qualname.rpartition(".")[2], 0) != 1:
            return None  # bound again somewhere: which value a call sees depends on the order
        if isinstance(value, ast.Lambda):
            return scope.symbols, lambda_function(value)
        qualname = scope.qualify(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
        if qualname is None:
            return None
    return None


def registry_entry(index: RepoIndex, symbols: ModuleSymbols, func: ast.expr) -> tuple[ModuleSymbols, ast.expr] | None:
    """What a constant key looks up in a module-level dict literal bound once (`MODELS["cnn"]`,
    `MODELS.get("cnn")` with `MODELS = {"cnn": CNN, ...}` in this module or imported from one
    of the repository), with the dict's module: the expression stored under that key.  A key
    computed at run time names no entry."""
    if isinstance(func, ast.Subscript):
        holder, key = func.value, func.slice
    elif isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute) and func.func.attr == "get" \
            and len(func.args) == 1 and not func.keywords:
        holder, key = func.func.value, func.args[0]
    else:
        return None
    if not isinstance(key, ast.Constant) or not isinstance(holder, (ast.Name, ast.Attribute)):
        return None
    qualname = symbols.qualify(holder)
    found = _alias(qualname, _ModuleScope(symbols, index)) if qualname is not None else None
    if found is None or not isinstance(found[0], ast.Dict):
        return None
    table_node, scope = found
    if _module_bindings(scope.symbols).get(qualname.rpartition(".")[2], 0) != 1:
        return None  # bound again: which dict a lookup sees depends on the order
    if not all(isinstance(k, ast.Constant) for k in table_node.keys):
        return None  # `**others` spread in, or a computed key that may equal this one
    entries = [v for k, v in zip(table_node.keys, table_node.values) if k.value == key.value]  # type: ignore[union-attr]
    return (scope.symbols, entries[-1]) if entries else None  # a key given twice: the last wins


def _local_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names a function binds or declares global (memoised on it)."""
    found = getattr(function, "_codemod_local_names", None)
    if found is None:
        names: set[str] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                names.update(node.names)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).partition(".")[0] for a in node.names)
        found = frozenset(names)
        function._codemod_local_names = found  # type: ignore[attr-defined]
    return found


# `global NAME, OTHER` in a function of the module: those names may be bound again.
_GLOBAL_STATEMENT = re.compile(r"^[ \t]*global[ \t]+(\w+(?:[ \t]*,[ \t]*\w+)*)", re.MULTILINE)


def _module_bindings(symbols: ModuleSymbols) -> dict[str, int]:
    """name -> how many times the module binds it: its top-level code (assignments, loops,
    `with`, imports), and twice more for a `global` statement, which lets a function bind it
    again (read from the text: the functions themselves stay unparsed); memoised."""
    found = getattr(symbols, "_codemod_bindings", None)
    if found is None:
        found = {}
        for stmt in symbols.header:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                    found[node.id] = found.get(node.id, 0) + 1
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    for alias in node.names:
                        name = (alias.asname or alias.name).partition(".")[0]
                        found[name] = found.get(name, 0) + 1
        for match in _GLOBAL_STATEMENT.finditer(symbols.text):
            for name in re.split(r"[ \t]*,[ \t]*", match.group(1)):
                found[name] = found.get(name, 0) + 2
        symbols._codemod_bindings = found  # type: ignore[attr-defined]
    return found


def _module_assignments(symbols: ModuleSymbols) -> dict[str, ast.expr]:
    """name -> value of the module's top-level single-name assignments (and those directly
    under a top-level `if`, where `if TYPE_CHECKING:` keeps annotation aliases); memoised."""
    found = getattr(symbols, "_codemod_assignments", None)
    if found is None:
        found = {}
        statements = list(symbols.header)
        for stmt in symbols.header:
            if isinstance(stmt, ast.If):
                statements += stmt.body + stmt.orelse
        for stmt in statements:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                target, value = stmt.target, stmt.value
            else:
                continue
            if isinstance(target, ast.Name):
                found.setdefault(target.id, _parse_annotation(value) or value)
        symbols._codemod_assignments = found  # type: ignore[attr-defined]
    return found


def _annotated_kind(node: ast.expr, evaluator: Evaluator, _depth: int = 0) -> Kind | None:
    if isinstance(node, (ast.Name, ast.Attribute)):
        qualname = evaluator.qualify(node)
        if qualname in tn.TENSOR_ANNOTATIONS:
            return Kind.TENSOR
        # torch.FloatTensor, torch.cuda.LongTensor: the legacy typed classes as annotations
        if qualname is not None and qualname.startswith("torch.") and tn.classify_call(qualname) is tn.CallKind.LEGACY:
            return Kind.TENSOR
        if qualname is None or qualname.startswith("torch.") or _depth >= _MAX_ALIAS_DEPTH:
            return None
        alias = _alias(qualname, evaluator)
        return _annotated_kind(alias[0], alias[1], _depth + 1) if alias is not None else None
    members: list[ast.expr] = []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # Tensor | None
        members = [node.left, node.right]
    elif isinstance(node, ast.Subscript):
        qualified = evaluator.qualify(node.value) or ""
        wrapper = qualified.rpartition(".")[2]
        inner = node.slice
        if qualified.startswith("torchtyping.") and wrapper == "TensorType":
            return Kind.TENSOR  # torchtyping's TensorType["batch", "dim"]
        if qualified.startswith("jaxtyping.") and wrapper in _JAXTYPING_WRAPPERS:
            array = inner.elts[0] if isinstance(inner, ast.Tuple) and inner.elts else inner
            return _annotated_kind(array, evaluator, _depth + 1) if _depth < _MAX_ALIAS_DEPTH else None
        if wrapper == "Optional":
            members = [inner, ast.Constant(None)]
        elif wrapper == "Union":
            members = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
    nones = [m for m in members if isinstance(m, ast.Constant) and m.value is None]
    others = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
    if not others or any(_annotated_kind(m, evaluator, _depth) is None for m in others):
        return None
    return Kind.TENSOR_OR_NONE if nones else Kind.TENSOR


def dotted_path(node: ast.expr) -> str | None:
    """"args.gso" for `args.gso` (a name and its attributes); None otherwise."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or not parts:
        return None
    return ".".join([node.id, *reversed(parts)])


def target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in target_names(e)]
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return []


def is_device_expr(evaluator: Evaluator, node: ast.expr) -> bool:
    """Clearly a device: "cuda:0", torch.device(...), x.device, a variable named device."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(_DEVICE_LITERAL.match(node.value))
    if isinstance(node, ast.Call):
        return evaluator.qualify(node.func) == "torch.device"
    if isinstance(node, ast.Attribute):
        return bool(_DEVICE_WORD.search(node.attr))
    if isinstance(node, ast.Name):
        return bool(_DEVICE_WORD.search(node.id))
    return False


def device_move_args(evaluator: Evaluator, method: str, call: ast.Call) -> str | tuple[tuple[int, ...], tuple[str, ...]] | None:
    """How to undo a device move `.cuda()` / `.cpu()` / `.to(...)`.

    "drop": the call only moves the tensor; (positional indices, keyword names) to
    keep: the call also casts (`.to(device, torch.half)` -> `.to(torch.half)`);
    None: leave it alone (it cannot be read as a move).
    """
    if method in ("cuda", "xpu", "mps"):
        plain_args = all(
            (isinstance(a, ast.Constant) and isinstance(a.value, int)) or is_device_expr(evaluator, a) for a in call.args
        )
        if plain_args and all(kw.arg in ("device", "non_blocking") for kw in call.keywords):
            return "drop"
        return None
    if method == "cpu":
        return "drop" if not call.args and not call.keywords else None
    if method != "to":
        return None
    keep: list[int] = []
    for i, arg in enumerate(call.args):
        if is_device_expr(evaluator, arg):
            continue
        if tn.dtype_is_integer(evaluator.qualify(arg)) is not None:
            keep.append(i)
            continue
        return None  # `.to(other_tensor)` or something we cannot read
    kept_keywords: list[str] = []
    for kw in call.keywords:
        if kw.arg in ("device", "non_blocking"):
            continue
        if kw.arg in ("dtype", "copy", "memory_format"):
            kept_keywords.append(kw.arg)
            continue
        return None
    if not keep and not kept_keywords:
        return "drop"
    if len(keep) == len(call.args) and len(kept_keywords) == len(call.keywords):
        return None  # nothing to remove
    return tuple(keep), tuple(kept_keywords)


_FUNCTION_MEMO_ATTR = "_codemod_value"
_MAX_DEPTH = 8


def function_value(
    index: RepoIndex | None,
    symbols: ModuleSymbols,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    class_methods,
    depth: int,
    self_attrs: dict[str, Value] | None = None,
    arguments: dict[str, Value] | None = None,
) -> Value:
    """The value a helper function returns, when every return gives a tensor (or None).

    self_attrs: for a method, what the caller's self holds; arguments: what one call site passes
    for some parameters.  Either makes the result the caller's own (not memoised)."""
    own = self_attrs is None and arguments is None
    memo = getattr(function, _FUNCTION_MEMO_ATTR, None) if own else None
    if memo is not None:
        value, dependencies = memo
        if index is not None:
            index.note(dependencies)
        return value
    if depth > _MAX_DEPTH:
        return UNKNOWN
    previous = getattr(function, _FUNCTION_MEMO_ATTR, None)
    setattr(function, _FUNCTION_MEMO_ATTR, (UNKNOWN, ()))  # recursion guard
    from codemod.walker import BodyWalker  # local import: walker builds on this module

    def walked() -> tuple[Evaluator, BodyWalker]:
        evaluator = Evaluator(index, symbols, function, class_methods, depth=depth, self_attrs=self_attrs,
                              arguments=arguments)
        walker = BodyWalker(evaluator)
        walker.walk(function.body)
        return evaluator, walker

    (evaluator, walker), dependencies = _tracked(index, walked)
    returns = walker.returns
    plain = not isinstance(function, ast.AsyncFunctionDef) and not _is_generator(function)
    seed = next((v for v in returns if v.is_tensor and not v.is_guess), None)
    if plain and seed is not None and _calls_itself(function) and not all(v.is_tensor for v in returns):
        # `return f(W[None])[0]` beside `return torch.cat(...)`: the recursive calls give what
        # the other returns give, so walk again with that for them (a fixpoint, by induction)
        setattr(function, _FUNCTION_MEMO_ATTR, (seed, ()))
        (evaluator, walker), again = _tracked(index, walked)
        returns, dependencies = walker.returns, dependencies | again
    result = UNKNOWN
    if returns and plain:
        result = returns[0]
        for value in returns[1:]:
            result = merge_branches(result, value)
        if not (result.is_tensor or result.kind is Kind.SEQUENCE or result.elements is not None or result.items is not None):
            # a factory whose every return is a module (`define_G(...)`) keeps the merged module
            if not all(_holds_module(index, value) for value in returns):
                result = UNKNOWN if result.kind is not Kind.NON_TENSOR else NON_TENSOR
    if plain and result.kind is Kind.UNKNOWN:
        # `def load_adj(path) -> torch.Tensor:` whose body the analysis cannot type
        annotated = return_annotation_value(function, evaluator)
        if annotated.kind is not Kind.UNKNOWN:
            result = annotated
    if own:
        setattr(function, _FUNCTION_MEMO_ATTR, (result, dependencies))
    elif previous is not None:
        setattr(function, _FUNCTION_MEMO_ATTR, previous)
    else:
        delattr(function, _FUNCTION_MEMO_ATTR)
    return result


def _calls_itself(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function.name
               for node in ast.walk(function))


def _partly_typed(value: Value) -> bool:
    """Whether a helper's result leaves something untyped that its arguments might settle."""
    if value.kind is Kind.UNKNOWN:
        return True
    return value.elements is not None and any(e.kind is Kind.UNKNOWN for e in value.elements)


def return_annotation_value(function: ast.FunctionDef | ast.AsyncFunctionDef, evaluator: Evaluator) -> Value:
    """What a function's return annotation says it returns: `-> Tensor`, `-> "torch.Tensor"`,
    `-> Optional[Tensor]`, `-> Tuple[Tensor, int]`; UNKNOWN for anything else."""
    annotation = _parse_annotation(function.returns)
    if annotation is None:
        return UNKNOWN
    state = f"value returned by {function.name}() (typed by its return annotation)"
    kind = _annotated_kind(annotation, evaluator)
    if kind is not None:
        return Value(kind, state)
    elements = _annotated_tuple(annotation, evaluator)
    if elements is not None:
        values = tuple(Value(k, state) if k in (Kind.TENSOR, Kind.TENSOR_OR_NONE) else (NON_TENSOR if k is Kind.NON_TENSOR else UNKNOWN) for k in elements)
        if any(v.is_tensor for v in values):
            return Value(Kind.SEQUENCE, state, elements=values)
        return UNKNOWN
    if _annotated_container(annotation, evaluator) is Kind.SEQUENCE:
        return Value(Kind.SEQUENCE, state)
    return UNKNOWN


_SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool", "str", "bytes", "complex"})


def _annotated_tuple(node: ast.expr, evaluator: Evaluator) -> list[Kind] | None:
    """`Tuple[Tensor, int]` / `tuple[Tensor, Tensor]`: the kind of each member (NON_TENSOR
    for a plain scalar type, UNKNOWN for anything else)."""
    if not isinstance(node, ast.Subscript):
        return None
    wrapper = (evaluator.qualify(node.value) or "").rpartition(".")[2]
    if wrapper not in ("tuple", "Tuple"):
        return None
    members = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if any(isinstance(m, ast.Constant) and m.value is Ellipsis for m in members):
        return None
    kinds: list[Kind] = []
    for member in members:
        kind = _annotated_kind(member, evaluator)
        if kind is None:
            name = member.id if isinstance(member, ast.Name) else None
            kind = Kind.NON_TENSOR if name in _SCALAR_ANNOTATIONS else Kind.UNKNOWN
        kinds.append(kind)
    return kinds


def _is_generator(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in ast.walk(function):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
    return False
