"""Buffers, and which of them a checkpoint carries.

Torch fact (torch 2.13): a raw attribute is not in `state_dict()`, and neither is a
`persistent=False` buffer: the key lists are the same, and a checkpoint saved before the
rewrite loads with `strict=True`.  A persistent buffer adds a key that every checkpoint
saved before lacks (`Missing key(s) in state_dict`).  So every buffer is non-persistent by
default (`persistent = "never"`); `persistent = "state"` makes random initialisations and
state that training changes persistent, and says that older checkpoints lack the key.
A cast, a move or a view of the value (`self.x = self.x.to(y.device)`, `.type_as(y)`,
`.view(...)`) is not an update: it leaves a derived value derived.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.ftypes import Action
from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts, ClassFacts

NON_PERSISTENT = Rule(
    "BUF101",
    "non-persistent-buffer",
    "a raw tensor attribute -> register_buffer(..., persistent=False): moved and cast with the model, no new checkpoint key",
    statically_safe=True,
    fact='A raw tensor attribute is neither moved by model.to() nor in state_dict(); a persistent=False buffer is moved and cast with the model and still not in state_dict(), so every checkpoint saved before loads with strict=True.',
    before='def __init__(self, n):\n    super().__init__()\n    self.idx = torch.arange(n).long()',
    after='def __init__(self, n):\n    super().__init__()\n    self.register_buffer("idx", torch.arange(n).long(), persistent=False)',
)
PERSISTENT = Rule(
    "BUF102",
    "persistent-buffer",
    "with `persistent = \"state\"`: state a checkpoint must carry (random initialisation, running statistics updated "
    "from their previous value) -> register_buffer(...); checkpoints saved before lack the key",
    fact='A persistent buffer adds a state_dict key: checkpoints saved before lack it (load_state_dict(strict=True) fails with Missing key(s)); written only with persistent = "state", for values a rebuilt model cannot reproduce or that training updates.',
    before='def __init__(self, n):\n    super().__init__()\n    self.running_mean = torch.zeros(n)\n\ndef forward(self, x):\n    self.running_mean.mul_(0.9).add_(0.1 * x.mean(0))\n    return x - self.running_mean',
    after='def __init__(self, n):\n    super().__init__()\n    self.register_buffer("running_mean", torch.zeros(n))\n\ndef forward(self, x):\n    self.running_mean.mul_(0.9).add_(0.1 * x.mean(0))\n    return x - self.running_mean',
)
RULES = (NON_PERSISTENT, PERSISTENT)

_OLD_CHECKPOINTS = "checkpoints saved before this change lack the key: load them with strict=False"


# -- the decision ---------------------------------------------------------------------------


def decide(facts: AttributeFacts) -> Decision:
    """register_buffer for a raw tensor (every rule before it has passed)."""
    from codemod.edits import statement_edit, uses_attr
    from codemod.rules import local_first
    from codemod.rules.super_order import placement
    from codemod.tensors import Kind

    cls = facts.cls
    found = local_first.localised(facts)
    events = facts.events[found[2] :] if found is not None else facts.events
    persistent, reason, suggestion = policy(facts, events)
    decision = Decision(
        Action.BUFFER, reason, PERSISTENT.code if persistent else NON_PERSISTENT.code, suggestion=suggestion, persistent=persistent
    )
    registered_at: int | None = None  # top-level statement that registers the buffer on every path
    for event in events:
        if event.kind != "assign" or event.value is None:
            continue
        if not (event.value.is_tensor or event.value.kind is Kind.NONE):
            continue
        if registered_at is not None and event.top_index > registered_at and uses_attr(event.stmt.value, cls.self_name, facts.attr):
            # `self.x = self.x.bool()` updates the buffer registered above: assigning a
            # tensor to a buffer name replaces the buffer and keeps its persistence.
            continue
        if not event.nested:
            registered_at = event.top_index if registered_at is None else registered_at
        edit, moves = statement_edit(cls.lines, cls.evaluator, event, "buffer", facts.attr, persistent, parameter=False, cls=cls.cls)
        where = placement(facts, event)
        edit.move_after = where if isinstance(where, tuple) else None
        decision.edits.append(edit)
        if moves:
            decision.moves.append((edit, moves))
        if isinstance(event.stmt, ast.AnnAssign):
            _declare(facts, event.stmt.annotation, decision)
    # Float casts (model.half(), .to(torch.bfloat16)) never touch an integer or bool buffer,
    # and a non-persistent one adds no checkpoint key: nothing can tell it from the attribute.
    tensors = [e.value for e in events if e.kind == "assign" and e.value is not None and e.value.is_tensor]
    decision.statically_safe = not persistent and bool(tensors) and all(v.integer and not v.integer_guessed for v in tensors)
    return decision


def _declare(facts: AttributeFacts, annotation: ast.expr, decision: Decision) -> None:
    """`self.x: T = t` becomes a registration; `x: T` is declared on the class instead."""
    for stmt in facts.cls.cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == facts.attr:
            return
    text = ast.get_source_segment("\n".join(facts.cls.lines), annotation) or ast.unparse(annotation)
    if (facts.attr, text) not in decision.annotations:
        decision.annotations.append((facts.attr, text))


def policy(facts: AttributeFacts, events) -> tuple[bool, str, str | None]:
    """(persistent, the reason printed, a suggestion) under the class's persistence policy."""
    cls = facts.cls
    state, why = state_of(facts.attr, events, facts.outside, cls.init, cls.self_name, cls.cache)
    if cls.policy == "state":
        if state:
            if why.startswith("another branch"):
                why += "; the key exists in both configurations"
            return True, f"persistent: {why}; {_OLD_CHECKPOINTS}", None
        return False, f"persistent=False: {why}", None
    if state:
        # a saved copy helps where a rebuilt model cannot reproduce the value, or training accumulates it
        helps = why.startswith(("random initialisation", "uninitialised memory", "value from a torch function", "running state"))
        return False, f"persistent=False: {why}; kept out of checkpoints, as the attribute was", (
            'persistent = "state" saves it in checkpoints; checkpoints saved before then lack the key: '
            "load them with strict=False"
        ) if helps else None
    return False, f"persistent=False: {why}", None


