"""Generate ``codemod/torch_table.py``: what the names torch exposes return.

The static scan must not import torch (that alone takes over a second), so it
consults a plain table instead.  Everything in the table is derived from the
installed torch:

* C-implemented functions and methods: the aten operator schemas registered
  with the dispatcher (``torch._C._jit_get_all_schemas``), falling back to the
  ``.pyi`` stubs torch ships for its C bindings, then to TorchScript-only
  builtin schemas;
* Python-level functions: return annotations (including ``typing.overload``
  and TorchScript ``_overload`` variants, ``boolean_dispatch`` branches and
  ``# type:`` comments), falling back to the aten op TorchScript maps them to;
* classes: the class hierarchy (nn.Module subclasses, tensor types, dtypes),
  and ``torch._tensor_classes`` for the legacy typed constructors wherever
  torch defines them (``torch.FloatTensor``, ``torch.cuda.LongTensor``,
  ``torch.sparse.FloatTensor``, ``torch.cuda.sparse.LongTensor``, ...);
* the public namespaces below ``torch`` whose functions make tensors
  (``SUBMODULES``: torch.sparse, torch.linalg, torch.fft, torch.special,
  torch.signal.windows, ...), classified like the top-level functions;
* last, for an unannotated Python function or tensor method that none of the
  above describes, a probe: it is called with a tiny float tensor, and a
  result that is a tensor (or a tuple of tensors) says so;
* integer results: every torch function and tensor method that returns a
  tensor is called with tiny float inputs (``torch.rand(3)``, ``0``, ``3``,
  ``3.0``: see ``_probe_results``); one whose every successful call gives an
  integer or bool tensor is recorded as integer whatever its input (argmax,
  eq, isnan, ...; not arange, whose ``3.0`` gives floats), and so is each
  position of a returned tuple that is integer in every call (sort's indices).

A handful of hand-written supplements cover what torch cannot tell; each says
why.

    python -m codemod.tools.generate_torch_table           # rewrite the table
    python -m codemod.tools.generate_torch_table --check   # exit 1 if stale
    python -m codemod.tools.generate_torch_table --explain # print doubtful names
"""

from __future__ import annotations

import argparse
import ast
import builtins
import collections.abc
import difflib
import functools
import importlib
import inspect
import json
import pkgutil
import sys
import types
import typing
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

import torch
import torch._jit_internal as jit_internal
import torch.jit._builtins as jit_builtins
import torch.jit.annotations as jit_annotations
import torch.nn
import torch.nn.functional
import torch.nn.init

TABLE_PATH = Path(__file__).resolve().parent.parent / "torch_table.py"
COMMAND = "python -m codemod.tools.generate_torch_table"

# What a call returns, as far as torch says.
TENSOR = "tensor"
SEQUENCE = "sequence"  # a list/tuple whose items are all tensors
OTHER = "other"  # never a tensor: None, scalars, dtypes, mixed containers, ...
MIXED = "mixed"  # a tensor for some overloads or arguments, not for others
UNKNOWN = "unknown"  # torch does not say (no schema, no annotation, Any)

_MISSING = object()

# --- hand-written supplements: only what torch itself cannot tell ----------

# aten ops that draw from the default generator but take no ``generator``
# argument, so the schema rule below cannot see them.
RNG_OPS_WITHOUT_GENERATOR_ARG = frozenset(
    {
        "alpha_dropout",
        "alpha_dropout_",
        "dropout",
        "dropout_",
        "feature_alpha_dropout",
        "feature_alpha_dropout_",
        "feature_dropout",
        "feature_dropout_",
        "native_dropout",
    }
)

# torch.nn.functional helpers that are random but reach the RNG through ops
# of another name (feature_dropout, exponential_, internal random samples).
RNG_FUNCTIONAL_EXTRA = frozenset(
    {
        "dropout1d",
        "dropout2d",
        "dropout3d",
        "fractional_max_pool2d",
        "fractional_max_pool2d_with_indices",
        "fractional_max_pool3d",
        "fractional_max_pool3d_with_indices",
        "gumbel_softmax",
    }
)

# Callables (dotted, relative to ``torch``) whose results are never tensors
# but whose annotations say ``Any`` or nothing at all.
NON_TENSOR_CALLABLES_EXTRA = frozenset(
    {
        "compile",  # returns a compiled callable / OptimizedModule
        "jit.load",  # ScriptModule
        "jit.script",  # ScriptModule / ScriptFunction
        "jit.trace",  # ScriptModule / ScriptFunction
        "jit.trace_module",  # ScriptModule
    }
)

# Submodules whose public classes and non-tensor functions are recorded in
# NON_TENSOR_TORCH_CALLABLES (top-level functions have their own tables).
NON_TENSOR_SUBMODULES = ("cuda", "jit")

# Public namespaces below torch whose functions are classified like torch's own
# (dotted relative to torch).  Only what each defines (or binds from torch's C
# modules) counts, not the typing helpers they import.
SUBMODULES = (
    "autograd",
    "fft",
    "linalg",
    "masked",
    "nested",
    "nn.utils.rnn",
    "random",
    "signal.windows",
    "sparse",
    "special",
)


# --- combining kinds ---------------------------------------------------------


def combine(kinds: Iterable[str]) -> str:
    """The kind of a union / of all overloads of one name."""
    kinds = set(kinds)
    known = kinds - {UNKNOWN}
    if MIXED in known or len(known) > 1:
        return MIXED
    if UNKNOWN in kinds or not known:
        return UNKNOWN
    return known.pop()


def container_kind(item_kinds: list[str]) -> str:
    # A container is never a tensor itself; it only counts as a sequence of
    # tensors when every item is one.
    if item_kinds and all(k == TENSOR for k in item_kinds):
        return SEQUENCE
    return OTHER


# --- operator schemas --------------------------------------------------------


def _schema_type_kind(t: torch._C.JitType) -> str:
    kind = t.kind()
    if kind == "TensorType":
        return TENSOR
    if kind == "OptionalType":
        return combine([_schema_type_kind(t.getElementType()), OTHER])
    if kind == "ListType":
        return container_kind([_schema_type_kind(t.getElementType())])
    if kind == "TupleType":
        return container_kind([_schema_type_kind(e) for e in t.elements()])
    if kind == "UnionType":
        return combine(_schema_type_kind(e) for e in t.containedTypes())
    if kind in ("AnyType", "VarType", "AnyListType", "AnyTupleType", "AnyClassType"):
        return UNKNOWN
    return OTHER


def schema_kind(schema: torch._C.FunctionSchema) -> str:
    returns = schema.returns
    if not returns:
        return OTHER
    if len(returns) == 1:
        return _schema_type_kind(returns[0].type)
    return container_kind([_schema_type_kind(r.type) for r in returns])


def _mentions_tensor(t: torch._C.JitType) -> bool:
    return t.kind() == "TensorType" or any(_mentions_tensor(c) for c in t.containedTypes())


def _touches_tensor(schema: torch._C.FunctionSchema) -> bool:
    return any(_mentions_tensor(a.type) for a in [*schema.arguments, *schema.returns])


def _has_generator(schema: torch._C.FunctionSchema) -> bool:
    # ``Generator? generator`` marks a sampling op; seeding ops take the
    # generator as ``self`` and draw nothing.
    return any(a.name == "generator" and "Generator" in str(a.type) for a in schema.arguments)


def _is_method_schema(schema: torch._C.FunctionSchema) -> bool:
    return any(a.name == "self" and a.type.kind() == "TensorType" for a in schema.arguments)


def _is_list_out_variant(schema: torch._C.FunctionSchema) -> bool:
    # ``split_copy.Tensor_out(..., Tensor(a!)[] out) -> ()``: the out= form of
    # a list-returning op returns nothing; nobody initialises an attribute
    # with it, and counting it would make every such op look mixed.
    return not schema.returns and any(a.is_out for a in schema.arguments)


