"""Which rewritten attributes a class's ``forward`` can read (worker side, reads source only).

A rewrite is proven by a forward only when some forward reads the attribute.  One that no
forward can reach (a table only ``sample()`` reads, a class with no ``forward`` at all) is
judged without one, and its verdict says so.  The answer is conservative: when the source
cannot be read, or the attribute leaves the class (handed to a submodule or a function in
``__init__``, named in a string for ``getattr``), forward is taken to read it.

An attribute that no forward reads itself, but that ``__init__`` hands on as it is
(``nn.Embedding.from_pretrained(self.table)``, ``Child(self.mask)``), reaches a forward only
through what received it.  That receiver holds the same tensor on both sides of a rewrite
(registering it changes only the parent's own slot, which no forward reads), so a forward
compared in float32 and after each cast is the evidence for it (``handed_on``).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import textwrap
from typing import Any, Iterator

import torch


def forward_reads(cls: type, attrs: list[str]) -> dict[str, bool]:
    """``{attr: whether a forward of cls (or a method it calls on self) may read self.attr}``."""
    methods = _methods(cls)
    if methods is None:
        return {attr: True for attr in attrs}
    entry = _entry(methods)
    if entry is None:
        # no forward of the repository's own (nn.Module's raises): none reads anything, unless
        # the class hands the attribute on at construction
        reached: set[str] = set()
    else:
        reached = _reached(methods, entry)
    handed = _functions_handed_self(cls, methods, reached)
    out = {}
    for attr in attrs:
        read = any(_reads(methods[name], attr) for name in reached)
        out[attr] = read or _escapes(methods, attr) or any(
            function is None or _reads(function, attr, me) for function, me, _ in handed)
    return out


def _functions_handed_self(cls: type, methods: dict[str, ast.FunctionDef],
                           reached: set[str]) -> list[tuple[ast.FunctionDef | None, str, str]]:
    """The functions of the class's module that the methods in ``reached`` hand self to
    (`create_grids(self, img_size, ng)` in forward), each with the name its parameter gives
    self and its file (its line numbers are the file's); (None, "", "") for one whose source
    cannot be read, which may read anything."""
    module = inspect.getmodule(cls)
    found: list[tuple[ast.FunctionDef | None, str, str]] = []
    for name in reached:
        function = methods[name]
        me = _self_name(function)
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            position = next((i for i, a in enumerate(node.args) if isinstance(a, ast.Name) and a.id == me), None)
            if position is None and any(isinstance(k.value, ast.Name) and k.value.id == me for k in node.keywords):
                found.append((None, "", ""))  # handed as a keyword: whatever receives it may read anything
                continue
            if position is None:
                continue
            if not isinstance(node.func, ast.Name):
                found.append((None, "", ""))  # `utils.create_grids(self, ...)`: not followed, may read anything
                continue
            if node.func.id in ("isinstance", "getattr", "hasattr", "setattr", "super", "id", "type", "print", "len"):
                continue
            target = getattr(module, node.func.id, None)
            try:
                tree, filename = _source_tree(target)
                parsed = tree.body[0]
            except (OSError, TypeError, SyntaxError, IndentationError, IndexError):
                found.append((None, "", ""))
                continue
            if not isinstance(parsed, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((None, "", ""))
                continue
            parameters = parsed.args.posonlyargs + parsed.args.args
            if position >= len(parameters):
                found.append((None, "", ""))
                continue
            found.append((parsed, parameters[position].arg, filename))
    return found


def unrun_readers(cls: type, attrs: list[str]) -> dict[str, list[str]]:
    """``{attr: the methods of cls that read self.attr and that validation does not run}``: not
    reached from forward nor from ``__init__`` (`get_action`, which a training loop calls with
    a distribution).  A rewrite such a method reads is not proven by a forward that does not
    read it; its verdict names them.  Dunder methods and ``extra_repr`` only describe the
    module."""
    methods = _methods(cls)
    if methods is None:
        return {}
    entry = _entry(methods)
    ran = (_reached(methods, entry) if entry is not None else set()) | (
        _reached(methods, "__init__") if "__init__" in methods else set())
    out: dict[str, list[str]] = {}
    for attr in attrs:
        names = [name for name, function in methods.items()
                 if name not in ran and not (name.startswith("__") and name.endswith("__"))
                 and name != "extra_repr" and _reads(function, attr)]
        if names:
            out[attr] = names
    return out


# A read site: (file, first line, last line, method, whether a test of devices guards it) of a
# statement that reads ``self.attr``.
Site = tuple[str, int, int, str, bool]


def read_sites(cls: type, attrs: list[str]) -> dict[str, list[Site]]:
    """``{attr: the statements of forward (and of what it runs: the methods it calls on self,
    the functions it hands self to) that read self.attr or a value forward derives from it}``,
    each as the lines a tracer sees when it runs: a simple statement's lines, a compound
    statement's header (`if targets is not None and self.anchors...:`).  Not a statement that
    reads only the tensor's shape (`if x.size(1) != self.w.shape[0]:`), nor a `raise`.

    A forward that read the attribute in one branch says nothing of another branch that reads
    it too: YOLO's `create_grids(self, ...)` derives `self.anchor_vec = self.anchors / stride`
    on every call, and only the training branch hands that to `build_targets` with CPU
    targets.  A pass needs every site to have run in some compared forward.  What forward
    derives counts (a local, or another attribute of self: after a move or a cast it follows
    the buffer, where the original's followed the plain tensor); what ``__init__`` derives does
    not (it is made before any move or cast, the same on both sides).  Empty for a class whose
    source cannot be read, and for attributes of submodules (`layer.mask`)."""
    parsed = _parsed(cls)
    if parsed is None:
        return {}
    functions, files = parsed
    entry = _entry(functions)
    if entry is None:
        return {}
    reached = _reached(functions, entry)
    scanned = [(functions[name], _self_name(functions[name]), files[name], name) for name in sorted(reached)]
    scanned += [(function, me, filename, function.name)
                for function, me, filename in _functions_handed_self(cls, functions, reached) if function is not None]
    out: dict[str, list[Site]] = {}
    for attr in attrs:
        if "." in attr:
            continue
        derived = _derived_attributes(scanned, attr)
        for function, me, filename, name in scanned:
            names = _derived_names(function, me, derived)
            for statement, guarded in _statements(function.body, False):
                if isinstance(statement, ast.Raise):
                    continue  # an error path: it raises whatever the tensor's dtype or device
                if any(_mentions(part, me, derived, names, values_only=True) for part in _own_parts(statement)):
                    first, last = _header(statement)
                    site = (filename, first, last, name, guarded)
                    if site not in out.setdefault(attr, []):
                        out[attr].append(site)
    return out


def _statements(body: list[ast.stmt], guarded: bool) -> Iterator[tuple[ast.stmt, bool]]:
    """Every statement in ``body`` and the blocks it holds, each with whether a test of devices
    (`if logits.device != self.weights.device:`, `if torch.cuda.is_available():`) decides
    whether it runs: a branch only a device move opens, which the forward after the move
    (the device stage) runs where no forward on the CPU does."""
    for statement in body:
        yield statement, guarded
        inner = guarded or isinstance(statement, (ast.If, ast.While)) and _tests_devices(statement.test)
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(statement, field, None) or [], inner)
        for handler in getattr(statement, "handlers", None) or []:
            yield from _statements(handler.body, guarded)
        for case in getattr(statement, "cases", None) or []:
            yield from _statements(case.body, guarded)


def _tests_devices(test: ast.expr) -> bool:
    return any(isinstance(node, ast.Attribute) and node.attr in ("device", "is_cuda", "get_device", "is_available")
               for node in ast.walk(test))


def _derived_attributes(scanned: list[tuple[ast.FunctionDef, str, str, str]], attr: str) -> set[str]:
    """``attr`` and the attributes of self that the scanned functions bind from it, directly or
    through locals and each other (`self.anchor_wh = self.anchor_vec.view(...)`)."""
    derived = {attr}
    while True:
        before = len(derived)
        for function, me, _, _ in scanned:
            names = _derived_names(function, me, derived)
            for node in ast.walk(function):
                value, targets = _assignment(node)
                if value is not None and _mentions(value, me, derived, names):
                    derived |= {inner.attr for target in targets for inner in ast.walk(target)
                                if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)
                                and inner.value.id == me and me and isinstance(inner.ctx, ast.Store)}
        if len(derived) == before:
            return derived


def _derived_names(function: ast.FunctionDef, me: str, derived: set[str]) -> set[str]:
    """The local names every binding of which is one of the ``derived`` attributes of self, or
    a view, a move or a part of one (`anchors = self.anchors.to(p.device)[0]`), directly or
    through each other: such a name is the tensor wherever it is read.  Not a value computed
    from one with other data (`x = x * self.scale`): that flows into the output, which the
    forward compared; nor a parameter, which the caller hands in."""
    # each local's values (None: bound by unpacking, or a parameter: what the caller hands in)
    bindings: dict[str, list[ast.AST | None]] = {}
    arguments = function.args
    for parameter in arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [
            a for a in (arguments.vararg, arguments.kwarg) if a is not None]:
        bindings.setdefault(parameter.arg, []).append(None)
    for node in ast.walk(function):
        value, targets = _assignment(node)
        for target in targets:
            for inner in ast.walk(target):
                if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                    bindings.setdefault(inner.id, []).append(value if target is inner else None)
    # the names every binding of which is such a view (`window = create_window(...)` in the
    # other arm makes `window` no view of the buffer there): the largest set that holds
    names = {name for name, values in bindings.items() if all(v is not None for v in values)}
    while True:
        kept = {name for name in names if all(_is_alias(v, me, derived, names) for v in bindings[name])}  # type: ignore[arg-type]
        if kept == names:
            return names
        names = kept


# What a tensor's method or property returns that is no tensor: not a view of it.
_NOT_TENSORS = ("shape", "dtype", "device", "ndim", "size", "numel", "dim", "item", "tolist", "is_cuda", "nelement",
                "data_ptr", "stride", "element_size", "requires_grad")


def _is_alias(node: ast.AST, me: str, attrs: set[str], names: set[str]) -> bool:
    """Whether ``node`` is one of ``attrs`` of self, or of the local ``names``, through method
    calls, attributes and subscripts on it (`.to(device)`, `.view(...)`, `[0]`, `.T`)."""
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _NOT_TENSORS:
                return False
            node = node.func.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Attribute) and not (isinstance(node.value, ast.Name) and node.value.id == me):
            if node.attr in _NOT_TENSORS:
                return False
            node = node.value
        else:
            break
    if isinstance(node, ast.Attribute):
        return bool(me) and node.attr in attrs
    return isinstance(node, ast.Name) and node.id in names


def _assignment(node: ast.AST) -> tuple[ast.AST | None, list[ast.AST]]:
    """What a binding statement binds from, and its targets; (None, []) for anything else."""
    if isinstance(node, ast.Assign):
        return node.value, list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
        return node.value, [node.target]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return node.iter, [node.target]
    if isinstance(node, ast.NamedExpr):
        return node.value, [node.target]
    return None, []


def _mentions(node: ast.AST, me: str, attrs: set[str], names: set[str], values_only: bool = False) -> bool:
    """Whether ``node`` reads one of ``attrs`` of self (``me``) or one of the local ``names``;
    with ``values_only``, not where it reads only the tensor's shape (`self.w.shape[0]`,
    `self.w.size(1)`, `len(self.w)`), which neither a cast nor a move changes."""
    shape_only = _shape_reads(node) if values_only else set()
    for inner in ast.walk(node):
        if id(inner) in shape_only:
            continue
        if isinstance(inner, ast.Attribute) and inner.attr in attrs and isinstance(inner.value, ast.Name) \
                and me and inner.value.id == me and isinstance(inner.ctx, ast.Load):
            return True
        if isinstance(inner, ast.AugAssign) and isinstance(inner.target, ast.Attribute) \
                and inner.target.attr in attrs and _is_self_attr(inner.target, me, inner.target.attr) and me:
            return True
        if isinstance(inner, ast.Name) and inner.id in names and isinstance(inner.ctx, ast.Load):
            return True
    return False


# What a tensor tells of its shape alone, the same whatever its dtype or device.
_SHAPE_ATTRIBUTES = ("shape", "ndim")
_SHAPE_METHODS = ("size", "dim", "numel", "nelement")


def _shape_reads(node: ast.AST) -> set[int]:
    """The ids of the nodes in ``node`` whose value is only asked for its shape."""
    found: set[int] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Attribute) and inner.attr in _SHAPE_ATTRIBUTES:
            found.add(id(inner.value))
        elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in _SHAPE_METHODS:
            found.add(id(inner.func.value))
        elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "len" \
                and len(inner.args) == 1:
            found.add(id(inner.args[0]))
    return found


def _own_parts(statement: ast.stmt) -> list[ast.AST]:
    """The parts of a statement that run when its own line does: all of a simple statement;
    a compound statement's test, target, iterable or items, not its body (whose statements
    are sites of their own)."""
    nested = ("body", "orelse", "finalbody", "handlers", "cases")
    if not any(hasattr(statement, field) for field in nested):
        return [statement]
    return [value for field, value in ast.iter_fields(statement) if field not in nested and isinstance(value, ast.AST)
            ] + [item for field, value in ast.iter_fields(statement) if field not in nested and isinstance(value, list)
                 for item in value if isinstance(item, ast.AST)]


def _header(statement: ast.stmt) -> tuple[int, int]:
    """The lines a statement runs on its own: all of a simple statement's, the lines of a
    compound statement before its body."""
    body = getattr(statement, "body", None)
    if isinstance(body, list) and body:
        return statement.lineno, max(statement.lineno, body[0].lineno - 1)
    return statement.lineno, statement.end_lineno or statement.lineno


def _source_tree(obj: Any) -> tuple[ast.Module, str]:
    """``obj``'s source parsed, with the line numbers of its file, and that file; raises what
    inspect and ast raise for a source that cannot be read or parsed."""
    lines, start = inspect.getsourcelines(obj)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, max(start - 1, 0))
    return tree, inspect.getsourcefile(obj) or ""


def handed_on(cls: type, attrs: list[str]) -> list[str]:
    """The attributes no forward of ``cls`` reads itself, which ``__init__`` hands on as they are.

    Handing on inside a ``lambda`` or a nested function does not count: such a closure reads
    ``self.attr`` again each time it is called, the parent's slot that a rewrite does change."""
    methods = _methods(cls)
    if methods is None:
        return []
    entry = _entry(methods)
    reached = _reached(methods, entry) if entry is not None else set()
    return [attr for attr in attrs
            if not any(_reads(methods[name], attr) for name in reached)
            and _escapes(methods, attr) and not _closure_reads(methods["__init__"], attr)]


