"""A tensor computed with another that stays a plain attribute is not rewritten either.

Torch fact (torch 2.13): `model.to(device)` / `.cuda()` move every buffer and parameter, and
a raw attribute stays where it was made.  Two tensors on different devices given to one
operation (`torch.index_select(self.theta, 0, self.user_indices)`, `self.a + self.b`,
`self.loss(self.targets, pred)`, `self.table[self.ids]`) raise "Expected all tensors to be on
the same device" (only a 0-dim CPU tensor mixes with a CUDA one).  Where one attribute of a
class becomes a buffer and another tensor it is computed with stays a plain attribute (the
tool skips it, for a reason of its own), the original runs on the CPU, both tensors unmoved,
and the rewrite makes the method mix devices as soon as the model moves.  So the rewrite
waits for its partner: both move or neither does.  (The device mix checker of validation
measures it on the meta device: tests/test_kept_raw_partners.py.)

Reads during construction come before any move and do not count; nor do tensors bound
outside the constructor (a forward's per-call state is made where the inputs are).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.ftypes import Action
from codemod.rules.base import Rule
from codemod.rules.cpu_data_reads import _computes_from, _ends, _propagate

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts, ClassFacts
    from codemod.rules.base import Decision

RULE = Rule(
    "BUF225",
    "computed-with-a-plain-tensor",
    "computed in one operation with a tensor attribute of the class that stays a plain attribute (skipped for a "
    "reason of its own): as a buffer it would follow model.to(device) and the other would not",
    fact="model.to(device) moves buffers and parameters, never a raw attribute; an operation given tensors on two "
    "devices raises (only a 0-dim CPU tensor mixes with a CUDA one), so a buffer computed with a raw tensor "
    "fails once the model moves, where the two raw tensors ran together on the CPU.",
    before="def __init__(self, ratings, user_ids):\n    super().__init__()\n    self.user_ids = user_ids\n"
    "    self.theta = torch.zeros(8, 4, requires_grad=True)  # skipped: handed to an optimizer\n\n"
    "def fit(self):\n    return torch.index_select(self.theta, 0, self.user_ids)",
)
RULES = (RULE,)

_METHODS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Calls that print, measure or look at their arguments rather than compute with them.
_NOT_COMPUTING = frozenset({"print", "len", "str", "repr", "format", "isinstance", "type", "id", "getattr", "hasattr",
                            "setattr", "hash", "callable", "vars", "dir"})


def refine_class(cls: ClassFacts, decided: dict[str, tuple[AttributeFacts, Decision]]) -> None:
    """Skip each rewrite computed with a constructor tensor that stays raw, to a fixed point
    (a rewrite skipped here stays raw too, for the rewrites computed with it)."""
    methods = [m for m in cls.cls.body if isinstance(m, _METHODS) and m.name != "__init__" and m.args.args]
    raw = {attr for attr, (facts, decision) in decided.items()
           if decision.action is Action.SKIP and _bound_to_a_tensor_in_the_constructor(facts)
           and not _placed_on_a_device(facts) and not _meets_inputs(methods, attr)}
    if not raw:
        return
    changed = True
    while changed:
        changed = False
        for attr, (facts, decision) in list(decided.items()):
            if decision.action is Action.SKIP or not decision.edits:
                continue
            found = _computed_with(methods, attr, raw)
            if found is None:
                continue
            partner, method, line = found
            code = decided[partner][1].code
            decided[attr] = (facts, RULE.skip(
                f"computed with self.{partner} in {cls.cls.name}.{method} (line {line}), which stays a plain attribute "
                f"({code}): a buffer would follow model.to(device) and self.{partner} would not, so that line would mix "
                "devices where today both stay on the CPU",
                f"leave it as it is; or settle self.{partner} first (see {code}) so that both move with the model",
            ))
            if not _meets_inputs(methods, attr):
                raw.add(attr)
            changed = True


def _meets_inputs(methods: list, attr: str) -> bool:
    """Whether forward computes self.<attr> with its inputs (`self.lin(x) + self.offsets`):
    then the plain attribute already meets the model's device once the model moves, so the
    original mixes devices there as well, and a partner's rewrite breaks nothing that works."""
    for method in methods:
        if method.name != "forward":
            continue
        me = method.args.args[0].arg
        inputs = {a.arg for a in [*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs]} - {me}
        inputs |= {a.arg for a in (method.args.vararg, method.args.kwarg) if a is not None}
        if not inputs:
            continue
        tainted = _propagate([method], lambda value, names: _computes(value, lambda _: False, names), inputs)
        from_inputs = lambda node: _computes(node, lambda _: False, tainted)  # noqa: E731
        if any(_found_together(method, _from_attribute(method, me, attr, scalars_mix=True), from_inputs)):
            return True
    return False


def _placed_on_a_device(facts: AttributeFacts) -> bool:
    """Whether the constructor puts the tensor on a device (`.cuda()`, `.to(device)`,
    `device=`): then it is not where the rewrite's tensor is made either, and the original
    computes with the two on different devices already (or in ways, such as CPU indices into
    a CUDA tensor, that torch allows)."""
    for event in facts.events:
        for node in ast.walk(event.stmt):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr == "cuda":
                return True
            if isinstance(node.func, ast.Attribute) and node.func.attr == "to" and any(
                    not _names_a_dtype(a) for a in [*node.args, *(k.value for k in node.keywords if k.arg == "device")]):
                return True
            if any(k.arg == "device" and not (isinstance(k.value, ast.Constant) and k.value.value == "cpu")
                   for k in node.keywords):
                return True
    return False