class Schemas:
    """aten schemas by op name, split into native ops and TorchScript-only ones.

    Native ops (registered with the dispatcher) are what the Python bindings
    are generated from.  TorchScript also registers builtins under ``aten::``
    (``aten::add.int``, ``aten::sort.Tensor`` sorting a list, ...) that no
    Python call reaches; they are only consulted when nothing native exists.
    """

    def __init__(self) -> None:
        self.native: dict[str, list] = defaultdict(list)
        self.script: dict[str, list] = defaultdict(list)
        # prim::<attr>(Tensor a) is how TorchScript reads tensor attributes.
        self.attributes: dict[str, list] = defaultdict(list)
        for schema in torch._C._jit_get_all_schemas():
            namespace, _, name = schema.name.partition("::")
            if namespace == "prim":
                args = schema.arguments
                if len(args) == 1 and args[0].type.kind() == "TensorType":
                    self.attributes[name].append(schema)
                continue
            if namespace != "aten" or _is_list_out_variant(schema):
                continue
            try:
                torch._C._dispatch_find_schema_or_throw(schema.name, schema.overload_name)
            except RuntimeError:
                self.script[name].append(schema)
            else:
                self.native[name].append(schema)

    def native_for(self, name: str, method: bool = False) -> list:
        found = self.native.get(name, [])
        return [s for s in found if _is_method_schema(s)] if method else list(found)

    def script_for(self, name: str, method: bool = False) -> list:
        found = self.script.get(name, [])
        # Scalar/list builtins that share a name with a tensor op are noise.
        tensorish = [s for s in found if _touches_tensor(s)]
        found = tensorish or found
        return [s for s in found if _is_method_schema(s)] if method else found

    def kind(self, name: str, method: bool = False, script: bool = True) -> str:
        found = self.native_for(name, method)
        if not found and script:
            found = self.script_for(name, method)
        return combine(schema_kind(s) for s in found) if found else UNKNOWN

    def attribute_kind(self, name: str) -> str:
        found = self.attributes.get(name, [])
        return combine(schema_kind(s) for s in found) if found else UNKNOWN

    def struct_kind(self, name: str) -> str:
        """Kind of ``torch.return_types.<name>``: the multi-return overloads of aten::<name>."""
        found = [s for s in self.native.get(name, []) if len(s.returns) > 1]
        return combine(schema_kind(s) for s in found) if found else SEQUENCE

    def random(self, name: str, method: bool = False) -> bool:
        if name in RNG_OPS_WITHOUT_GENERATOR_ARG:
            return True
        found = self.native_for(name, method) or self.script_for(name, method)
        return any(_has_generator(s) for s in found)


@functools.cache
def schemas() -> Schemas:
    return Schemas()


# --- annotations -------------------------------------------------------------


def annotation_kind(
    ann: object, resolve: Callable[[str], object] | None = None, self_kind: str = UNKNOWN
) -> str:
    """Kind of a runtime return annotation (strings are resolved via ``resolve``)."""
    if ann is inspect.Signature.empty or ann is typing.Any or ann is object:
        return UNKNOWN
    if ann is None or ann is type(None):
        return OTHER
    if isinstance(ann, typing.ForwardRef):
        ann = ann.__forward_arg__
    if isinstance(ann, str):
        try:
            node = ast.parse(ann, mode="eval").body
        except SyntaxError:
            return UNKNOWN
        return node_kind(node, resolve or (lambda _: _MISSING), self_kind)
    if isinstance(ann, typing.TypeVar):
        return annotation_kind(ann.__bound__, resolve, self_kind) if ann.__bound__ else UNKNOWN
    if getattr(ann, "_name", None) == "Self" or repr(ann).endswith(".Self"):
        return self_kind
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Union or origin is types.UnionType:
        return combine(annotation_kind(a, resolve, self_kind) for a in args)
    if origin is typing.Annotated:
        return annotation_kind(args[0], resolve, self_kind)
    if origin in (tuple, list, collections.abc.Sequence, collections.abc.MutableSequence):
        if len(args) == 2 and args[1] is Ellipsis:
            args = args[:1]
        if args == ((),):
            args = ()
        return container_kind([annotation_kind(a, resolve, self_kind) for a in args])
    if origin is not None:
        return OTHER  # Callable[...], dict[...], Literal[...], TypeIs[...], ...
    if isinstance(ann, type):
        if issubclass(ann, torch.Tensor):
            return TENSOR
        if issubclass(ann, tuple) and ann.__module__ == "torch.return_types":
            return schemas().struct_kind(ann.__name__)  # structseq of an aten op's returns
        return OTHER
    return UNKNOWN


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def node_kind(
    node: ast.expr, resolve: Callable[[str], object], self_kind: str = UNKNOWN
) -> str:
    """Kind of an annotation given as source (stubs, string annotations, type comments)."""

    def kind(n: ast.expr) -> str:
        return node_kind(n, resolve, self_kind)

    if isinstance(node, ast.Constant):
        if node.value is None:
            return OTHER
        if isinstance(node.value, str):
            return annotation_kind(node.value, resolve, self_kind)
        return UNKNOWN
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return combine([kind(node.left), kind(node.right)])
    if isinstance(node, ast.Tuple):  # "-> (Tensor, Tensor)" in type comments
        return container_kind([kind(e) for e in node.elts])
    if isinstance(node, ast.Subscript):
        head = (_dotted(node.value) or "").rsplit(".", 1)[-1]
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            return combine([kind(items[0]), OTHER])
        if head == "Union":
            return combine(kind(i) for i in items)
        if head == "Annotated":
            return kind(items[0])
        if head in ("tuple", "Tuple", "list", "List", "Sequence", "MutableSequence"):
            last = items[-1]
            if len(items) == 2 and isinstance(last, ast.Constant) and last.value is Ellipsis:
                items = items[:1]
            if len(items) == 1 and isinstance(items[0], ast.Tuple) and not items[0].elts:
                items = []
            return container_kind([kind(i) for i in items])
        return OTHER  # Callable[...], dict[...], Literal[...], TypeIs[...], ...
    name = _dotted(node)
    if name is None:
        return UNKNOWN
    if name == "Self":
        return self_kind
    obj = resolve(name)
    if obj is not _MISSING:
        return annotation_kind(obj, resolve, self_kind)
    if name.rsplit(".", 1)[-1] == "Tensor":
        return TENSOR
    if name.startswith("torch.return_types."):
        return schemas().struct_kind(name.rsplit(".", 1)[-1])
    return UNKNOWN


def _chain(obj: object, parts: list[str]) -> object:
    for part in parts:
        obj = getattr(obj, part, _MISSING)
        if obj is _MISSING:
            break
    return obj


def resolver(*namespaces: dict) -> Callable[[str], object]:
    """Resolve dotted names against the given namespaces, then builtins/typing."""
    scopes = [*namespaces, vars(typing), vars(builtins)]

    def resolve(name: str) -> object:
        head, *rest = name.split(".")
        for scope in scopes:
            if head in scope:
                return _chain(scope[head], rest)
        if head in sys.modules:
            return _chain(sys.modules[head], rest)
        return _MISSING

    return resolve


# --- .pyi stubs of the C bindings --------------------------------------------