def refine_class(cls: ClassFacts, decided: dict[str, tuple[AttributeFacts, Decision]]) -> None:
    """Attributes updated together in one method (a history and its count, a queue and its
    pointer) get the same persistence: a checkpoint holding one without the other restores
    an inconsistent state.  Only `persistent = "state"` makes buffers persistent."""
    if cls.policy != "state":
        return
    buffers = {attr: pair for attr, pair in decided.items() if pair[1].action is Action.BUFFER}
    by_method: dict[str, set[str]] = {}
    for attr, (facts, _) in buffers.items():
        for label, event in facts.outside:
            if _outside_update(attr, event, cls.self_name) is not None:
                by_method.setdefault(label, set()).add(attr)
    for label, attrs in sorted(by_method.items()):
        persistent = sorted(a for a in attrs if buffers[a][1].persistent)
        if not persistent:
            continue
        for attr in sorted(attrs - set(persistent)):
            decision = buffers[attr][1]
            decision.persistent = True
            decision.code = PERSISTENT.code
            decision.statically_safe = False
            decision.reason = (
                f"persistent: updated in {label} together with self.{persistent[0]}, which is state; "
                f"a checkpoint must hold both; {_OLD_CHECKPOINTS}"
            )
            for edit in decision.edits:
                edit.persistent = True


# In-place calls that overwrite every element without reading the old values: a tensor
# refilled this way outside __init__ is scratch space, not state.
_OVERWRITE_METHODS = frozenset({"zero_", "fill_", "normal_", "uniform_", "random_", "bernoulli_", "cauchy_",
                                "exponential_", "geometric_", "log_normal_"})
# Methods that only move, cast or view: `self.x = self.x.to(device)` / `.type_as(y)` / `.view(...)`
# is not an update of its value.
_MOVE_METHODS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "long", "int", "bool", "short",
                           "byte", "char", "type", "type_as", "contiguous", "detach", "clone", "view", "view_as",
                           "reshape", "reshape_as", "expand", "expand_as", "permute", "transpose", "t", "squeeze",
                           "unsqueeze", "flatten", "pin_memory", "requires_grad_"})


