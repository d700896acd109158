"""A buffer rewrite in a repository that compiles modules with `torch.jit.script` is reported, not made.

A non-persistent buffer keeps the eager model's `state_dict()` as it was, but a scripted module
saves every buffer: its `state_dict()` gains the key.  A checkpoint saved from the scripted
model then carries a key the eager model does not expect (a strict load raises on the
unexpected key), and one saved before the rewrite lacks it (a strict load of the scripted
model raises on the missing key).  Which classes end up inside a scripted module is not known
statically (scripting compiles every submodule), so where any file of the repository hands a
module to `torch.jit.script`, the class's buffer rewrites are reported instead.  Parameters
(`nn.Parameter`) add a key everywhere and already say so; they are left to their own rules.

Torch fact (torch 2.13): `torch.jit.script(m).state_dict()` lists a buffer registered with
`persistent=False`, which `m.state_dict()` leaves out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codemod.rules.base import Rule, skip_buffers_where

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts, ClassFacts
    from codemod.rules.base import Decision

RULE = Rule(
    "BUF226",
    "buffer-in-a-scripted-repository",
    "a raw tensor in a repository that compiles modules with torch.jit.script, whose state_dict saves even a "
    "non-persistent buffer (a new checkpoint key)",
    fact="torch.jit.script(m).state_dict() lists a buffer registered with persistent=False; m.state_dict() does not.",
    before="# export.py: torch.jit.save(torch.jit.script(Scale(4)), 'scale.pt')\ndef __init__(self, n):\n"
    "    super().__init__()\n    self.index = torch.arange(n)",
)
RULES = (RULE,)


def refine_class(cls: ClassFacts, decided: dict[str, tuple[AttributeFacts, Decision]]) -> None:
    skip_buffers_where(decided, lambda: cls.index.scripted_module_call, lambda attr, scripted: RULE.skip(
        f"the repository compiles modules with torch.jit.script ({scripted}), and a scripted module's state_dict "
        "saves even a non-persistent buffer: checkpoints of the scripted model would gain the key "
        f"'{attr}', and those saved before would lack it",
        "if no state_dict of a scripted model is saved or loaded (torch.jit.save keeps its own copy), "
        f'register it by hand: self.register_buffer("{attr}", ..., persistent=False); otherwise leave it as it is',
    ))