class Stub:
    """Return annotations from one of torch's ``_C/*.pyi`` stubs."""

    def __init__(self, filename: str) -> None:
        path = Path(torch._C.__file__).parent / "_C" / filename
        if not path.exists():  # torch._C is an extension module next to _C/
            path = Path(torch.__file__).parent / "_C" / filename
        tree = ast.parse(path.read_text(encoding="utf-8"))
        self.functions: dict[str, list] = defaultdict(list)
        self.methods: dict[str, list] = defaultdict(list)  # of TensorBase
        self.properties: dict[str, ast.expr] = {}  # of TensorBase
        typevars: dict[str, str] = {}
        imports: dict[str, tuple[str, str | None]] = {}  # local name -> (module, attr)
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
                for alias in stmt.names:
                    imports[alias.asname or alias.name] = (stmt.module, alias.name)
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        imports[alias.asname] = (alias.name, None)
            elif isinstance(stmt, ast.FunctionDef):
                self.functions[stmt.name].append(stmt.returns)
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                # K = TypeVar("K", bound=...): resolve to the bound or Any.
                if _dotted(stmt.value.func) == "TypeVar" and len(stmt.targets) == 1:
                    bound = next((k.value for k in stmt.value.keywords if k.arg == "bound"), None)
                    bound_name = _dotted(bound) if bound is not None else None
                    typevars[_dotted(stmt.targets[0]) or ""] = bound_name or "Any"
            elif isinstance(stmt, ast.ClassDef) and stmt.name == "TensorBase":
                for item in stmt.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        self.properties[item.target.id] = item.annotation
                    elif isinstance(item, ast.FunctionDef):
                        decorators = {_dotted(d) for d in item.decorator_list}
                        if "property" in decorators:
                            self.properties[item.name] = item.returns
                        elif not any(d and d.endswith(".setter") for d in decorators):
                            self.methods[item.name].append(item.returns)
        base = resolver(vars(torch._C))

        def resolve(name: str) -> object:
            if name in typevars:
                return base(typevars[name])
            head, _, rest = name.partition(".")
            if head in imports:
                module_name, attr = imports[head]
                try:
                    obj = importlib.import_module(module_name)
                except Exception:
                    return _MISSING
                if attr is not None:
                    obj = getattr(obj, attr, _MISSING)
                return _chain(obj, rest.split(".")) if rest and obj is not _MISSING else obj
            return base(name)

        self.resolve = resolve

    def _kind(self, returns: list) -> str:
        if not returns:
            return UNKNOWN
        return combine(
            UNKNOWN if r is None else node_kind(r, self.resolve, self_kind=TENSOR) for r in returns
        )

    def function_kind(self, name: str) -> str:
        return self._kind(self.functions.get(name, []))

    def method_kind(self, name: str) -> str:
        return self._kind(self.methods.get(name, []))

    def property_kind(self, name: str) -> str:
        ann = self.properties.get(name)
        return UNKNOWN if ann is None else node_kind(ann, self.resolve, self_kind=TENSOR)


# --- classifying one callable ------------------------------------------------


def _type_comment_kind(fn: Callable) -> str:
    """TorchScript ``# type: (...) -> T`` comments, used where annotations are absent."""
    try:
        line = jit_annotations.get_type_line(inspect.getsource(fn))
    except (OSError, TypeError, RuntimeError):
        return UNKNOWN
    if not line or "->" not in line:
        return UNKNOWN
    ret = line.split("->", 1)[1].strip()
    try:
        node = ast.parse(ret, mode="eval").body
    except SyntaxError:
        return UNKNOWN
    scope = {"Tensor": torch.Tensor, **getattr(fn, "__globals__", {})}
    return node_kind(node, resolver(scope))


def _script_signature_kind(fn: Callable) -> str:
    """Return kind TorchScript compiles a ``torch.jit._overload`` variant with.

    TorchScript takes an unannotated return to be a Tensor, and these variants
    exist only to be compiled, so that is the type torch itself declares.
    """
    try:
        signature = jit_annotations.get_signature(fn, None, None, False)
    except Exception:
        return UNKNOWN
    return _schema_type_kind(signature[1]) if signature else UNKNOWN


def _single_function_kind(fn: Callable, self_kind: str) -> str:
    globalns = getattr(fn, "__globals__", {})
    try:
        ann = typing.get_type_hints(fn).get("return", inspect.Signature.empty)
    except Exception:  # unresolvable names anywhere in the signature
        try:
            ann = inspect.signature(fn).return_annotation
        except (TypeError, ValueError):
            ann = inspect.Signature.empty
    if ann is inspect.Signature.empty:
        return _type_comment_kind(fn)
    return annotation_kind(ann, resolver(globalns), self_kind)


def python_function_kind(fn: Callable, self_kind: str = UNKNOWN) -> str:
    fn = inspect.unwrap(fn)
    dispatched = jit_internal.boolean_dispatched.get(fn)
    if dispatched:  # the result type depends on a bool argument
        branches = (dispatched["if_true"], dispatched["if_false"])
        return combine(python_function_kind(b, self_kind) for b in branches)
    kinds = [_single_function_kind(v, self_kind) for v in typing.get_overloads(fn)]
    try:
        script_variants = jit_internal._get_fn_overloads(jit_internal._qualified_name(fn)) or []
    except Exception:
        script_variants = []
    for variant in script_variants:
        kind = _single_function_kind(variant, self_kind)
        kinds.append(kind if kind != UNKNOWN else _script_signature_kind(variant))
    if kinds:
        return combine(kinds)
    return _single_function_kind(fn, self_kind)


def _has_generator_param(fn: Callable) -> bool:
    try:
        return "generator" in inspect.signature(inspect.unwrap(fn)).parameters
    except (TypeError, ValueError):
        return False


def _builtin_aten_name(fn: Callable) -> str | None:
    """The aten op TorchScript compiles a Python-level torch function to, if any."""
    try:
        qualified = jit_builtins._find_builtin(fn)
    except Exception:
        return None
    if qualified and qualified.startswith("aten::"):
        return qualified[len("aten::") :]
    return None


def _public(namespace: object) -> list[tuple[str, object]]:
    out = []
    for name in dir(namespace):
        if name.startswith("_"):
            continue
        try:
            out.append((name, getattr(namespace, name)))
        except Exception:  # lazily-loaded attributes that fail on this build
            continue
    return out