def _entry(methods: dict[str, ast.FunctionDef]) -> str | None:
    """The method a call of the module runs: forward, or the class's own ``__call__`` where it
    leaves forward to nn.Module (synth.entry_point)."""
    return "forward" if "forward" in methods else "__call__" if "__call__" in methods else None


def _methods(cls: type) -> dict[str, ast.FunctionDef] | None:
    """The methods of ``cls`` and of its repository bases (not torch's), the most derived first
    (read-only: shared by every caller), their line numbers those of their files."""
    parsed = _parsed(cls)
    return None if parsed is None else parsed[0]


@functools.lru_cache(maxsize=16)  # forward_reads, handed_on and unrun_readers ask for the same class in turn
def _parsed(cls: type) -> tuple[dict[str, ast.FunctionDef], dict[str, str]] | None:
    """``_methods(cls)``, and the file each method is written in."""
    found: dict[str, ast.FunctionDef] = {}
    files: dict[str, str] = {}
    for klass in cls.__mro__:
        if klass is object or klass.__module__.split(".")[0] == "torch":
            continue
        try:
            tree, filename = _source_tree(klass)
        except (OSError, TypeError, SyntaxError, IndentationError):
            return None
        body = tree.body[0] if tree.body and isinstance(tree.body[0], ast.ClassDef) else None
        if body is None:
            return None
        for node in body.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name not in found:
                found[node.name] = node  # type: ignore[assignment]
                files[node.name] = filename
    stood_in = getattr(getattr(cls, "forward", None), "__name__", None)
    if "forward" not in found and stood_in in found and getattr(cls, STAND_IN_ATTR, None) == stood_in:
        found["forward"] = found.pop(stood_in)  # a method standing in for a missing forward (stand_in)
        files["forward"] = files.pop(stood_in)
    if "forward" in found or getattr(cls, "forward", None) is getattr(torch.nn.Module, "forward", None):
        return found, files
    return None  # forward comes from somewhere unread (a torch subclass): assume it reads