def _names_a_dtype(node: ast.expr) -> bool:
    """`torch.float32`, `torch.long`, `x.dtype`: a cast, not a move."""
    return isinstance(node, ast.Attribute) and (node.attr == "dtype" or (
        isinstance(node.value, ast.Name) and node.value.id == "torch" and not node.attr.startswith("device")))


def _bound_to_a_tensor_in_the_constructor(facts: AttributeFacts) -> bool:
    return any(e.value is not None and e.value.is_tensor and not e.value.is_guess for e in facts.events)


def _computed_with(methods: list, attr: str, raw: set[str]) -> tuple[str, str, int] | None:
    """(the raw partner, the method, the line) of the first operation, in the first method
    that has one, that computes with self.<attr> and with a raw attribute; or None."""
    for method in methods:
        found = sorted(_mixes(method, attr, raw), key=lambda mix: mix[2])
        if found:
            return found[0]
    return None


def _mixes(method: ast.FunctionDef | ast.AsyncFunctionDef, attr: str, raw: set[str]):
    """(partner, method name, line) for each operation of `method` that computes with a value
    of self.<attr> and, in another operand, with a value of a raw partner."""
    me = method.args.args[0].arg
    read = {n.attr for n in ast.walk(method) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == me}
    if attr not in read:
        return
    mine = _from_attribute(method, me, attr)
    for partner in sorted((raw - {attr}) & read):
        # the partner reduced to one number (`self.table.sum()`) is a 0-dim CPU tensor, which
        # mixes with tensors on any device
        theirs = _from_attribute(method, me, partner, scalars_mix=True)
        for line in _found_together(method, mine, theirs):
            yield partner, method.name, line


def _found_together(method: ast.AST, first, second):
    """The line of each operation of `method` with an operand that `first` accepts and
    `second` does not, and another that `second` accepts and `first` does not."""
    for node in ast.walk(method):
        operands = _operands(node)
        for i, operand in enumerate(operands):
            others = operands[:i] + operands[i + 1:]
            if first(operand) and not second(operand) and any(second(o) and not first(o) for o in others):
                yield node.lineno
                break


def _from_attribute(method: ast.AST, me: str, attr: str, scalars_mix: bool = False):
    """A test of whether an expression computes from self.<attr> (or a local computed from
    it), other than through a call that moves it or makes a number of it; with
    `scalars_mix`, other than through a reduction to one element (`.sum()`) either."""
    def is_source(inner: ast.AST) -> bool:
        return isinstance(inner, ast.Attribute) and inner.attr == attr and isinstance(inner.value, ast.Name) \
            and inner.value.id == me and isinstance(inner.ctx, ast.Load)

    tainted = _propagate([method], lambda value, names: _computes(value, is_source, names, scalars_mix))
    return lambda node: _computes(node, is_source, tainted, scalars_mix)


# Calls after which a value is where the code put it, or no tensor at all: `self.b.to(x.device)`
# meets a buffer on its device, `self.b.item()` is a number, `self.b.size(0)` a size.
_PLACED = frozenset({"to", "cuda", "cpu", "type_as", "item", "tolist", "numpy", "size", "dim", "numel", "nelement",
                     "get_device"})
# Reductions that, given no dimension, leave one element: a 0-dim tensor.
_FULL_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "norm", "std", "var", "amax", "amin", "logsumexp",
                              "any", "all", "median", "nansum", "nanmean", "count_nonzero"})


def _computes(node: ast.AST, is_source, tainted: set[str], scalars_mix: bool = False) -> bool:
    """Whether `node` computes from a node `is_source` accepts or a tainted local, other than
    through a move (`.to(...)`, `.cuda()`), a call that leaves tensors (`.item()`, `len`) or a
    tensor's metadata (`.device`, `.shape`); with `scalars_mix`, other than through a
    reduction of every element (`.sum()`, `.max()`) either."""
    return _computes_from(node, is_source, tainted, stops=lambda inner: _stops(inner, scalars_mix))


def _stops(inner: ast.AST, scalars_mix: bool) -> bool:
    if _ends(inner, dtype=False):  # a number, a host copy, what a tensor says of itself
        return True
    if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)):
        return False
    name = inner.func.attr
    return name in _PLACED or (scalars_mix and name in _FULL_REDUCTIONS and not inner.args and not inner.keywords)


def _operands(node: ast.AST) -> list[ast.AST]:
    """The tensors one operation computes with: the sides of arithmetic and comparisons, a
    call's receiver and arguments (the elements of a list or tuple handed to it, as
    `torch.cat([a, b])` takes them), an indexed value and its index."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return [node.value, node.slice]
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id in _NOT_COMPUTING:
            return []
        if isinstance(node.func, ast.Attribute) and node.func.attr in _PLACED:
            return []  # `self.table.to(self.scale.device)`: a move, which computes nothing with its arguments
        operands: list[ast.AST] = [node.func.value] if isinstance(node.func, ast.Attribute) else []
        for argument in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(argument, ast.Starred):
                argument = argument.value
            operands.extend(argument.elts if isinstance(argument, (ast.List, ast.Tuple)) else [argument])
        return operands
    return []
