"""A tensor that requires grad but that nothing reads is reported, not made a Parameter.

Torch facts (torch 2.13): an `nn.Parameter` is in `parameters()` and `state_dict()`; a raw
tensor with `requires_grad=True` is in neither.  Made a Parameter, a tensor nothing reads
trains nothing (no gradient ever reaches it), yet it adds a `state_dict` key that every
checkpoint saved before lacks (a strict `load_state_dict` raises) and an entry to every
optimizer built from `model.parameters()` (an optimizer state saved before no longer loads).
Such tensors are usually leftovers or tricks (a dummy input that makes `torch.utils.checkpoint`
keep gradients): the rewrite (BUF103) is made only where something reads the attribute.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF219",
    "unread-trained-tensor",
    "a tensor that requires grad and that nothing in the class or the repository reads: as nn.Parameter it would only "
    "add a state_dict key and an optimizer entry, so it is reported",
    fact="An nn.Parameter is in parameters() and state_dict(): one nothing reads gets no gradient, but a strict "
    "load_state_dict of a checkpoint saved before raises on its missing key, and an optimizer state saved before no "
    "longer matches model.parameters().",
    before="def __init__(self):\n    super().__init__()\n    # makes torch.utils.checkpoint keep gradients\n"
    "    self.dummy = torch.ones(1, requires_grad=True)",
)
RULES = (RULE,)

REASON = (
    "requires grad, but nothing in the class or the repository reads it: as nn.Parameter it would train nothing, yet "
    "add the state_dict key {attr!r} (checkpoints saved before lack it) and an entry to every optimizer built from "
    "model.parameters()"
)
SUGGESTION = (
    "delete it if it is unused; if code outside this repository reads it and it is meant to be trained, make it "
    "nn.Parameter(...) and load older checkpoints with strict=False"
)

# Ways a class reaches its attributes without naming them: then no read can be ruled out.
_DYNAMIC = re.compile(r"\bgetattr\(|\b__dict__\b|\bvars\(|\bsetattr\(|\bnamed_\w+\(|\.items\(\)")


def decide(facts: AttributeFacts) -> Decision | None:
    from codemod.rules.parameters import TRAINED_TENSOR, trained_rule

    # only a raw tensor: a buffer made a parameter keeps its key, and `nn.Parameter(t).to(device)`
    # is one already where the move is a no-op (BUF104, BUF105)
    if facts.trained is None or trained_rule(facts) != TRAINED_TENSOR.code or _read_somewhere(facts):
        return None
    return RULE.skip(REASON.format(attr=facts.attr), SUGGESTION)


def _read_somewhere(facts: AttributeFacts) -> bool:
    cls = facts.cls
    name = re.compile(rf"\.{re.escape(facts.attr)}\b|[\"']{re.escape(facts.attr)}[\"']")
    bindings = {line for event in [*facts.events, *(e for _, e in facts.outside)]
                for line in range(event.stmt.lineno, event.stmt.end_lineno + 1)}
    own = cls.symbols.source_lines
    for number, line in enumerate(own, start=1):
        if number not in bindings and name.search(line):
            return True  # in the class, or anywhere else in its file
    if _DYNAMIC.search(cls.class_text):
        return True
    index = cls.index
    index.scanned_repository = True  # the answer depends on every file of the run
    for path in list(index.files):
        if path != cls.symbols.path and name.search(index.text(path) or ""):
            return True
    return False