def state_of(attr: str, events, outside, init: ast.FunctionDef | None, self_name: str | None, cache: dict | None = None) -> tuple[bool, str]:
    """Whether the value is state a checkpoint must carry, and the reason printed for it.

    `events`: the attribute's events in __init__ (codemod.walker.AttrEvent); `outside`:
    (label, event) pairs from the class's other methods, its bases and subclasses.
    """
    for event in events:
        if event.kind == "assign" and event.value is not None and event.value.kind.name == "PARAMETER":
            return True, f"another branch makes it an nn.Parameter (line {event.stmt.lineno})"
    if _starts_empty(events):
        for label, event in outside:
            if event.kind in ("assign", "register_buffer") and _outside_update(attr, event, self_name) == "recompute":
                # A saved value of another shape would not load into the freshly built, empty one.
                return False, (
                    f"starts empty and is replaced in {label} (line {event.stmt.lineno}); "
                    "a saved value would not fit a freshly built model"
                )
    scratch = None
    for label, event in outside:
        how = _outside_update(attr, event, self_name)
        if how == "update":
            return True, f"running state, updated from its previous value in {label} (line {event.stmt.lineno})"
        if how == "fill":
            # written in place (index assignment, copy_): what the model accumulates, a queue or a cache
            return True, f"written in place in {label} (line {event.stmt.lineno})"
        if how == "recompute" and scratch is None:
            when = " when a condition there holds" if event.nested else ""
            scratch = f"recomputed wholesale in {label} (line {event.stmt.lineno}){when}; a saved value would be stale"
    if scratch is not None:
        return False, scratch
    state = _init_state(events)
    if state is not None:
        if state.startswith(("random initialisation", "uninitialised memory")):
            return True, f"{state}; a rebuilt model cannot reproduce it"
        if state.startswith("value from a torch function chosen at run time"):
            return True, f"{state}, which may draw random numbers"
        if state.startswith("data passed in or uninitialised memory"):
            what = state[len("data passed in or uninitialised memory") :].strip()
            return False, f"data passed in, or a size {what}; rebuilt on each construction"
        if state.startswith("data passed in"):
            what = state[len("data passed in") :].strip()
            if what.startswith("(constructor argument"):
                how = what[len("(constructor argument") : -1].lstrip("; ")  # how it was typed (call_sites)
                how = f" ({how})" if how else ""
                what = "a tensor handed to the constructor" if _kept_as_handed(events) else \
                    "computed from a tensor handed to the constructor"
                return False, f"{what}{how}, which its caller builds again on each construction"
            if "load" in what:
                return False, f"loaded from a file in __init__ {what}; rebuilt on each construction"
            return False, f"derived from constructor arguments or data {what}; rebuilt on each construction"
        return False, f"{state}; rebuilt on each construction"
    if _reads_arguments(events, init, self_name, cache):
        return False, "derived from constructor arguments; rebuilt on each construction"
    return False, "deterministic constant"


_EMPTY_FACTORIES = frozenset({"empty", "zeros", "ones", "tensor", "Tensor", "FloatTensor", "LongTensor"})


def _starts_empty(events) -> bool:
    """Whether __init__ binds a zero-size tensor: `torch.empty(0)`, `torch.zeros(0)`,
    `torch.tensor([])`, `torch.Tensor()`."""
    for event in events:
        node = event.value_node if event.kind == "assign" else None
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _EMPTY_FACTORIES):
            continue
        args = node.args
        if not args and node.func.attr[0].isupper():
            return True
        if len(args) == 1 and (
            (isinstance(args[0], ast.Constant) and args[0].value == 0)
            or (isinstance(args[0], (ast.List, ast.Tuple)) and not args[0].elts and node.func.attr in ("tensor", "Tensor", "FloatTensor", "LongTensor"))
        ):
            return True
    return False


def _init_state(events) -> str | None:
    """The strongest state the constructor gives the value: random beats data."""
    states = [
        e.value.stateful
        for e in events
        if e.kind in ("assign", "mutate") and e.value is not None and e.value.is_tensor and e.value.stateful
    ]
    for state in states:
        if state.startswith(("random initialisation", "uninitialised memory")):
            return state
    return states[0] if states else None


def _outside_update(attr: str, event, self_name: str | None) -> str | None:
    """"update" (the new value depends on the old one), "recompute" (replaced wholesale),
    "fill" (new data written into it in place, as into a cache) or None (a move)."""
    if event.kind == "mutate":
        stmt = event.stmt
        if isinstance(stmt, ast.AugAssign):
            return "update"  # self.x += v reads the old value
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            if isinstance(func, ast.Attribute) and func.attr in _OVERWRITE_METHODS:
                return "recompute"
            if isinstance(func, ast.Attribute) and func.attr == "copy_":
                # ema.copy_(ema * d + new) is an update; cache.copy_(new) a wholesale refill
                return "update" if _reads_values(stmt.value, attr, self_name, skip_receiver=True) or _state_name(attr) else "fill"
            return "update"  # mul_, add_, ...: in-place arithmetic on the old values
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            # self.x[...] = v: a running value when v reads the old one (or the name says so);
            # forward inputs written into a preallocated tensor (a KV cache) are scratch
            return "update" if _reads_values(stmt.value, attr, self_name) or _state_name(attr) else "fill"
        return "update"
    if event.kind in ("assign", "register_buffer"):
        node = event.value_node
        if node is None:
            return "recompute"
        if _only_moves_itself(node, attr, self_name):
            return None
        return "update" if _reads_values(node, attr, self_name) else "recompute"
    return None


# Reading these of a tensor reads no element: `torch.arange(n, device=self.x.device)` is new.
_METADATA = frozenset({"device", "dtype", "shape", "ndim", "is_cuda", "layout", "size", "dim", "numel", "new_zeros",
                       "new_ones", "new_empty", "new_full"})


# Names that say a tensor is running state even when its update does not read it.
_STATE_WORDS = ("running", "num_batches", "ema", "moving", "shadow", "avg", "average", "count", "step")


