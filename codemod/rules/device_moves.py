"""A construction-time device move is dropped only when nothing can tell.

Torch facts (torch 2.13): a buffer registered with the move kept (`register_buffer("x",
t.to(device))`) starts on that device and still moves with `model.to()`: keeping the move
is always safe.  Dropping it is an improvement only when the model is moved as a whole
before the value is read.  A tensor read while the model is built (later in `__init__`, in
a method it calls, by a child module it is handed to) must be on that device then:
without the move the constructor mixes devices (reproduced on the `meta` device as a
stand-in: `Tensor on device cpu is not on the expected device meta!`).  And a model whose
parameters are built in place on a device (`nn.Linear(..., device=device)`) is often
never moved with `.to()`, so a buffer left on the CPU would stay there.

So the move is dropped only when all of these hold: every binding with a move is in
`__init__` itself; nothing reads the attribute after it during construction (`__init__`,
the methods it calls, anything `self` is handed to); nothing in the repository reads it
through an object other than `self` (`AtlasLoss(self.branch.verts)` in a parent's
constructor may run before the model is moved); the class builds parameters or
submodules that hold state on the CPU (so it must be moved as a whole to run on another
device; a loss or an activation without weights runs on any device unmoved, and losses
are often never moved; so does a repository module whose constructors build no weights,
a noise layer holding numbers and tensors) and none on the move's device expression.  Otherwise the move stays inside the rewrite, and the
finding says why.  `.cuda()` follows the same rule.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.plans import SpineEdit
from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts, ClassFacts

RULE = Rule(
    "BUF205",
    "device-move-kept",
    "a construction-time .to(device) / .cuda() stays inside the rewrite unless the model is provably moved as a whole before the value is read",
    fact="A buffer registered on a device still follows model.to(); dropping the move changes where the tensor is "
    "while __init__ (or a child it is handed to) reads it, and for models built in place on a device that are never moved.",
    before="def __init__(self, n, device):\n    super().__init__()\n    self.lin = nn.Linear(n, n, device=device)\n"
    "    self.mask = torch.ones(n).to(device)",
    after="def __init__(self, n, device):\n    super().__init__()\n    self.lin = nn.Linear(n, n, device=device)\n"
    '    self.register_buffer("mask", torch.ones(n).to(device), persistent=False)',
)
RULES = (RULE,)


def refine(facts: AttributeFacts, decision: Decision) -> Decision:
    if not decision.moves:
        return decision
    kept = why_kept(facts, decision)
    if kept is None:
        for edit, moves in decision.moves:
            edit.spine = tuple(sorted((*edit.spine, *moves), key=lambda s: s.index))
        decision.reason += "; its device move is dropped (the model is moved as a whole before anything reads it)"
    else:
        for edit, moves in decision.moves:
            if edit.op == "unmove":
                # nn.Parameter(t).to(device) -> nn.Parameter(t.to(device)): a leaf, where it was
                edit.spine = tuple(sorted((*edit.spine, *(SpineEdit(m.index, "sink") for m in moves)), key=lambda s: s.index))
        decision.reason += f"; its device move is kept: {kept}"
    decision.moves = []
    return decision


def why_kept(facts: AttributeFacts, decision: Decision) -> str | None:
    """Why the moves cannot be dropped; None when dropping them is proven safe."""
    cls = facts.cls
    init = cls.init
    if init is None:
        return "there is no __init__"
    first, last = init.lineno, init.end_lineno or init.lineno
    bindings = [e for e in facts.events if e.kind in ("assign", "register_buffer")]
    if any(not first <= e.stmt.lineno <= last for e in bindings):
        return "a method __init__ calls binds it"
    ends = [e.stmt.end_lineno or e.stmt.lineno for e in bindings if e.stmt.lineno >= first]
    read = facts.reads_in_constructor(min(ends)) if ends else None
    if read is not None:
        return f"construction reads self.{facts.attr} at line {read}, on the device it was moved to"
    devices = _move_devices(decision, cls)
    if devices is None:
        return "the device it is moved to cannot be told"
    own = {(e.stmt.lineno, e.stmt.end_lineno) for e in bindings}
    built = [(what, device) for what, device, line in _built_parts(cls) if not any(a <= line <= (b or a) for a, b in own)]
    placed = sorted({where for where, device in built if device is not None and (device in devices or "cuda" in devices and device.startswith("cuda"))})
    if placed:
        return f"the class builds {placed[0]} on that device itself, so it may never be moved with .to()"
    if not any(device is None for _, device in built):
        return "the class builds no parameter, and no submodule holding weights, of its own, so nothing shows it is moved with .to()"
    elsewhere = _read_through_an_instance(facts)
    if elsewhere is not None:
        return f"{elsewhere} reads .{facts.attr} of an object, which may be this class's while a model is still being built"
    return None


def _read_through_an_instance(facts: AttributeFacts) -> str | None:
    """Where the repository reads the attribute through something other than `self`
    (`loss = AtlasLoss(self.atlas_branch.test_verts)` in a parent's constructor), if anywhere
    outside the class itself: a read the class cannot see, which may come before the model
    is moved."""
    cls = facts.cls
    index = cls.index
    own = (cls.symbols.path, cls.cls.lineno, cls.cls.end_lineno or cls.cls.lineno)
    for path, tree in index.parsed_files_mentioning(f".{facts.attr}"):
        if tree is None:
            return f"{path.name} (which does not parse)"
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute) and node.attr == facts.attr and isinstance(node.ctx, ast.Load)
                and not (isinstance(node.value, ast.Name) and node.value.id == "self")
                and not (path == own[0] and own[1] <= node.lineno <= own[2])
            ):
                return f"{path.name}, line {node.lineno},"
    return None


def _move_devices(decision: Decision, cls: ClassFacts) -> set[str] | None:
    """The device expressions the values are moved to (as source text; `.cuda()` is "cuda")."""
    devices: set[str] = set()
    for edit, moves in decision.moves:
        for move in moves:
            call = _spine_node(cls, edit, move.index)
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
                return None
            if call.func.attr == "cuda":
                devices.add("cuda")
                continue
            target = next((k.value for k in call.keywords if k.arg == "device"), call.args[0] if call.args else None)
            if target is None:
                return None
            devices.add(ast.unparse(target))
    return devices


def _spine_node(cls: ClassFacts, edit, index: int) -> ast.AST | None:
    """The node `index` steps down the call chain of the statement's value (SpineEdit)."""
    stmt = _statement_at(cls, edit.line, edit.col)
    node = getattr(stmt, "value", None)
    for _ in range(index):
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        else:
            return None
    return node


def _statement_at(cls: ClassFacts, line: int, col: int) -> ast.stmt | None:
    from codemod.edits import char_col

    if cls.init is None:
        return None
    for node in ast.walk(cls.init):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno == line and char_col(cls.lines, line, node.col_offset) == col:
            return node
    return None


def _holds_nothing(qualname: str, call: ast.Call) -> bool:
    """A torch.nn layer built without parameters, buffers or children (`nn.MSELoss()`,
    `nn.ReLU()`, `nn.MaxPool2d(2)`; torch_table.NN_PARAMETER_FREE_MODULES): it runs on any
    device unmoved, so holding it says nothing about the model being moved with .to().  A
    loss handed class weights (`nn.CrossEntropyLoss(w)`, `weight=w`) holds them as a buffer."""
    from codemod import torch_table

    name = qualname.rpartition(".")[2]
    if not qualname.startswith("torch.nn.") or name not in torch_table.NN_PARAMETER_FREE_MODULES:
        return False
    if any(k.arg in ("weight", "pos_weight") for k in call.keywords):
        return False
    return not (name.endswith("Loss") and call.args)


def _built_parts(cls: ClassFacts) -> list[tuple[str, str | None, int]]:
    """(what, device expression or None for the CPU, line) for every parameter and submodule the
    constructor builds: `nn.Linear(...)`, a repository module class, `nn.Parameter(...)`,
    with their `device=` argument or a `.to(device)` / `.cuda()` applied to them."""
    key = "built_parts"
    if key in cls.cache:
        return cls.cache[key]
    from codemod import torch_names as tn

    found: list[tuple[str, str | None, int]] = []
    moved: dict[int, str] = {}  # id of a built call -> the device a chained move puts it on
    init = cls.init
    # What the repository's base classes build in their constructors runs too (super().__init__()).
    for symbols, base in cls.bases:
        base_init = next((s for s in base.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None)
        for node in ast.walk(base_init) if base_init is not None else ():
            if isinstance(node, ast.Call):
                qualname = symbols.qualify(node.func)
                if qualname is not None and tn.classify_call(qualname) in (tn.CallKind.MODULE, tn.CallKind.PARAMETER):
                    device = next((ast.unparse(k.value) for k in node.keywords if k.arg == "device"), None)
                    found.append((f"{qualname.rpartition('.')[2]} (in {base.name})", device, -1))
    for node in ast.walk(init) if init is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("to", "cuda"):
            inner = node.func.value
            if isinstance(inner, ast.Call):
                if node.func.attr == "cuda":
                    moved[id(inner)] = "cuda"
                else:
                    target = next((k.value for k in node.keywords if k.arg == "device"), node.args[0] if node.args else None)
                    if target is not None:
                        moved[id(inner)] = ast.unparse(target)
    for node, qualname, kind, resolved in _parts_in(cls.index, cls.symbols, init):
        if resolved is not None and not _holds_weights(cls.index, resolved):
            # a repository module counts only if it holds weights: one that holds raw tensors
            # and numbers (a noise layer) runs on any device unmoved, as a torch loss does
            continue
        device = next((ast.unparse(k.value) for k in node.keywords if k.arg == "device"), None)
        if device is None and kind is tn.CallKind.PARAMETER and node.args:
            inner = node.args[0]
            device = next((ast.unparse(k.value) for k in getattr(inner, "keywords", ()) if k.arg == "device"), None)
        found.append((f"{qualname.rpartition('.')[2]} (line {node.lineno})", moved.get(id(node), device), node.lineno))
    cls.cache[key] = found
    return found


# How deep _holds_weights follows repository modules built inside repository modules.
_MAX_WEIGHT_DEPTH = 4


def _holds_weights(index, resolved, depth: int = 0) -> bool:
    """Whether a repository module class builds, in its constructor or its repository bases',
    a parameter or a torch.nn layer that holds state (`nn.Linear`, not `nn.ReLU()`), or a
    repository module that does; unsure (too deep, unreadable) counts as holding weights."""
    from codemod import torch_names as tn

    if depth >= _MAX_WEIGHT_DEPTH:
        return True
    try:
        node = resolved.node
        symbols = resolved.module
    except Exception:
        return True
    if symbols is None:
        return True
    for base in node.bases:
        qualname = symbols.qualify(base)
        if qualname is None or qualname.startswith("torch."):
            if qualname is not None and tn.classify_call(qualname) is tn.CallKind.MODULE and qualname.rpartition(".")[2] != "Module":
                return True  # a subclass of a torch layer (nn.Conv2d) holds its weights
            continue
        base_resolved = index.resolve(qualname, symbols.path)
        if base_resolved.kind == "class" and _holds_weights(index, base_resolved, depth + 1):
            return True
    init = next((s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None)
    return any(inner is None or _holds_weights(index, inner, depth + 1)
               for _, _, _, inner in _parts_in(index, symbols, init))


def _parts_in(index, symbols, init):
    """(call, qualname, kind, resolved) for each call in a constructor that builds a parameter
    or a torch.nn layer holding state (resolved None), or a module class of the repository
    (resolved: the class, whose own weights the caller asks about)."""
    from codemod import torch_names as tn

    for node in ast.walk(init) if init is not None else ():
        if not isinstance(node, ast.Call):
            continue
        qualname = symbols.qualify(node.func)
        if qualname is None:
            continue
        kind = tn.classify_call(qualname)
        if kind in (tn.CallKind.MODULE, tn.CallKind.PARAMETER):
            if not _holds_nothing(qualname, node):
                yield node, qualname, kind, None
        elif not qualname.startswith("torch."):
            resolved = index.resolve(qualname, symbols.path)
            if resolved.kind == "class" and index.is_resolved_module_class(resolved):
                yield node, qualname, kind, resolved