class Classifier:
    def __init__(self) -> None:
        self.schemas = schemas()
        self.stubs = {
            "torch._C._VariableFunctions": Stub("_VariableFunctions.pyi"),
            "torch._C._nn": Stub("_nn.pyi"),
            "torch._C": Stub("__init__.pyi"),
        }
        self.c_modules = {
            "torch._C._VariableFunctions": torch._C._VariableFunctions,
            "torch._C._nn": torch._C._nn,
            "torch._C": torch._C,
        }
        self.notes: list[str] = []  # doubtful classifications, for --explain

    def _stub_kind(self, fn: object) -> str:
        # The stub of the C module holding fn first; some bindings live in
        # torch._C but are declared in _VariableFunctions.pyi, so then the rest.
        name = fn.__name__
        keys = sorted(self.stubs, key=lambda k: getattr(self.c_modules[k], name, None) is not fn)
        for key in keys:
            kind = self.stubs[key].function_kind(name)
            if kind != UNKNOWN:
                return kind
        return UNKNOWN

    def _merge(self, schema_kind_: str, stub_kind: str, label: str) -> str:
        # Schemas win, except that a Python binding may add a mode the schema
        # lacks (nonzero(as_tuple=True) returns a tuple), which only the stub's
        # overloads show.  Other disagreements are stub slips (split_copy is
        # declared "-> None" yet returns a tuple).
        if schema_kind_ == UNKNOWN:
            return stub_kind
        if stub_kind in (UNKNOWN, schema_kind_):
            return schema_kind_
        if stub_kind == MIXED:
            self.notes.append(f"{label}: schemas say {schema_kind_}, stub says mixed: mixed")
            return MIXED
        self.notes.append(
            f"{label}: schemas say {schema_kind_}, stub says {stub_kind}: kept {schema_kind_}"
        )
        return schema_kind_

    def builtin_kind(self, fn: object, label: str) -> str:
        name = fn.__name__
        kind = self._merge(self.schemas.kind(name, script=False), self._stub_kind(fn), label)
        if kind == UNKNOWN:
            kind = self.schemas.kind(name)
        return kind

    def function_kind(self, fn: object, label: str, same_name_op: bool = False) -> str:
        if isinstance(fn, types.BuiltinFunctionType):
            return self.builtin_kind(fn, label)
        if not inspect.isfunction(inspect.unwrap(fn)):
            return UNKNOWN
        kind = python_function_kind(fn)
        if kind == UNKNOWN:
            aten = _builtin_aten_name(fn)
            if aten:
                kind = self.schemas.kind(aten)
        if kind == UNKNOWN and same_name_op:
            # Unannotated thin wrappers (F.sigmoid -> input.sigmoid()).
            kind = self.schemas.kind(fn.__name__, script=False)
            if kind != UNKNOWN:
                self.notes.append(f"{label}: unannotated, taken from aten::{fn.__name__}: {kind}")
        return kind

    def function_random(self, fn: object) -> bool:
        if isinstance(fn, types.BuiltinFunctionType):
            return self.schemas.random(fn.__name__)
        if _has_generator_param(fn):
            return True
        aten = _builtin_aten_name(fn)
        return bool(aten) and self.schemas.random(aten)

    def tensor_member(self, name: str) -> tuple[str, str]:
        """("method" | "property", kind) for a public attribute of torch.Tensor."""
        raw = inspect.getattr_static(torch.Tensor, name)
        tensorbase = self.stubs["torch._C"]
        if isinstance(raw, (property, types.GetSetDescriptorType, types.MemberDescriptorType)):
            if isinstance(raw, property) and raw.fget is not None:
                kind = python_function_kind(raw.fget, self_kind=TENSOR)
            else:
                kind = tensorbase.property_kind(name)
            if kind == UNKNOWN:
                kind = self.schemas.attribute_kind(name)
            if kind == MIXED:
                # ``grad``: Optional[Tensor]; whenever it holds a value, that is a tensor.
                self.notes.append(f"Tensor.{name}: Optional[Tensor] property, counted as tensor")
                kind = TENSOR
            return "property", kind
        if isinstance(raw, (staticmethod, classmethod)):
            raw = raw.__func__
        if inspect.isfunction(raw):
            kind = python_function_kind(raw, self_kind=TENSOR)
            torch_fn = getattr(torch, name, None)
            if kind == UNKNOWN and callable(torch_fn) and not isinstance(torch_fn, type):
                # Python methods delegate to the torch function of that name
                # (Tensor.unique -> torch.unique), which may post-process the op.
                kind = self.function_kind(torch_fn, f"torch.{name}")
            if kind == UNKNOWN:
                kind = self.schemas.kind(name, method=True, script=False)
        else:
            kind = self._merge(
                self.schemas.kind(name, method=True, script=False),
                tensorbase.method_kind(name),
                f"Tensor.{name}",
            )
        if kind == UNKNOWN:
            kind = self.schemas.kind(name, method=True)
        if kind == UNKNOWN and isinstance(getattr(torch, name, None), torch.dtype):
            # Conversion methods named after a dtype (cfloat, cdouble, ...).
            self.notes.append(f"Tensor.{name}: unknown, counted as tensor (dtype conversion)")
            kind = TENSOR
        if kind == UNKNOWN and name.endswith("_"):
            # In-place methods return self.
            self.notes.append(f"Tensor.{name}: unknown, counted as tensor (in-place)")
            kind = TENSOR
        if kind == UNKNOWN and inspect.isfunction(raw):
            kind = probe_kind(_method_caller(name), ("",))
            if kind != UNKNOWN:
                self.notes.append(f"Tensor.{name}: unannotated, probed on a tensor: {kind}")
        return "method", kind

    def tensor_member_random(self, name: str) -> bool:
        raw = inspect.getattr_static(torch.Tensor, name)
        if inspect.isfunction(raw) and _has_generator_param(raw):
            return True
        return self.schemas.random(name, method=True)


# --- probing with tiny inputs ------------------------------------------------

# Argument lists a probe calls a function (or, without the receiver, a tensor
# method) with: a float tensor, two of them, a dimension, sizes as int and float.
# A float result from any one of them (arange(3.0)) shows that the result is not
# integer whatever the input.
_PROBE_FUNCTION_ARGS = ("x", "x,x", "x,0", "3", "3,3", "3.0", "3.0,3.0")
_PROBE_METHOD_ARGS = ("", "x", "0", "3", "3.0")


def _probe_args(pattern: str) -> tuple:
    values = {"x": lambda: torch.rand(3), "0": lambda: 0, "3": lambda: 3, "3.0": lambda: 3.0}
    return tuple(values[p]() for p in pattern.split(",") if p)


def _result_shape(result: object) -> tuple[str, tuple[bool, ...]] | None:
    """("tensor", (integer,)) or ("sequence", (integer, ...)) for a probe's result."""

    def integer(t: torch.Tensor) -> bool:
        return _is_integer_dtype(t.dtype)

    if isinstance(result, torch.Tensor):
        return "tensor", (integer(result),)
    if isinstance(result, (tuple, list)) and result and all(isinstance(r, torch.Tensor) for r in result):
        return "sequence", tuple(integer(r) for r in result)
    if isinstance(result, (tuple, list, torch.Tensor)):
        return None
    return "other", ()


