"""A tensor filled in lazily gets an empty buffer slot in the constructor.

Torch facts (torch 2.13): `self.register_buffer("x", None, persistent=False)` registers an
empty slot: `buffers()` and `state_dict()` hold nothing for it; a later `self.x = tensor`
(in `forward`, in a setup method) lands in `_buffers` because `Module.__setattr__` keeps a
registered name there, so from then on `.to()` moves it and `.half()` casts it, and it
stays out of `state_dict()` (a non-persistent slot stays non-persistent).  A plain
`self.x = None` in `__init__` followed by `self.x = tensor` elsewhere never moves.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.ftypes import Action
from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF107",
    "lazy-buffer",
    "set to None in __init__ and to a tensor by another method -> register_buffer(name, None, persistent=False) in __init__",
    fact="register_buffer(name, None) makes a later `self.name = tensor` a buffer: moved by .to(), cast by .half(), "
    "not in state_dict() when registered with persistent=False.",
    before="def __init__(self):\n    super().__init__()\n    self.cache = None\n\ndef forward(self, x):\n"
    "    if self.cache is None:\n        self.cache = torch.ones(x.shape[-1])\n    return x * self.cache",
    after="def __init__(self):\n    super().__init__()\n    self.register_buffer(\"cache\", None, persistent=False)\n\n"
    "def forward(self, x):\n    if self.cache is None:\n        self.cache = torch.ones(x.shape[-1])\n    return x * self.cache",
)
RULES = (RULE,)


def wants(facts: AttributeFacts) -> bool:
    """The attribute is none of the raw bindings the analysis looks at by itself (registry.considers)."""
    return is_lazy(facts)


def is_lazy(facts: AttributeFacts) -> bool:
    """Bound only to None in the constructor, and to a tensor by a method of the class."""
    from codemod.tensors import Kind

    if facts.registered_by_base:
        return False
    bindings = [e for e in facts.events if e.kind in ("assign", "setattr", "unpack", "register_buffer", "registered", "fill")]
    if not bindings or any(e.kind not in ("assign", "unpack") or e.value is None or e.value.kind is not Kind.NONE for e in bindings):
        return False
    if any(chained(e) for e in bindings):
        return False  # `self.a = self.b = None`: one slot statement for two names, left to the reports
    # Not through a hook or callback: what it is handed (a module's output) may be a tuple,
    # which an empty buffer slot would refuse.
    binding = facts.own_tensor_binding(through_inner_functions=False)
    if binding is None or binding[1].value.is_guess:
        return False  # a guess fit for a report only (what a child module of no known class returns)
    return not replaced_on_every_call(facts)


def chained(event) -> bool:
    """A binding by a chained assignment (`self.a = self.b = value`)."""
    return event.kind == "unpack" and isinstance(event.stmt, ast.Assign) and len(event.stmt.targets) > 1


def replaced_on_every_call(facts: AttributeFacts) -> bool:
    """Every tensor the class binds to it outside __init__ is bound by forward, on every call
    (not under an if, a loop or a try), from a value that does not read the attribute, and
    forward does not read it before: a per-call value (attention weights kept for
    inspection), not state the model carries between calls.  rules/placeholder.py reports it."""
    import ast

    own = f"{facts.cls.cls.name}."
    bindings = [e for label, e in facts.outside if label.startswith(own) and e.kind in ("assign", "unpack")]
    if not bindings or any(label != f"{own}forward" for label, e in facts.outside if label.startswith(own) and e in bindings):
        return False
    forward = next(
        (s for s in facts.cls.cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "forward"), None
    )
    if forward is None or not forward.args.args:
        return False
    self_name = forward.args.args[0].arg
    every_call: list[ast.stmt] = []
    pending = list(forward.body)
    while pending:
        # the statements that run on every call: the body, what `with` blocks hold, and both
        # arms of `if self.training:` (every training call, every evaluation call)
        stmt = pending.pop(0)
        every_call.append(stmt)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            pending[0:0] = stmt.body
        elif isinstance(stmt, ast.If) and _tests_mode(stmt.test, self_name):
            pending[0:0] = [*stmt.body, *stmt.orelse]
        elif isinstance(stmt, ast.If) and stmt.orelse:
            arms = [[e.stmt for e in bindings if any(e.stmt is n for part in arm for n in ast.walk(part))]
                    for arm in (stmt.body, stmt.orelse)]
            if all(arms):  # an if/else that binds the attribute in each arm: bound either way
                every_call.extend(b for arm in arms for b in arm)
    if any(e.stmt not in every_call for e in bindings):
        return False
    first = min(every_call.index(e.stmt) for e in bindings)

    def reads(node: ast.AST) -> bool:
        return any(
            isinstance(n, ast.Attribute) and n.attr == facts.attr and isinstance(n.ctx, ast.Load)
            and isinstance(n.value, ast.Name) and n.value.id == self_name
            for n in ast.walk(node)
        )

    if any(reads(stmt) for stmt in every_call[:first] if not isinstance(stmt, (ast.With, ast.AsyncWith))):
        return False
    return not any(reads(e.stmt.value) for e in bindings if isinstance(e.stmt, (ast.Assign, ast.AnnAssign)) and e.stmt.value)


def _tests_mode(test: ast.expr, self_name: str) -> bool:
    """`self.training` or `not self.training`: the module's mode, the same on every call in it."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return (isinstance(test, ast.Attribute) and test.attr == "training" and isinstance(test.value, ast.Name)
            and test.value.id == self_name)


def decide(facts: AttributeFacts) -> Decision | None:
    from codemod.edits import statement_edit
    from codemod.rules.super_order import placement

    if not is_lazy(facts):
        return None
    cls = facts.cls
    label, event = facts.own_tensor_binding(through_inner_functions=False)  # type: ignore[misc]
    decision = Decision(
        Action.BUFFER,
        f"persistent=False: set to None here and to a tensor in {label} (line {event.stmt.lineno}); registered empty, "
        "the tensor becomes a buffer when it is assigned (moved and cast with the model, not saved)",
        RULE.code,
        persistent=False,
    )
    for binding in facts.events:
        edit, _ = statement_edit(cls.lines, cls.evaluator, binding, "buffer", facts.attr, False, parameter=False, cls=cls.cls)
        where = placement(facts, binding)
        edit.move_after = where if isinstance(where, tuple) else None
        decision.edits.append(edit)
    return decision
