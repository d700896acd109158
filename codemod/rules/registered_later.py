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

    events = facts.events
    registration = next((i for i, e in enumerate(events) if e.kind == "register_buffer"), None)
    if not registration or facts.trained is not None:
        return None
    last = events[registration]
    if not _reads(last, facts):
        return None
    prefix = events[:registration]
    if not all(e.kind in ("assign", "mutate", "fill") for e in prefix) or not any(
        e.kind == "assign" and e.value is not None and e.value.is_tensor for e in prefix
    ):
        return None
    if any(e.kind in ("assign", "setattr", "unpack", "register_buffer", "registered") for e in events[registration + 1 :]):
        return None  # bound again after: left for a decision by hand
    found = localise(facts, prefix[0], last)
    if found is None:
        return None
    local, edits = found
    from codemod.edits import end, position
    from codemod.plans import StmtEdit

    # the registration itself reads the local instead of the attribute
    cls = facts.cls
    edits.append(StmtEdit(*position(cls.lines, last.stmt), "localise", facts.attr, end=end(cls.lines, last.stmt),
                          local=local, owner=cls.self_name or "self"))
    return Decision(
        Action.BUFFER,
        f"registered at line {last.stmt.lineno} after being assigned, which raises KeyError (attribute already exists); "
        f"the value is built in the local `{local}` instead, and the registration is kept as written",
        RULE.code,
        edits=edits,
    )


def _reads(event, facts: AttributeFacts) -> bool:
    from codemod.edits import uses_attr

    return event.value_node is not None and uses_attr(event.value_node, facts.cls.self_name, facts.attr)