@functools.cache
def _probe_results(call: Callable, patterns: tuple[str, ...]) -> tuple:
    """What `call` returns for each argument pattern that it accepts (tiny tensors on
    the CPU, the RNG seeded first so that the run is the same every time)."""
    out = []
    for pattern in patterns:
        torch.manual_seed(0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                shape = _result_shape(call(*_probe_args(pattern)))
        except Exception:
            continue
        if shape is not None:
            out.append(shape)
    return tuple(out)


@functools.cache
def _method_caller(name: str) -> Callable:
    return functools.partial(_call_method, name)


def _call_method(name: str, *args: object) -> object:
    return getattr(torch.rand(3), name)(*args)


def probe_kind(call: Callable, patterns: tuple[str, ...]) -> str:
    """TENSOR or SEQUENCE when every accepted probe returns that; UNKNOWN otherwise
    (the arguments a probe does not try may give something else)."""
    shapes = {kind for kind, _ in _probe_results(call, patterns)}
    if shapes == {"tensor"}:
        return TENSOR
    if shapes == {"sequence"}:
        return SEQUENCE
    return UNKNOWN


def unpacks_to_tensors(call: Callable, patterns: tuple[str, ...]) -> bool:
    """Whether every accepted probe returns a tensor or a tuple of tensors, so that
    unpacking the result (`values, indices = torch.max(x, 1)`) gives tensors."""
    kinds = {kind for kind, _ in _probe_results(call, patterns)}
    return bool(kinds) and kinds <= {"tensor", "sequence"}


def integer_result(call: Callable, patterns: tuple[str, ...]) -> bool:
    """Whether every accepted probe returns one integer or bool tensor."""
    results = _probe_results(call, patterns)
    return bool(results) and all(kind == "tensor" and flags[0] for kind, flags in results)


def integer_positions(call: Callable, patterns: tuple[str, ...]) -> tuple[int, ...]:
    """Positions of a returned tuple that are integer in every probe returning a tuple."""
    tuples = [flags for kind, flags in _probe_results(call, patterns) if kind == "sequence"]
    if not tuples:
        return ()
    length = min(len(flags) for flags in tuples)
    return tuple(i for i in range(length) if all(flags[i] for flags in tuples))


# --- building the tables -----------------------------------------------------


def _split_by_kind(kinds: dict[str, str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {k: set() for k in (TENSOR, SEQUENCE, OTHER, MIXED, UNKNOWN)}
    for name, kind in kinds.items():
        out[kind].add(name)
    return out


def _is_tensor_type(obj: object) -> bool:
    # torch.Tensor and its subclasses, plus the legacy typed constructors
    # (torch.FloatTensor, torch.cuda.LongTensor, ...) that torch registers in
    # _tensor_classes; they are not Tensor subclasses.
    if not isinstance(obj, type):
        return False
    return issubclass(obj, torch.Tensor) or obj in getattr(torch, "_tensor_classes", ())


def _legacy_dtype(obj: type) -> torch.dtype:
    dtype = getattr(obj, "dtype", None)
    return dtype if isinstance(dtype, torch.dtype) else torch.get_default_dtype()


def _is_integer_dtype(dtype: torch.dtype) -> bool:
    if dtype is torch.bool:
        return True
    if dtype.is_floating_point or dtype.is_complex:
        return False
    try:
        torch.iinfo(dtype)
    except (TypeError, RuntimeError):
        return False  # quantized / bit-packed dtypes are neither
    return True


def _torch_functions(clf: Classifier) -> dict[str, object]:
    tables: dict[str, object] = {}
    kinds: dict[str, str] = {}
    random: set[str] = set()
    for name, obj in _public(torch):
        if isinstance(obj, (types.ModuleType, type)) or not callable(obj):
            continue
        kind = clf.function_kind(obj, f"torch.{name}")
        if kind == UNKNOWN:
            clf.notes.append(f"torch.{name}: unknown, left out")
        kinds[name] = kind
        if clf.function_random(obj):
            random.add(name)
    by_kind = _split_by_kind(kinds)
    tables["TORCH_TENSOR_FUNCTIONS"] = by_kind[TENSOR]
    tables["TORCH_SEQUENCE_FUNCTIONS"] = by_kind[SEQUENCE]
    tables["TORCH_MIXED_FUNCTIONS"] = by_kind[MIXED]
    tables["TORCH_NON_TENSOR_FUNCTIONS"] = by_kind[OTHER]
    tables["RANDOM_FUNCTIONS"] = random
    probed = {n: getattr(torch, n) for n in by_kind[TENSOR] | by_kind[SEQUENCE] | by_kind[MIXED]}
    tables["INTEGER_RESULT_FUNCTIONS"] = {
        n for n, f in probed.items() if kinds[n] != SEQUENCE and integer_result(f, _PROBE_FUNCTION_ARGS)
    }
    tables["MIXED_UNPACKING_TO_TENSORS"] = {
        n for n in by_kind[MIXED] if unpacks_to_tensors(getattr(torch, n), _PROBE_FUNCTION_ARGS)
    }
    tables["INTEGER_RETURN_POSITIONS"] = {
        n: positions for n, f in probed.items() if (positions := integer_positions(f, _PROBE_FUNCTION_ARGS))
    }
    return tables


def _functional(clf: Classifier) -> dict[str, object]:
    F = torch.nn.functional
    kinds: dict[str, str] = {}
    random: set[str] = set()
    for name, obj in _public(F):
        if isinstance(obj, (types.ModuleType, type)) or not callable(obj):
            continue
        module = getattr(obj, "__module__", None) or ""
        # Only what F defines or binds itself, not helpers it imports.
        if inspect.isfunction(obj):
            if module != F.__name__:
                continue
        elif not isinstance(obj, types.BuiltinFunctionType):
            continue
        elif module not in ("torch", "torch._C._nn"):
            continue
        kind = clf.function_kind(obj, f"F.{name}", same_name_op=True)
        if kind == UNKNOWN and inspect.isfunction(obj):
            kind = probe_kind(obj, ("x",))
            if kind != UNKNOWN:
                clf.notes.append(f"F.{name}: unannotated, probed with a tensor: {kind}")
        if kind == UNKNOWN:
            clf.notes.append(f"F.{name}: unknown, left out")
        kinds[name] = kind
        same_name_op = name if inspect.isfunction(obj) else obj.__name__
        if name in RNG_FUNCTIONAL_EXTRA or clf.function_random(obj):
            random.add(name)
        elif clf.schemas.random(same_name_op):  # F.dropout -> aten::dropout
            random.add(name)
    by_kind = _split_by_kind(kinds)
    return {
        "FUNCTIONAL_TENSOR_FUNCTIONS": by_kind[TENSOR],
        "FUNCTIONAL_SEQUENCE_FUNCTIONS": by_kind[SEQUENCE],
        "FUNCTIONAL_MIXED_FUNCTIONS": by_kind[MIXED],
        "FUNCTIONAL_NON_TENSOR_FUNCTIONS": by_kind[OTHER],
        "RANDOM_FUNCTIONAL_FUNCTIONS": random,
    }


def _not_on_other_values(methods: set[str]) -> set[str]:
    """The Tensor methods that no other value a module commonly keeps has under that name: a
    numpy array, an nn.Module, the builtin containers, strings and numbers (`x.mul(y)`,
    `x.unsqueeze(0)`, but not `x.sum()`, which an array has too)."""
    import numpy

    others = (numpy.ndarray, numpy.generic, torch.nn.Module, list, dict, set, tuple, str, bytes, int, float, complex)
    return {name for name in methods if not any(hasattr(other, name) for other in others)}


def _init(clf: Classifier) -> dict[str, object]:
    tensor, random = set(), set()
    for name, obj in _public(torch.nn.init):
        if not inspect.isfunction(obj) or obj.__module__ != torch.nn.init.__name__:
            continue
        if clf.function_kind(obj, f"nn.init.{name}") == TENSOR:
            tensor.add(name)
        if _has_generator_param(obj):
            random.add(name)
    return {"NN_INIT_TENSOR_FUNCTIONS": tensor, "RANDOM_INIT_FUNCTIONS": random}


def _tensor_members(clf: Classifier) -> dict[str, object]:
    methods: dict[str, str] = {}
    properties: dict[str, str] = {}
    random: set[str] = set()
    for name in dir(torch.Tensor):
        if name.startswith("_"):
            continue
        what, kind = clf.tensor_member(name)
        (properties if what == "property" else methods)[name] = kind
        if what == "method" and clf.tensor_member_random(name):
            random.add(name)
        if kind in (UNKNOWN, MIXED):
            clf.notes.append(f"Tensor.{name} ({what}): {kind}")
    m, p = _split_by_kind(methods), _split_by_kind(properties)
    probed = m[TENSOR] | m[SEQUENCE] | m[MIXED]
    integer = {n for n in probed if methods[n] != SEQUENCE and integer_result(_method_caller(n), _PROBE_METHOD_ARGS)}
    positions = {n: found for n in probed if (found := integer_positions(_method_caller(n), _PROBE_METHOD_ARGS))}
    return {
        "INTEGER_RESULT_METHODS": integer,
        "MIXED_METHODS_UNPACKING_TO_TENSORS": {
            n for n in m[MIXED] if unpacks_to_tensors(_method_caller(n), _PROBE_METHOD_ARGS)
        },
        "METHOD_INTEGER_RETURN_POSITIONS": positions,
        "TENSOR_METHODS_RETURNING_TENSOR": m[TENSOR],
        "TENSOR_METHODS_NOT_ON_OTHER_VALUES": _not_on_other_values(m[TENSOR]),
        "TENSOR_METHODS_RETURNING_SEQUENCE": m[SEQUENCE],
        "TENSOR_METHODS_MIXED": m[MIXED],
        "TENSOR_METHODS_RETURNING_NON_TENSOR": m[OTHER],
        "TENSOR_PROPERTIES_TENSOR": p[TENSOR],
        "TENSOR_PROPERTIES_NON_TENSOR": p[OTHER] | p[MIXED],
        "RANDOM_TENSOR_METHODS": random,
    }


def _submodule_functions(clf: Classifier) -> dict[str, object]:
    """The functions of SUBMODULES, dotted relative to torch (``linalg.qr``)."""
    kinds: dict[str, str] = {}
    for sub in SUBMODULES:
        module = importlib.import_module(f"torch.{sub}")
        for name, obj in _public(module):
            if isinstance(obj, (types.ModuleType, type)) or not callable(obj):
                continue
            origin = getattr(obj, "__module__", None) or ""
            if not (origin == "torch" or origin.startswith(("torch.", "torch._C"))):
                continue  # typing helpers (Optional, Union, ...) the module imports
            dotted = f"{sub}.{name}"
            kind = clf.function_kind(obj, f"torch.{dotted}", same_name_op=True)
            if kind == UNKNOWN and inspect.isfunction(inspect.unwrap(obj)):
                kind = probe_kind(obj, ("x",))
                if kind != UNKNOWN:
                    clf.notes.append(f"torch.{dotted}: unannotated, probed with a tensor: {kind}")
            if kind == UNKNOWN:
                clf.notes.append(f"torch.{dotted}: unknown, left out")
            kinds[dotted] = kind
    by_kind = _split_by_kind(kinds)
    return {
        "SUBMODULE_TENSOR_FUNCTIONS": by_kind[TENSOR],
        "SUBMODULE_SEQUENCE_FUNCTIONS": by_kind[SEQUENCE],
        "SUBMODULE_MIXED_FUNCTIONS": by_kind[MIXED],
        "SUBMODULE_NON_TENSOR_FUNCTIONS": by_kind[OTHER],
    }


def _types_and_dtypes() -> dict[str, object]:
    legacy = {name: obj for name, obj in _public(torch) if _is_tensor_type(obj)}
    cuda_legacy = {name for name, obj in _public(torch.cuda) if _is_tensor_type(obj)}
    # The typed constructors torch registers outside torch and torch.cuda
    # (torch.sparse.FloatTensor, torch.cuda.sparse.LongTensor), by their dotted path.
    other_legacy = {
        f"{cls.__module__}.{cls.__name__}"[len("torch.") :]: cls
        for cls in getattr(torch, "_tensor_classes", ())
        if cls.__module__ not in ("torch", "torch.cuda") and cls.__module__.startswith("torch.")
    }
    dtypes = {name: obj for name, obj in _public(torch) if isinstance(obj, torch.dtype)}
    return {
        "LEGACY_TENSOR_TYPES": set(legacy),
        "CUDA_LEGACY_TENSOR_TYPES": cuda_legacy,
        "LEGACY_TENSOR_DTYPE_IS_INTEGER": {
            name: _is_integer_dtype(_legacy_dtype(obj)) for name, obj in legacy.items()
        },
        "OTHER_LEGACY_TENSOR_TYPES": {
            name: _is_integer_dtype(_legacy_dtype(obj)) for name, obj in other_legacy.items()
        },
        "DTYPE_NAMES": set(dtypes),
        "INTEGER_DTYPE_NAMES": {n for n, d in dtypes.items() if _is_integer_dtype(d)},
        "FLOATING_DTYPE_NAMES": {n for n, d in dtypes.items() if d.is_floating_point},
        "COMPLEX_DTYPE_NAMES": {n for n, d in dtypes.items() if d.is_complex},
    }


def _nn_module_paths() -> list[types.ModuleType]:
    """torch.nn and the packages its classes are defined in, imported explicitly.

    Walking an explicit list (rather than whatever happens to be in
    sys.modules) keeps the output independent of what the caller imported.
    """
    modules = [torch.nn]
    for package_name in ("torch.nn.modules", "torch.nn.parallel"):
        package = importlib.import_module(package_name)
        modules.append(package)
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
            try:
                modules.append(importlib.import_module(f"{package_name}.{info.name}"))
            except Exception:  # optional backends missing on this build
                continue
    return modules


def _nn_classes() -> dict[str, object]:
    module_classes: dict[str, type] = {}
    other_classes: dict[str, type] = {}
    for name, obj in _public(torch.nn):
        if not isinstance(obj, type):
            continue
        (module_classes if issubclass(obj, torch.nn.Module) else other_classes)[name] = obj

    def qualnames(classes: dict[str, type]) -> set[str]:
        wanted = {id(c) for c in classes.values()}
        out = {f"torch.nn.{n}" for n in classes}
        out |= {f"{c.__module__}.{c.__qualname__}" for c in classes.values()}
        for module in _nn_module_paths():
            # A module's __all__ says what it exports; the names it merely
            # imports (conv.py's Parameter, ...) are not import paths to honour.
            exported = getattr(module, "__all__", None)
            for attr, value in vars(module).items():
                if attr.startswith("_") or id(value) not in wanted:
                    continue
                if exported is None or attr in exported:
                    out.add(f"{module.__name__}.{attr}")
        return out

    return {
        "NN_MODULE_CLASSES": set(module_classes),
        "NN_NON_MODULE_CLASSES": set(other_classes),
        "NN_MODULE_QUALNAMES": qualnames(module_classes),
        "NN_NON_MODULE_QUALNAMES": qualnames(other_classes),
        "NN_PARAMETER_FREE_MODULES": _parameter_free(module_classes),
        "NN_REGISTERED_BUFFERS": _registered_buffers(module_classes),
        "NN_CONSTRUCTOR_CALLED_METHODS": _constructor_called_methods(module_classes),
    }


# Constructor arguments through which an instance may hold parameters or modules after all
# (InstanceNorm2d(c, affine=True), ModuleList(modules), ParameterDict(parameters)).
_MAY_ADD_PARAMETERS = frozenset({"affine", "elementwise_affine", "learnable", "module", "modules", "parameters", "values"})
# Small arguments a torch.nn layer's constructor may need (a size, a kernel, a scale factor).
_CONSTRUCTOR_PROBES: tuple[tuple, ...] = ((), (2,), (2, 2), (2, 2, 2))


def _parameter_free(classes: dict[str, type]) -> set[str]:
    """torch.nn.<name> whose instance holds no parameter and no buffer, built from each probe
    that builds it (losses, activations, pooling, dropout, padding): a model holding only these
    needs no .to() to run on a device, so holding one says nothing about being moved.  A class
    no probe builds is left out, as is one any probe builds with a parameter (PReLU).  A loss
    handed class weights holds them as a buffer: codemod/rules/device_moves.py counts a call
    with a `weight` as holding state."""
    free: set[str] = set()
    for name, cls in classes.items():
        if inspect.isabstract(cls) or cls is torch.nn.Module:
            continue
        try:
            accepted = inspect.signature(cls.__init__).parameters.values()
        except (TypeError, ValueError):
            continue
        if any(p.kind is p.VAR_POSITIONAL or p.name in _MAY_ADD_PARAMETERS for p in accepted):
            continue  # a container (Sequential, ModuleList, DataParallel) or an option that adds weights
        built = []
        for args in _CONSTRUCTOR_PROBES:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    built.append(cls(*args))
            except Exception:  # noqa: BLE001 - the probe's arguments do not fit: try the next
                continue
        if built and all(not list(m.parameters()) and not list(m.buffers()) and not list(m.children()) for m in built):
            free.add(name)
    return free


def _torch_nn_classes(public: dict[str, type]) -> dict[str, type]:
    """The module classes by public path and by where each is defined (private bases included)."""
    classes: dict[str, type] = {f"torch.nn.{name}": cls for name, cls in public.items()}
    for module in _nn_module_paths():
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, torch.nn.Module) and value.__module__.startswith("torch.nn"):
                classes[f"{value.__module__}.{value.__qualname__}"] = value
    return classes


def _constructor_called_methods(public: dict[str, type]) -> dict[str, tuple[str, ...]]:
    """torch.nn module class (dotted) -> the methods of its own (not nn.Module's) that its
    constructor calls on the instance, seen by building a subclass that overrides each with a
    recorder (`Linear.__init__` calls `self.reset_parameters()`): a subclass's override of one
    runs while the instance is built, so it is constructor code."""
    found: dict[str, tuple[str, ...]] = {}
    module_names = set(dir(torch.nn.Module))
    for name, cls in _torch_nn_classes(public).items():
        if cls is torch.nn.Module:
            continue
        candidates = sorted(
            attr for attr in set(dir(cls)) - module_names
            if inspect.isfunction(inspect.getattr_static(cls, attr, None)) and not attr.startswith("__")
        )
        if not candidates:
            continue
        called: set[str] = set()
        calling: set[str] = set()  # in the build under way: kept only if it succeeds

        def recorder(attr: str):
            def method(self, *args, **kwargs):
                calling.add(attr)
                return getattr(super(probe, self), attr)(*args, **kwargs)
            return method

        probe = type(f"Probe{cls.__name__}", (cls,), {attr: recorder(attr) for attr in candidates})
        for args in _CONSTRUCTOR_PROBES:
            calling.clear()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    probe(*args)
            except Exception:  # noqa: BLE001 - the probe's arguments do not fit: try the next
                continue
            called |= calling
        if called:
            found[name] = tuple(sorted(called))
    return found


def _registered_buffers(public: dict[str, type]) -> dict[str, tuple[str, ...]]:
    """torch.nn module class (its public path and where it is defined, private bases such as
    `torch.nn.modules.loss._WeightedLoss` included) -> the buffers its constructor registers,
    from each probe that builds it (`_WeightedLoss()` registers `weight`, None until a weight is
    given).  A subclass assigning a tensor to one of these names fills that buffer."""
    found: dict[str, tuple[str, ...]] = {}
    for name, cls in _torch_nn_classes(public).items():
        if cls is torch.nn.Module:
            continue
        names: set[str] = set()
        for args in _CONSTRUCTOR_PROBES:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    names |= set(cls(*args)._buffers)
            except Exception:  # noqa: BLE001 - the probe's arguments do not fit: try the next
                continue
        if names:
            found[name] = tuple(sorted(names))
    return found


def _non_tensor_callables(clf: Classifier) -> set[str]:
    out = {n for n, obj in _public(torch) if isinstance(obj, type) and not _is_tensor_type(obj)}
    for sub in NON_TENSOR_SUBMODULES:
        module = importlib.import_module(f"torch.{sub}")
        for name, obj in _public(module):
            if not (getattr(obj, "__module__", "") or "").startswith("torch"):
                continue  # typing helpers and the like re-exported by the module
            if isinstance(obj, type):
                if not _is_tensor_type(obj):
                    out.add(f"{sub}.{name}")
            elif callable(obj) and not isinstance(obj, types.ModuleType):
                if clf.function_kind(obj, f"torch.{sub}.{name}") == OTHER:
                    out.add(f"{sub}.{name}")
    return out | NON_TENSOR_CALLABLES_EXTRA


def build_tables(clf: Classifier | None = None) -> dict[str, object]:
    clf = clf or Classifier()
    tables: dict[str, object] = {}
    tables.update(_torch_functions(clf))
    tables.update(_functional(clf))
    tables.update(_init(clf))
    tables.update(_submodule_functions(clf))
    tables.update(_tensor_members(clf))
    tables.update(_types_and_dtypes())
    tables.update(_nn_classes())
    tables["NON_TENSOR_TORCH_CALLABLES"] = _non_tensor_callables(clf)
    tables["NON_TENSOR_ARGUMENT_POSITIONS"], tables["NON_TENSOR_ARGUMENT_KEYWORDS"] = _non_tensor_arguments(clf)
    tables["SCALAR_ARGUMENT_POSITIONS"] = _scalar_arguments(clf)
    return tables


def _scalar_arguments(clf: Classifier) -> dict[str, tuple[int, ...]]:
    """torch.<name> -> the call positions that take a tensor in some aten overload and a plain
    number in another (`torch.gt(x, other)`: `gt.Tensor` and `gt.Scalar`; `torch.fmod`): a
    number handed there is no tensor, so such a slot is no evidence that an argument is one."""
    positions: dict[str, tuple[int, ...]] = {}
    for name, by_position, _ in _argument_types(clf):
        found = tuple(
            i for i in sorted(by_position)
            if any(map(_mentions_tensor, by_position[i])) and any(_takes_a_number(t) for t in by_position[i])
        )
        if found:
            positions[name] = found
    return positions


def _argument_types(clf: Classifier):
    """(name, {position: types}, {argument name: types}) over the aten overloads of every
    public torch callable that has some; keyword-only arguments have no position."""
    for name, obj in _public(torch):
        if not callable(obj) or isinstance(obj, type):
            continue
        schemas = clf.schemas.native_for(name)
        if not schemas:
            continue
        by_position: dict[int, list] = defaultdict(list)
        by_name: dict[str, list] = defaultdict(list)
        for schema in schemas:
            for i, argument in enumerate(a for a in schema.arguments if not a.kwarg_only):
                by_position[i].append(argument.type)
            for argument in schema.arguments:
                by_name[argument.name].append(argument.type)
        yield name, by_position, by_name


def _takes_a_number(t: torch._C.JitType) -> bool:
    return str(t).rstrip("?") in ("Scalar", "float", "int", "number", "bool")


def _non_tensor_arguments(clf: Classifier) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[str, ...]]]:
    """torch.<name> -> the call positions, and the argument names, that take no tensor in any
    of its aten overloads (`torch.batch_norm_stats(input, eps)`: eps is a float;
    `torch.reshape(x, shape=...)`: shape is a list of sizes).  Keyword-only arguments have no
    position."""
    positions: dict[str, tuple[int, ...]] = {}
    keywords: dict[str, tuple[str, ...]] = {}
    for name, by_position, by_name in _argument_types(clf):
        found = tuple(i for i in sorted(by_position) if not any(map(_may_hold_tensor, by_position[i])))
        named = tuple(sorted(n for n, types in by_name.items() if n != "self" and not any(map(_may_hold_tensor, types))))
        if found:
            positions[name] = found
        if named:
            keywords[name] = named
    return positions, keywords


