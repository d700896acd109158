"""A value first bound as a numpy array or a list and converted to a tensor later is built
in a local and registered once.

Torch fact (torch 2.13): `register_buffer(name, t)` raises `KeyError: "attribute 'name'
already exists"` when `self.name` already holds a plain value (a numpy array, a list), and
assigning a numpy array or a list to a registered buffer raises `TypeError: cannot assign
'numpy.ndarray' as buffer`.  Neither order of register-then-convert works on the attribute
itself; building the value in a local (`table = np.load(p)` ... `self.register_buffer(
"table", torch.from_numpy(table))`) leaves exactly one binding of the name, the buffer.
"""

from __future__ import annotations

import ast
import builtins
from keyword import iskeyword
from typing import TYPE_CHECKING

from codemod.edits import end, is_self_attr, position
from codemod.ftypes import Action
from codemod.plans import StmtEdit
from codemod.rules.base import Decision, Rule
from codemod.tensors import Kind

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF106",
    "local-then-buffer",
    "an attribute first bound to a non-tensor and converted later -> built in a local, then register_buffer once",
)
RULES = (RULE,)


# -- the decision ---------------------------------------------------------------------------


def localised(facts: AttributeFacts) -> tuple[str, list[StmtEdit], int] | None:
    """(local name, edits, number of events) that turn the non-tensor bindings before the
    first tensor one into a local; None when that is not plainly safe: every statement
    involved at the top level of __init__, no method of self called and self not passed
    along in between, and every use of the attribute in a simple statement."""
    key = ("localised", facts.attr)
    if key not in facts.cls.cache:
        facts.cls.cache[key] = _localised(facts)
    return facts.cls.cache[key]


def _localised(facts: AttributeFacts) -> tuple[str, list[StmtEdit], int] | None:
    events = facts.events
    first_tensor = next((i for i, e in enumerate(events) if e.kind == "assign" and e.value is not None and e.value.is_tensor), None)
    if not first_tensor:
        return None
    prefix, converted = events[:first_tensor], events[first_tensor]
    for event in prefix:
        if event.kind not in ("assign", "mutate", "fill") or event.value is None and event.kind == "assign":
            return None
        if event.kind == "assign" and (event.value.is_tensor or event.value.kind in (Kind.PARAMETER, Kind.BUFFER, Kind.NONE)):
            return None
    if not (isinstance(converted.stmt, ast.Assign) and len(converted.stmt.targets) == 1):
        return None
    found = localise(facts, prefix[0], converted)
    return None if found is None else (*found, first_tensor)


def localise(facts: AttributeFacts, first, last) -> tuple[str, list[StmtEdit]] | None:
    """(local name, edits) reading a local instead of self.<attr> from the statement of event
    `first` up to that of `last` (whose own reads are left to its rewrite); None when that
    is not plainly safe: both at the top level of __init__, no method of self called and self
    not passed along in between, every use of the attribute in a simple statement."""
    attr, cls = facts.attr, facts.cls
    if first.kind != "assign" or first.nested or last.nested:
        return None  # both run on every path: the local is bound, and the attribute is registered
    owner, init = cls.self_name, cls.init
    if owner is None or init is None:
        return None
    taken = {n.id for n in ast.walk(init) if isinstance(n, ast.Name)} | {a.arg for a in ast.walk(init.args) if isinstance(a, ast.arg)}
    local = next((n for n in (attr, f"{attr}_") if n.isidentifier() and not iskeyword(n) and n not in taken and not hasattr(builtins, n)), None)
    if local is None:
        return None
    span = init.body[first.top_index : last.top_index + 1]
    uses = 0
    for stmt in span:
        attribute_values = {id(n.value) for n in ast.walk(stmt) if isinstance(n, ast.Attribute)}
        called = {id(n.func) for n in ast.walk(stmt) if isinstance(n, ast.Call)}
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id == owner and id(node) not in attribute_values:
                return None  # self handed to something that may read the attribute
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == owner:
                if id(node) in called and not _is_registration(node, last):
                    return None  # a method of self may read the attribute
                if node.attr == attr:
                    uses += 1
    edits: list[StmtEdit] = []
    in_simple = 0
    for stmt in span:
        for node in ast.walk(stmt):
            if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)) or node is last.stmt:
                continue
            count = sum(1 for n in ast.walk(node) if is_self_attr(n, owner, attr))
            if count:
                in_simple += count
                edits.append(
                    StmtEdit(*position(cls.lines, node), "localise", attr, end=end(cls.lines, node), local=local, owner=owner)
                )
    if in_simple + sum(1 for n in ast.walk(last.stmt) if is_self_attr(n, owner, attr)) != uses:
        return None  # a use in an if/for header: not a statement the rewrite can edit
    return local, edits


def _is_registration(node: ast.Attribute, last) -> bool:
    """`self.register_buffer` of the statement that ends the span: the call that registers it."""
    value = getattr(last.stmt, "value", None)
    return last.kind == "register_buffer" and isinstance(value, ast.Call) and value.func is node


def refine(facts: AttributeFacts, decision: Decision) -> Decision:
    """A buffer whose attribute was first bound to a non-tensor: built in a local, registered once."""
    found = localised(facts) if decision.action is Action.BUFFER else None
    if found is None:
        return decision
    local, local_edits, _ = found
    for edit in decision.edits:
        edit.local, edit.owner = local, facts.cls.self_name or "self"
    decision.edits.extend(local_edits)
    decision.reason += f"; first built in the local `{local}`, then registered once"
    decision.code = RULE.code
    return decision