# Set on a class whose forward a method stands in for (side.py), to that method's name.
STAND_IN_ATTR = "_codemod_forward_stand_in"
# Methods that act on the world rather than compute (save, load, plot, a training loop).
_NOT_STAND_INS = ("save", "load", "write", "plot", "print", "log", "export", "download", "fit", "train_", "show",
                  "visuali", "draw", "dump", "update", "step", "reset", "set_", "init")


# Methods that read or write files, draw or train: never called to fill a slot (setter_methods),
# where `set_`, `update`, `init` and `reset` methods are what fills one.
_INPUT_OUTPUT = ("save", "load", "write", "plot", "print", "log_", "logging", "export", "download", "fit", "train",
                 "show", "visuali", "draw", "dump")


# Log-domain computations, which the "log" of logging methods does not exclude.
_LOG_MATH = ("log_prob", "log_lik", "log_density", "log_det", "log_pdf", "log_partition", "log_sum", "log_softmax",
             "log_norm", "logits")


def _acts_on_the_world(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith(_NOT_STAND_INS) and not lowered.startswith(_LOG_MATH)


def stand_in(cls: type, attrs: list[str]) -> str | None:
    """For a module class with no forward of its own (nor a ``__call__``): the public method
    that reads the most of ``attrs`` (itself or through the methods it calls on self), takes
    data (a parameter besides self) and returns a value; None where there is none.  A
    diffusion process kept as an nn.Module (`trainloss(x_0)`, `sample(shape)`) is used through
    such methods, and running one, on both sides alike, is what a forward would show."""
    found = stand_ins(cls, attrs)
    return found[0] if found else None


def stand_ins(cls: type, attrs: list[str]) -> list[str]:
    """Every method that could stand in for a missing forward (stand_in), the best first: the
    next is tried where the made-up inputs of one do not run it (`log_prob(x)` of a flow whose
    event size nothing makes up, then `sample(n)`)."""
    methods = _methods(cls)
    if methods is None or _entry(methods) is not None:
        return []
    constructing = _reached(methods, "__init__") if "__init__" in methods else set()
    return [name for name, _ in _readers(methods, attrs, constructing)]


def reader_methods(cls: type, attrs: list[str]) -> list[tuple[str, list[str]]]:
    """For the attributes of ``attrs`` that no forward reads but a method validation does not
    run does (unrun_readers: `q_sample()` of a diffusion module that also has a forward):
    the methods that could run in place of forward in further builds, each with the
    attributes it reads, those reading the most first.  Each takes data and returns a value
    (as a stand-in does, stand_in); the caller keeps the first that run.

    The public methods come first; then the private helpers (`_predict_x0_from_eps(x_t, t,
    eps)`), which a public method may reach only with inputs nothing makes up (a
    `model_kwargs['cemb']`), or which the repository calls from outside.  A helper run alone
    reads the same buffer the public path would, cast or moved alike."""
    methods = _methods(cls)
    if methods is None:
        return []
    reads_in_forward = forward_reads(cls, attrs)
    left = [attr for attr in unrun_readers(cls, attrs) if not reads_in_forward.get(attr, True)]
    entry = _entry(methods)
    ran = (_reached(methods, entry) if entry is not None else set()) | (
        _reached(methods, "__init__") if "__init__" in methods else set())
    return _readers(methods, left, ran) + _readers(methods, left, ran, private=True)


def setter_methods(cls: type, attrs: list[str]) -> list[tuple[str, list[str]]]:
    """For empty slots of ``attrs`` (None after construction), the methods that fill them:
    those, other than the constructor and what it calls, that bind ``self.attr`` (themselves
    or through the methods they call on self), each with the attributes it binds, those
    binding the most first and those forward does not call before those it does
    (`set_condition(source, target)` of an ODE function, which its owner calls before
    integrating). Each takes data; none is a classmethod, a property or a method that reads or
    writes files, draws or trains (`save`, `plot`, `fit`)."""
    methods = _methods(cls)
    if methods is None:
        return []
    built = _reached(methods, "__init__") if "__init__" in methods else set()
    entry = _entry(methods)
    called = _reached(methods, entry) if entry is not None else set()
    found: list[tuple[str, list[str]]] = []
    for name, function in methods.items():
        if name in built or name == entry or (name.startswith("__") and name.endswith("__")) \
                or name.lstrip("_").lower().startswith(_INPUT_OUTPUT):
            continue
        if _self_name(function) in ("", "cls") or any(
                isinstance(d, ast.Name) and d.id in ("classmethod", "property") for d in function.decorator_list):
            continue
        if not (function.args.args[1:] or function.args.posonlyargs[1:]):
            continue
        reached = _reached(methods, name)
        bound = [attr for attr in attrs if any(_binds(methods[m], attr) for m in reached)]
        if bound:
            found.append((name, bound))
    return sorted(found, key=lambda candidate: (-len(candidate[1]), candidate[0] in called))


def _binds(function: ast.FunctionDef, attr: str) -> bool:
    """Whether the method assigns ``self.attr`` (alone, in a tuple, or augmented)."""
    me = _self_name(function)
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            if any(_is_self_attr(inner, me, attr) and isinstance(inner.ctx, ast.Store) for inner in ast.walk(target)):
                return True
    return False


def _readers(methods: dict[str, ast.FunctionDef], attrs: list[str], excluded: set[str], private: bool = False
             ) -> list[tuple[str, list[str]]]:
    """The public methods (with ``private``, the single-underscore ones instead) outside
    ``excluded`` that read some of ``attrs`` (themselves or through the methods they call on
    self), each with those attributes, those reading the most first (in the class's order among
    equals); only those that take data, return a value and compute (not `save`, `plot`,
    `reset`, a property or a classmethod)."""
    found: list[tuple[str, list[str]]] = []
    for name, function in methods.items():
        wanted = name.startswith("_") and not name.startswith("__") if private else not name.startswith("_")
        if not wanted or name in excluded or name == "extra_repr" or _acts_on_the_world(name.lstrip("_")):
            continue
        if _self_name(function) in ("", "cls") or any(
                isinstance(d, ast.Name) and d.id in ("classmethod", "property") for d in function.decorator_list):
            continue
        if not (function.args.args[1:] or function.args.posonlyargs[1:]) or not any(
                isinstance(n, ast.Return) and n.value is not None for n in ast.walk(function)):
            continue
        reached = _reached(methods, name)
        read = [attr for attr in attrs if any(_reads(methods[m], attr) for m in reached)]
        if read:
            found.append((name, read))
    return sorted(found, key=lambda candidate: -len(candidate[1]))  # stable: the class's order among equals


def apply_stand_in(cls: type, name: str) -> None:
    """Make method ``name`` the class's forward (the rewritten side takes the original's choice)."""
    cls.forward = getattr(cls, name)
    setattr(cls, STAND_IN_ATTR, name)
    _parsed.cache_clear()


@contextlib.contextmanager
def method_as_forward(cls: type, name: str) -> Iterator[None]:
    """Run method ``name`` as the class's forward for one build (reader_methods), then give the
    class back the forward it had (its own, an inherited one, or a stand-in)."""
    own = {key: cls.__dict__[key] for key in ("forward", STAND_IN_ATTR) if key in cls.__dict__}
    apply_stand_in(cls, name)
    try:
        yield
    finally:
        for key in ("forward", STAND_IN_ATTR):
            if key in own:
                setattr(cls, key, own[key])
            elif key in cls.__dict__:
                delattr(cls, key)
        _parsed.cache_clear()


def _self_name(function: ast.FunctionDef) -> str:
    """The name the method gives its instance; "" for a staticmethod, which has none (its first
    parameter is data: `focal_loss(labels, logits, ...)` handing `labels` on hands no self)."""
    if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list):
        return ""
    args = function.args.posonlyargs + function.args.args
    return args[0].arg if args else "self"