def _may_hold_tensor(t: torch._C.JitType) -> bool:
    return _mentions_tensor(t) or "Scalar" in str(t)  # a Scalar slot takes a 0-dim tensor too


# --- rendering ---------------------------------------------------------------

DOCS = {
    "TORCH_TENSOR_FUNCTIONS": "torch.<name> whose every overload returns one Tensor.",
    "TORCH_SEQUENCE_FUNCTIONS": "torch.<name> returning a list/tuple of Tensors (every overload).",
    "TORCH_MIXED_FUNCTIONS": "torch.<name> returning a Tensor for some overloads/arguments only.",
    "TORCH_NON_TENSOR_FUNCTIONS": "torch.<name> never returning a Tensor (or a sequence of them).",
    "RANDOM_FUNCTIONS": "torch.<name> drawing from the RNG.",
    "INTEGER_RESULT_FUNCTIONS": "torch.<name> whose Tensor is integer or bool even from float inputs (probed).",
    "MIXED_UNPACKING_TO_TENSORS": "TORCH_MIXED_FUNCTIONS returning a Tensor or a tuple of Tensors in every probe.",
    "INTEGER_RETURN_POSITIONS": "torch.<name> -> positions of its returned tuple that are integer (probed).",
    "FUNCTIONAL_TENSOR_FUNCTIONS": "torch.nn.functional.<name> returning one Tensor.",
    "FUNCTIONAL_SEQUENCE_FUNCTIONS": "torch.nn.functional.<name> returning a tuple/list of Tensors.",
    "FUNCTIONAL_MIXED_FUNCTIONS": "torch.nn.functional.<name> returning a Tensor or a tuple.",
    "FUNCTIONAL_NON_TENSOR_FUNCTIONS": "torch.nn.functional.<name> never returning a Tensor.",
    "RANDOM_FUNCTIONAL_FUNCTIONS": "torch.nn.functional.<name> drawing from the RNG.",
    "NN_INIT_TENSOR_FUNCTIONS": "torch.nn.init.<name> returning a Tensor (the one it filled).",
    "RANDOM_INIT_FUNCTIONS": "torch.nn.init.<name> drawing from the RNG.",
    "SUBMODULE_TENSOR_FUNCTIONS": "torch.<sub>.<name> returning one Tensor (dotted relative to torch).",
    "SUBMODULE_SEQUENCE_FUNCTIONS": "torch.<sub>.<name> returning a tuple/list of Tensors.",
    "SUBMODULE_MIXED_FUNCTIONS": "torch.<sub>.<name> returning a Tensor for some overloads/arguments only.",
    "SUBMODULE_NON_TENSOR_FUNCTIONS": "torch.<sub>.<name> never returning a Tensor.",
    "TENSOR_METHODS_RETURNING_TENSOR": "Tensor.<name>() returning a Tensor (in-place x_ return self).",
    "TENSOR_METHODS_NOT_ON_OTHER_VALUES": "Tensor.<name>() returning a Tensor, a name no numpy array, nn.Module, builtin container, string or number has.",
    "TENSOR_METHODS_RETURNING_SEQUENCE": "Tensor.<name>() returning a tuple/list of Tensors.",
    "TENSOR_METHODS_MIXED": "Tensor.<name>() returning a Tensor for some overloads/arguments only.",
    "TENSOR_METHODS_RETURNING_NON_TENSOR": "Tensor.<name>() never returning a Tensor.",
    "TENSOR_PROPERTIES_TENSOR": "Tensor.<name> attributes holding a Tensor (grad may also be None).",
    "TENSOR_PROPERTIES_NON_TENSOR": "Tensor.<name> attributes holding something else.",
    "RANDOM_TENSOR_METHODS": "Tensor.<name>() drawing from the RNG.",
    "INTEGER_RESULT_METHODS": "Tensor.<name>() whose Tensor is integer or bool even on a float tensor (probed).",
    "MIXED_METHODS_UNPACKING_TO_TENSORS": "TENSOR_METHODS_MIXED returning a Tensor or a tuple of Tensors in every probe.",
    "METHOD_INTEGER_RETURN_POSITIONS": "Tensor.<name>() -> positions of its returned tuple that are integer (probed).",
    "LEGACY_TENSOR_TYPES": "Tensor classes in torch: torch.Tensor and the typed constructors.",
    "CUDA_LEGACY_TENSOR_TYPES": "Typed tensor constructors under torch.cuda.",
    "LEGACY_TENSOR_DTYPE_IS_INTEGER": "LEGACY_TENSOR_TYPES name -> whether its dtype is integer or bool.",
    "OTHER_LEGACY_TENSOR_TYPES": "Typed tensor constructors elsewhere (sparse.FloatTensor, ...) -> integer or bool dtype.",
    "DTYPE_NAMES": "torch.<name> that are dtypes.",
    "INTEGER_DTYPE_NAMES": "Integer and bool dtypes (no gradients).",
    "FLOATING_DTYPE_NAMES": "Floating-point dtypes.",
    "COMPLEX_DTYPE_NAMES": "Complex dtypes.",
    "NN_MODULE_CLASSES": "torch.nn.<name> that are nn.Module subclasses.",
    "NN_NON_MODULE_CLASSES": "torch.nn.<name> classes that are not modules (Parameter, Buffer, ...).",
    "NN_MODULE_QUALNAMES": "Dotted paths under which the NN_MODULE_CLASSES are defined or re-exported.",
    "NN_NON_MODULE_QUALNAMES": "Dotted paths of the NN_NON_MODULE_CLASSES.",
    "NN_PARAMETER_FREE_MODULES": "torch.nn.<name> holding no parameter, buffer or child when built (probed).",
    "NN_REGISTERED_BUFFERS": "torch.nn module class (dotted) -> the buffers its constructor registers (probed).",
    "NN_CONSTRUCTOR_CALLED_METHODS": "torch.nn module class (dotted) -> its own methods its constructor calls on the instance (probed with overrides).",
    "NON_TENSOR_TORCH_CALLABLES": "Callables, dotted relative to torch, whose results are never Tensors.",
    "NON_TENSOR_ARGUMENT_POSITIONS": "torch.<name> -> call positions that take no Tensor in any aten overload.",
    "NON_TENSOR_ARGUMENT_KEYWORDS": "torch.<name> -> argument names that take no Tensor in any aten overload.",
    "SCALAR_ARGUMENT_POSITIONS": "torch.<name> -> call positions that take a Tensor in some aten overload and a number in another.",
}

