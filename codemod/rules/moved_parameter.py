"""`nn.Parameter(t).to(device)` is reported, not rewritten, unless persistence is asked for.

Torch facts (torch 2.13): on the parameter's own device, `.to(device)` returns the
Parameter itself, so the attribute is a registered parameter: trained, in `state_dict()`.
On any other device it returns a non-leaf copy that is a plain tensor: not trained, not
saved.  The same class is a parameter on a CPU run and a raw tensor on a CUDA run, so
`nn.Parameter(t.to(device))` changes what a CUDA run trains and adds a key that every
checkpoint saved there lacks.  That is a change of checkpoint format: it is made (BUF105)
only under `persistent = "state"`, where the user asked for new keys for state.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF216",
    "moved-parameter-copy",
    'nn.Parameter(t).to(device): a parameter on its own device, a plain untrained tensor on any other; registering it '
    'adds a state_dict key there, so it is reported (rewritten as BUF105 under persistent = "state")',
    fact="nn.Parameter(t).to(device) returns the Parameter itself when the device is the one it is on, and a non-leaf "
    "copy that is not a Parameter otherwise: on CUDA it is neither trained nor saved, on CPU it is both.",
    before="def __init__(self, n, device):\n    super().__init__()\n    self.bias = nn.Parameter(torch.zeros(n)).to(device)",
)
RULES = (RULE,)

REASON = (
    "nn.Parameter(...) followed by a device move: a parameter where the move is a no-op (CPU), a plain tensor that "
    "is never trained nor saved where it is not (CUDA); registering it changes what such a run trains and adds the "
    "state_dict key {attr!r}, which checkpoints saved there lack"
)
SUGGESTION = (
    "move the tensor before wrapping it, nn.Parameter(t.to(device)), and load older checkpoints with strict=False; "
    'persistent = "state" (or --persistent state) lets the codemod make that rewrite (BUF105)'
)
# `nn.Parameter(kernel, requires_grad=False).cuda()`: nothing is trained either way, but the
# key is still there on one device and not on the other.
FROZEN_REASON = (
    "nn.Parameter(..., requires_grad=False) followed by a device move: a frozen parameter, saved in state_dict(), "
    "where the move returns it unchanged (already on that device), a plain tensor, not saved, where it does not; "
    "registering it either way adds or drops the state_dict key {attr!r} on one kind of run, which checkpoints "
    "saved there do not expect"
)
FROZEN_SUGGESTION = (
    "a constant kept on the model: self.register_buffer(name, t.to(device), persistent=False) (checkpoints saved "
    "where it was a parameter then carry an unexpected key: load them with strict=False)"
)


def _frozen(facts: AttributeFacts, event) -> bool:
    """The bound value wraps its tensor in nn.Parameter(..., requires_grad=False)."""
    from codemod import torch_names as tn
    from codemod.tensors import is_false, keyword

    node = event.value_node if event.value_node is not None else getattr(event.stmt, "value", None)
    return node is not None and any(
        isinstance(call, ast.Call) and is_false(keyword(call, "requires_grad"))
        and tn.classify_call(facts.cls.symbols.qualify(call.func) or "") is tn.CallKind.PARAMETER
        for call in ast.walk(node)
    )


def decide(facts: AttributeFacts) -> Decision | None:
    if facts.cls.policy == "state":
        return None  # the user asked for keys for state: parameters.py rewrites it (BUF105)
    for event in facts.events:
        value = event.value
        if event.kind != "register_buffer" and value is not None and value.is_tensor and value.moved_parameter:
            if _frozen(facts, event):
                return RULE.skip(FROZEN_REASON.format(attr=facts.attr), FROZEN_SUGGESTION)
            return RULE.skip(REASON.format(attr=facts.attr), SUGGESTION)
    return None
