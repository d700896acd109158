"""Tensors meant to be trained become nn.Parameter.

Torch facts (torch 2.13): a raw tensor with `requires_grad=True` is in neither
`parameters()` nor `state_dict()`, so an optimizer built from `model.parameters()` never
updates it; a buffer registered with `requires_grad=True` gets a `.grad` from
`backward()` but `opt.step()` leaves it unchanged; `nn.Parameter(t).to(device)` on a
device other than the parameter's returns a non-leaf copy that is not a Parameter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codemod.ftypes import Action
from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

TRAINED_TENSOR = Rule(
    "BUF103",
    "trained-tensor-parameter",
    "a tensor that requires grad (requires_grad=True, .requires_grad_(), Variable(..., requires_grad=True)) -> nn.Parameter",
    fact='A raw tensor with requires_grad=True is in neither parameters() nor state_dict(): an optimizer built from model.parameters() never updates it.',
    before='def __init__(self, n):\n    super().__init__()\n    self.scale = torch.ones(n, requires_grad=True)',
    after='def __init__(self, n):\n    super().__init__()\n    self.scale = nn.Parameter(torch.ones(n))',
)
BUFFER_REQUIRES_GRAD = Rule(
    "BUF104",
    "buffer-requires-grad-parameter",
    "a registered buffer created with requires_grad=True (never updated by an optimizer) -> nn.Parameter",
    fact='A buffer registered with requires_grad=True gets a .grad from backward(), but it is not in parameters(): opt.step() never changes it.',
    before='def __init__(self, n):\n    super().__init__()\n    self.register_buffer("scale", torch.ones(n, requires_grad=True))',
    after='def __init__(self, n):\n    super().__init__()\n    self.scale = nn.Parameter(torch.ones(n, requires_grad=True))',
)
MOVED_PARAMETER = Rule(
    "BUF105",
    "moved-parameter",
    'nn.Parameter(t).to(device), a non-leaf copy that is not a parameter -> nn.Parameter(t) (under persistent = "state"; '
    "else reported as BUF216)",
    fact='nn.Parameter(t).to(device) on another device returns a non-leaf copy that is not a Parameter; the device move goes inside (nn.Parameter(t.to(device))) unless the model is provably moved as a whole.',
    before='def __init__(self, n, device):\n    super().__init__()\n    self.bias = nn.Parameter(torch.zeros(n)).to(device)',
    after='def __init__(self, n, device):\n    super().__init__()\n    self.bias = nn.Parameter(torch.zeros(n).to(device))',
)
RULES = (TRAINED_TENSOR, BUFFER_REQUIRES_GRAD, MOVED_PARAMETER)


def decide(facts: AttributeFacts) -> Decision | None:
    """nn.Parameter for a tensor meant to be trained (the safety rules before it have passed)."""
    from codemod.edits import end, position, statement_edit
    from codemod.plans import StmtEdit
    from codemod.rules.super_order import placement

    if facts.trained is None:
        return None
    cls = facts.cls
    # A parameter is in state_dict(): the new key is what the rewrite changes for checkpoints.
    keys = (
        f"; adds the state_dict key {facts.attr!r} (a plain tensor where the move is not a no-op): checkpoints saved "
        "there before lack it, load them with strict=False"
        if trained_rule(facts) == MOVED_PARAMETER.code
        else f"; adds the state_dict key {facts.attr!r}: checkpoints saved before lack it, load them with strict=False"
    )
    decision = Decision(Action.PARAMETER, facts.trained + keys, trained_rule(facts))
    for event in facts.tensor_bindings:
        if event.kind == "register_buffer":
            edit = StmtEdit(*position(cls.lines, event.stmt), "buffer_to_parameter", facts.attr, end=end(cls.lines, event.stmt))
            moves = ()
        else:
            op = "unmove" if event.value.moved_parameter else "parameter"
            edit, moves = statement_edit(cls.lines, cls.evaluator, event, op, facts.attr, None, parameter=True, cls=cls.cls)
        where = placement(facts, event)
        edit.move_after = where if isinstance(where, tuple) else None
        decision.edits.append(edit)
        if moves:
            decision.moves.append((edit, moves))
    return decision


def trained_rule(facts: AttributeFacts) -> str:
    """Which of this module's rules made the attribute a parameter."""
    for event in facts.events:
        if event.kind == "requires_grad":
            return TRAINED_TENSOR.code
        value = event.value
        if value is not None and value.is_tensor and value.requires_grad:
            if event.kind == "register_buffer":
                return BUFFER_REQUIRES_GRAD.code
            if value.moved_parameter:
                return MOVED_PARAMETER.code
            return TRAINED_TENSOR.code
    return TRAINED_TENSOR.code