LINE_WIDTH = 88


def _quote(text: str) -> str:
    return json.dumps(text)  # double quotes, as the rest of the code base


def _render_set(name: str, names: Iterable[str]) -> str:
    lines = [f"{name}: frozenset[str] = frozenset(", "    {"]
    line = "       "
    for item in sorted(names):
        token = f" {_quote(item)},"
        if len(line) + len(token) > LINE_WIDTH:
            lines.append(line)
            line = "       "
        line += token
    if line.strip():
        lines.append(line)
    lines += ["    }", ")"]
    return "\n".join(lines)


def _render_dict(name: str, mapping: dict[str, object]) -> str:
    if all(isinstance(v, tuple) and all(isinstance(i, str) for i in v) for v in mapping.values()) and mapping:
        kind = "tuple[str, ...]"
    elif all(isinstance(v, tuple) for v in mapping.values()) and mapping:
        kind = "tuple[int, ...]"
    else:
        kind = "bool"
    lines = [f"{name}: dict[str, {kind}] = {{"]
    def shown(value: object) -> str:
        if kind == "tuple[str, ...]":
            return "(" + ", ".join(map(_quote, value)) + ",)"  # type: ignore[arg-type]
        return repr(value)

    lines += [f"    {_quote(key)}: {shown(mapping[key])}," for key in sorted(mapping)]
    lines.append("}")
    return "\n".join(lines)


