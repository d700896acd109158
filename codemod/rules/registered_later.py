"""An attribute assigned and then registered under the same name: the assignment becomes a local.

Torch fact (torch 2.13): `self.mask = t` followed by `self.register_buffer("mask",
self.mask)` raises `KeyError: "attribute 'mask' already exists"`: register_buffer refuses
a name that `hasattr` finds outside `_buffers`.  Building the value in a local
(`mask = t` ... `self.register_buffer("mask", mask)`) leaves one binding of the name, the
registration the author wrote, with the persistence the author chose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codemod.ftypes import Action
from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF108",
    "assigned-then-registered",
    "assigned, then registered under the same name (register_buffer raises KeyError) -> the assignment becomes a local",
    fact='`self.mask = t` then `self.register_buffer("mask", self.mask)` raises KeyError: "attribute \'mask\' already exists".',
    before='def __init__(self, n):\n    super().__init__()\n    self.mask = torch.tril(torch.ones(n, n))\n'
    '    self.register_buffer("mask", self.mask)',
    after='def __init__(self, n):\n    super().__init__()\n    mask = torch.tril(torch.ones(n, n))\n'
    '    self.register_buffer("mask", mask)',
)
RULES = (RULE,)


def decide(facts: AttributeFacts) -> Decision | None:
    from codemod.rules.local_first import localise

    from codemod.rules.rebinding import MIXED_REGISTERED

    events = facts.events
    registration = next((i for i, e in enumerate(events) if e.kind == "register_buffer"), None)
    if not registration or facts.trained is not None:
        return None
    last = events[registration]
    prefix = events[:registration]
    if not any(e.kind == "assign" and e.value is not None and e.value.is_tensor and not facts.exclusive(e, last)
               for e in prefix):
        # none, or only in another arm of an `if` than the registration (`if hasattr(self, "A"):
        # self.A = t` / `else: self.register_buffer("A", t)`): never both, no KeyError
        return None
    found = None
    if (
        _reads(last, facts)
        and all(e.kind in ("assign", "mutate", "fill") for e in prefix)
        and not any(e.kind in ("assign", "setattr", "unpack", "register_buffer", "registered") for e in events[registration + 1 :])
    ):
        found = localise(facts, prefix[0], last)
    if found is None:
        return MIXED_REGISTERED.skip(
            f"assigned, then registered at line {last.stmt.lineno}, where register_buffer raises KeyError (attribute "
            "already exists); left for a decision by hand",
            f"build the value in a local and register it once: {facts.attr} = ...; "
            f'self.register_buffer("{facts.attr}", {facts.attr})',
        )
    local, edits = found
    from codemod.edits import end, position
    from codemod.plans import StmtEdit

    # the registration itself reads the local instead of the attribute
    cls = facts.cls
    edits.append(StmtEdit(*position(cls.lines, last.stmt), "localise", facts.attr, end=end(cls.lines, last.stmt),
                          local=local, owner=cls.self_name or "self"))
    persistent = _persistence(last.stmt)
    as_written = {False: "persistent=False", True: "persistent"}.get(persistent, "persistence as registered")
    return Decision(
        Action.BUFFER,
        f"{as_written}: registered at line {last.stmt.lineno} after being assigned, which raises KeyError (attribute "
        f"already exists); the value is built in the local `{local}` instead, and the registration is kept as written",
        RULE.code,
        persistent=persistent,
        edits=edits,
    )


def _persistence(stmt) -> bool | None:
    """What the author's register_buffer call says: persistent=False, else persistent (None: decided at run time)."""
    import ast

    call = getattr(stmt, "value", None)
    if not isinstance(call, ast.Call):
        return None
    given = next((k.value for k in call.keywords if k.arg == "persistent"), call.args[2] if len(call.args) > 2 else None)
    if given is None:
        return True
    if isinstance(given, ast.Constant) and isinstance(given.value, bool):
        return given.value
    return None


def _reads(event, facts: AttributeFacts) -> bool:
    from codemod.edits import uses_attr

    return event.value_node is not None and uses_attr(event.value_node, facts.cls.self_name, facts.attr)