def _state_name(attr: str) -> bool:
    lowered = attr.lower()
    return any(word in lowered for word in _STATE_WORDS)


def _reads_values(node: ast.expr, attr: str, self_name: str | None, skip_receiver: bool = False) -> bool:
    """Whether `node` reads the elements of self.<attr> (not only its device, dtype or shape).

    skip_receiver: `node` is `self.x.method(...)`; the receiver itself does not count."""
    metadata_only = {
        id(n.value) for n in ast.walk(node) if isinstance(n, ast.Attribute) and n.attr in _METADATA
    }
    if skip_receiver and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        metadata_only.add(id(node.func.value))
        inner = node.func.value
        while isinstance(inner, ast.Attribute) and inner.attr == "data":
            inner = inner.value
            metadata_only.add(id(inner))
    return any(_is_self_attr(n, attr, self_name) and id(n) not in metadata_only for n in ast.walk(node))


def _is_self_attr(node: ast.AST, attr: str, self_name: str | None) -> bool:
    while isinstance(node, ast.Attribute) and node.attr == "data":
        node = node.value
    return (
        isinstance(node, ast.Attribute)
        and node.attr == attr
        and isinstance(node.value, ast.Name)
        and node.value.id == self_name
    )


def _only_moves_itself(node: ast.expr, attr: str, self_name: str | None) -> bool:
    """`self.x.to(device)`, `self.x.cuda().float()`: the same values, moved or cast (also
    `self.x.to(d) if self.x is not None else None`)."""
    if isinstance(node, ast.IfExp):
        return all(
            (isinstance(arm, ast.Constant) and arm.value is None) or _only_moves_itself(arm, attr, self_name)
            for arm in (node.body, node.orelse)
        )
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MOVE_METHODS:
        node = node.func.value
    return _is_self_attr(node, attr, self_name)


def _kept_as_handed(events) -> bool:
    """Whether the constructor keeps the argument itself (`self.w = w`, `args.adj`, `w.to(device)`,
    `w.view(-1)`), not a value computed from it (`-torch.sum(torch.log(w))`)."""
    for event in events:
        node = event.value_node
        if event.kind != "assign" or node is None:
            continue
        while isinstance(node, ast.Call) and (isinstance(node.func, ast.Attribute) or (
                isinstance(node.func, ast.Name) and node.func.id == "Variable" and node.args)):
            # a method of the value (a move, a cast, a view), or the old Variable wrapper
            node = node.func.value if isinstance(node.func, ast.Attribute) else node.args[0]
        root = node
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value  # `args.adj`, `kwargs["adj"]`
        if not isinstance(root, ast.Name) or (root.id in _LIBRARY_NAMES and node is not event.value_node):
            return False  # `torch.cat([...])`, `torch.nn.functional.pad(w, ...)`: a library's function, computing
    return True


# Names a constructor reaches libraries through, not arguments.
_LIBRARY_NAMES = frozenset({"torch", "F", "nn", "np", "numpy", "math", "scipy"})


def _reads_arguments(events, init: ast.FunctionDef | None, self_name: str | None, cache: dict | None = None) -> bool:
    """Whether a value assigned in __init__ reads a constructor argument, directly or through
    locals computed from one (or reads another attribute of self)."""
    if init is None:
        return False
    cached = cache.get("argument_names") if cache is not None else None
    tainted = cached if cached is not None else _argument_names(init, self_name)
    if cache is not None:
        cache["argument_names"] = tainted
    return any(
        e.kind in ("assign", "mutate") and e.value_node is not None and e.value is not None and e.value.is_tensor
        and _reads_any(e.value_node, tainted, self_name)
        for e in events
    )


def _reads_any(node: ast.AST, tainted: set[str], self_name: str | None) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in tainted:
            return True
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == self_name and isinstance(n.ctx, ast.Load):
            return True
    return False


def _argument_names(init: ast.FunctionDef, self_name: str | None) -> set[str]:
    """The constructor's arguments and the locals computed from them (or from self)."""
    args = init.args
    tainted = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a.arg != self_name}
    if args.vararg:
        tainted.add(args.vararg.arg)
    if args.kwarg:
        tainted.add(args.kwarg.arg)

    def reads(node: ast.AST) -> bool:
        return _reads_any(node, tainted, self_name)

    changed = True
    while changed:  # locals computed from arguments carry them along
        changed = False
        for node in ast.walk(init):
            targets: list[ast.expr] = []
            value: ast.AST | None = None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                targets, value = [node.target], node.value
            elif isinstance(node, (ast.For, ast.comprehension)):
                targets, value = [node.target], node.iter
            if value is None or not reads(value):
                continue
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name) and n.id not in tainted:
                        tainted.add(n.id)
                        changed = True
    return tainted