def render(tables: dict[str, object]) -> str:
    parts = [
        f"# Generated by `{COMMAND}` from torch {torch.__version__}.",
        "# Do not edit by hand: regenerate it, and tests/test_torch_table.py checks it.",
        '"""What the names torch exposes return, so the static scan need not import torch.',
        "",
        "Names are attribute names under the namespace each table's comment gives.",
        "A name that torch does not describe either way is absent from every table.",
        '"""',
        "",
        f"TORCH_VERSION = {_quote(str(torch.__version__))}",
    ]
    for name in DOCS:
        value = tables[name]
        parts.append("")
        parts.append(f"# {DOCS[name]}")
        render_one = _render_dict if isinstance(value, dict) else _render_set
        parts.append(render_one(name, value))
    return "\n".join(parts) + "\n"


def generate() -> tuple[str, list[str]]:
    clf = Classifier()
    with warnings.catch_warnings():
        # Touching deprecated names (TypedStorage, ...) only warns.
        warnings.simplefilter("ignore")
        text = render(build_tables(clf))
    return text, sorted(set(clf.notes))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the table on disk is stale")
    parser.add_argument("--explain", action="store_true", help="print doubtful classifications")
    args = parser.parse_args(argv)

    text, notes = generate()
    if args.explain:
        print("\n".join(notes), file=sys.stderr)
    if args.check:
        current = TABLE_PATH.read_text(encoding="utf-8") if TABLE_PATH.exists() else ""
        if current == text:
            return 0
        diff = difflib.unified_diff(
            current.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=f"{TABLE_PATH.name} (on disk)",
            tofile=f"{TABLE_PATH.name} (generated)",
            n=1,
        )
        sys.stdout.writelines(list(diff)[:200])
        print(f"\n{TABLE_PATH} is stale; run `{COMMAND}`.")
        return 1
    # Write bytes so line endings are identical on every platform.
    TABLE_PATH.write_bytes(text.encode("utf-8"))
    print(f"wrote {TABLE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
