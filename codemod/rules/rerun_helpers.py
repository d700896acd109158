"""A tensor bound by a helper that `__init__` calls and that other code calls again (another
method of the class, or any code of the repository through the model: `model.reset_state(n)`
in a training script) is reported, not registered there.

Torch fact (torch 2.13): `register_buffer("x", t)` raises `KeyError: "attribute 'x' already
exists"` when `x` is a plain attribute of the instance.  A model saved whole
(`torch.save(model)`) before the rewrite unpickles with `x` a plain attribute, since its
`__init__` never runs again; a helper that forward or a reset calls again (`self.reset_mask()`
before each Monte Carlo pass) would then run the rewritten `register_buffer` on it and raise.
Rewritten in `__init__` only, the statement never runs on such a model, so the constructor's
own bindings are safe; a helper's are not.  The safe form keeps the helper's assignment and
declares an empty slot in `__init__` before the call: a later `self.x = t` lands in the
buffer on a new model and stays a plain attribute on an old one.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.edits import quote
from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF220",
    "helper-run-again",
    "bound by a method that __init__ calls and that other code calls again: register_buffer there would raise "
    "KeyError on a model saved whole before the rewrite, so it is reported",
    fact="register_buffer(name, t) raises KeyError when name is a plain attribute of the instance, as it is on a model "
    "saved whole with torch.save(model) before the rewrite and loaded again.",
    before="def __init__(self, w):\n    super().__init__()\n    self.w = nn.Parameter(w)\n    self.reset_mask()\n\n"
    "def reset_mask(self):\n    self.mask = torch.bernoulli(torch.full_like(self.w, 0.5))\n\n"
    "def forward(self, x, resample=False):\n    if resample:\n        self.reset_mask()\n    return x @ (self.w * self.mask)",
)
RULES = (RULE,)


def decide(facts: AttributeFacts) -> Decision | None:
    helper = rerun_helper(facts)
    if helper is None:
        return None
    return RULE.skip(
        f"bound in {facts.cls.cls.name}.{helper}, which __init__ calls and other code calls again; a register_buffer "
        "there would raise KeyError on a model saved whole (torch.save(model)) before the rewrite, whose attribute is "
        "a plain one",
        f"declare the slot in __init__ before {helper}() is called: self.register_buffer({quote(facts.attr)}, None, "
        f"persistent=False), and keep the assignment in {helper}",
    )


def rerun_helper(facts: AttributeFacts) -> str | None:
    """The name of the helper method outside __init__'s own body that binds a tensor to the
    attribute and that a method other than __init__ (and its helpers), or code outside the
    class, calls too."""
    init = facts.cls.init
    if init is None or not facts.events:
        return None
    methods = [s for s in facts.cls.cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s is not init]
    for event in facts.events:
        if event.kind != "assign" or event.value is None or not event.value.is_tensor:
            continue
        line = event.stmt.lineno
        if init.lineno <= line <= (init.end_lineno or init.lineno):
            continue
        method = next((m for m in methods if m.lineno <= line <= (m.end_lineno or m.lineno)), None)
        if method is not None and facts.cls.called_elsewhere(method.name):
            return method.name
    return None