def _reached(methods: dict[str, ast.FunctionDef], start: str) -> set[str]:
    """Methods reachable from ``start`` through ``self.method(...)`` calls and property reads."""
    reached = {start}
    todo = [start]
    while todo:
        function = methods[todo.pop()]
        me = _self_name(function)
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me \
                    and node.attr in methods and node.attr not in reached:
                reached.add(node.attr)
                todo.append(node.attr)
    return reached


def _reads(function: ast.FunctionDef, attr: str, me: str | None = None) -> bool:
    me = me or _self_name(function)
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
                and node.value.id == me and isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.AugAssign) and _is_self_attr(node.target, me, attr):
            return True  # `self.steps += 1` reads it first
        if isinstance(node, ast.Constant) and node.value == attr:
            return True  # getattr(self, "attr"), self.__dict__["attr"], ...
    return False


def _escapes(methods: dict[str, Any], attr: str) -> bool:
    """Whether the constructor hands ``self.attr`` on (to a submodule, a function, a container),
    or builds a closure that reads it: then whatever receives it may be run by forward."""
    init = methods.get("__init__")
    if init is None:
        return False
    if _closure_reads(init, attr):
        return True
    me = _self_name(init)
    for node in ast.walk(init):
        if not isinstance(node, ast.Call) or _computes_only(node.func):
            continue
        for argument in list(node.args) + [k.value for k in node.keywords]:
            for inner in ast.walk(argument):
                if _is_self_attr(inner, me, attr):
                    # its own registration (register_buffer("x", self.x)) is not handing it on
                    func = node.func
                    if isinstance(func, ast.Attribute) and func.attr in ("register_buffer", "Parameter", "Buffer"):
                        continue
                    return True
    return False


