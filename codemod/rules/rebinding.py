"""Attributes deleted, registered elsewhere, or rebound after construction.

Torch facts (torch 2.13): assigning a non-tensor to a registered buffer raises
`TypeError: cannot assign 'int' as buffer`; after `del m.x` a later `m.x = t` makes a
plain attribute again, not a buffer; assigning something that is not an `nn.Parameter` to
a registered parameter raises `TypeError: cannot assign 'torch.FloatTensor' as parameter`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules import lazy
from codemod.rules.base import Decision, Rule
from codemod.tensors import Kind

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

REBOUND = Rule(
    "BUF211",
    "rebound-to-non-tensor",
    "reassigned outside __init__ (another method, a subclass) to a value that is not a tensor or cannot be typed; a buffer there would raise TypeError",
    fact="Assigning a non-tensor to a registered buffer raises `TypeError: cannot assign 'int' as buffer 'x' "
    "(torch.nn.Buffer, torch.Tensor or None expected)`; a raw attribute takes any value.",
    before="def __init__(self):\n    super().__init__()\n    self.mask = torch.ones(3)\n\ndef reset(self):\n    self.mask = None if self.off else [1, 2]",
)
DELETED = Rule(
    "BUF212",
    "deleted-attribute",
    "deleted with `del self.x`; a later assignment would make a plain attribute again",
    fact="After `del m.x` on a buffer, `m.x = t` makes a plain attribute, not a buffer again.",
    before="def __init__(self):\n    super().__init__()\n    self.cache = torch.zeros(3)\n\ndef clear(self):\n    del self.cache",
)
MIXED_REGISTERED = Rule(
    "BUF213",
    "also-registered",
    "also bound to a registered parameter or buffer in __init__; left for a decision by hand",
    fact="Assigning an nn.Parameter over a buffer moves it to `_parameters`; which of the two the author "
    "meant depends on the configuration, so nothing is rewritten.",
    before="def __init__(self, learn):\n    super().__init__()\n    self.s = torch.ones(3)\n    if learn:\n        self.s = nn.Parameter(self.s)",
)
RULES = (REBOUND, DELETED, MIXED_REGISTERED)


def decide(facts: AttributeFacts) -> Decision | None:
    for event in facts.events:
        if event.kind == "delete":
            return DELETED.skip(f"deleted with `del self.{facts.attr}` at line {event.stmt.lineno}")
    for event in facts.events:
        value = event.value
        if event.kind in ("assign", "register_buffer") and value is not None and value.kind in (Kind.PARAMETER, Kind.BUFFER):
            if value.kind is Kind.PARAMETER and facts.raw_beside_parameters:
                continue
            return MIXED_REGISTERED.skip(f"also bound to a registered {value.kind.value} at line {event.stmt.lineno}")
    trained = facts.trained is not None
    own = {(e.stmt.lineno, e.stmt.col_offset) for e in facts.events}
    for label, event in facts.outside:
        if (event.kind not in ("assign", "setattr") and not lazy.chained(event)) or event.value is None:
            continue
        if (event.stmt.lineno, event.stmt.col_offset) in own:
            continue  # the constructor's own binding, in a helper another method runs again (rules/rerun_helpers.py)
        if _moved_in_place(event.value_node, facts.attr, facts.cls.self_name):
            continue  # `self.alpha = self.alpha.to(x.device)`: what it was, moved (a buffer stays one)
        kind = event.value.kind
        if trained and kind not in (Kind.PARAMETER, Kind.NONE):
            return REBOUND.skip(
                f"reassigned in {label} (line {event.stmt.lineno}) to something that is not an nn.Parameter; that would raise TypeError"
            )
        if kind in (Kind.NON_TENSOR, Kind.SEQUENCE):
            return REBOUND.skip(
                f"bound to a non-tensor in {label} (line {event.stmt.lineno}); assigning it to a buffer raises TypeError"
            )
        if kind is Kind.UNKNOWN:
            return REBOUND.skip(
                f"reassigned in {label} (line {event.stmt.lineno}) to a value the codemod cannot type; a non-tensor there would raise TypeError"
            )
        if event.value.is_tensor and event.value.is_guess:
            # what a child module of no known class returns is a tensor by a guess only, good
            # for a report and no proof for a rewrite (an LSTM picked from a ModuleDict returns a tuple)
            return REBOUND.skip(
                f"reassigned in {label} (line {event.stmt.lineno}) to what a child module returns, a tensor only by a "
                "guess; a non-tensor there would raise TypeError"
            )
    return None


def _moved_in_place(node: ast.expr | None, attr: str, self_name: str | None) -> bool:
    """`self.<attr>.to(...)` (or a cast, `.detach().clone()`) of the same attribute."""
    from codemod.facts import copied_attribute, same_kind_receiver

    return same_kind_receiver(node) is not node and copied_attribute(node, {"self", self_name}) == attr
