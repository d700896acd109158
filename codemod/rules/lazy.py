"""A tensor filled in lazily gets an empty buffer slot in the constructor.

Torch facts (torch 2.13): `self.register_buffer("x", None, persistent=False)` registers an
empty slot: `buffers()` and `state_dict()` hold nothing for it; a later `self.x = tensor`
(in `forward`, in a setup method) lands in `_buffers` because `Module.__setattr__` keeps a
registered name there, so from then on `.to()` moves it and `.half()` casts it, and it
stays out of `state_dict()` (a non-persistent slot stays non-persistent).  A plain
`self.x = None` in `__init__` followed by `self.x = tensor` elsewhere never moves.
"""

from __future__ import annotations

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
    # Not through a hook or callback: what it is handed (a module's output) may be a tuple,
    # which an empty buffer slot would refuse.
    return facts.own_tensor_binding(through_inner_functions=False) is not None


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