# Namespaces whose functions compute a value from their arguments and keep none of them
# (`torch.cat([self.lam_set, t])`, `F.pad(self.k, p)`, `np.asarray(self.m)`): handing an
# attribute to one hands it to nothing that runs later.  (Not `torch.utils.data.TensorDataset`,
# `torch.jit.script`, `torch.nn.Parameter`: those keep what they are handed.)
_COMPUTING_NAMESPACES = frozenset({"torch", "torch.fft", "torch.linalg", "torch.special", "torch.nn.functional", "F",
                                   "np", "numpy", "np.linalg", "numpy.linalg", "math"})


def _computes_only(func: ast.expr) -> bool:
    if not isinstance(func, ast.Attribute):
        return False
    parts = []
    owner: ast.expr = func.value
    while isinstance(owner, ast.Attribute):
        parts.append(owner.attr)
        owner = owner.value
    if not isinstance(owner, ast.Name):
        return False
    namespace = ".".join([owner.id, *reversed(parts)])
    return namespace in _COMPUTING_NAMESPACES and not func.attr[:1].isupper()  # a class keeps what it is handed


def _closure_reads(init: ast.FunctionDef, attr: str) -> bool:
    """Whether a ``lambda`` or nested function of the constructor reads ``self.attr``: it reads
    the parent's slot again each time it is called, wherever it was handed."""
    me = _self_name(init)
    return any(_is_self_attr(inner, me, attr)
               for node in ast.walk(init) if node is not init and isinstance(node, (ast.Lambda, ast.FunctionDef))
               for inner in ast.walk(node))


def _is_self_attr(node: ast.AST, me: str, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == me
