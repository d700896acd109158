"""A subclass of torch.jit.ScriptModule is reported, never rewritten.

`torch.jit.ScriptModule.register_buffer(name, t, persistent=False)` raises `RuntimeError:
ScriptModule does not support non-persistent buffers`, so the default rewrite would break the
constructor; a persistent buffer would add a key to every checkpoint, which the default
policy never does.  A base chosen at import time (`Base = torch.jit.ScriptModule if jit else
nn.Module`, as some detection repositories write it) counts when one of its bindings is a
ScriptModule (ModuleSymbols.base_alternatives).

Torch fact (torch 2.13): ScriptModule refuses non-persistent buffers (RuntimeError at
`register_buffer(..., persistent=False)`); a persistent one is accepted and saved.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF221",
    "script-module",
    "a raw tensor of a torch.jit.ScriptModule subclass, which refuses non-persistent buffers (a persistent one would "
    "add a checkpoint key)",
    fact="torch.jit.ScriptModule raises RuntimeError at register_buffer(..., persistent=False); a persistent buffer "
    "is accepted and saved in state_dict().",
    before="class Head(torch.jit.ScriptModule):\n    def __init__(self, n):\n        super().__init__()\n"
    "        self.table = torch.arange(n)",
)
RULES = (RULE,)

_SCRIPT_MODULES = frozenset({"torch.jit.ScriptModule", "torch.jit._script.ScriptModule"})


def script_base(lineage) -> str | None:
    """The ScriptModule base of the class or of its repository bases, as written."""
    for symbols, cls in lineage:
        for base in cls.bases:
            node = base.value if isinstance(base, ast.Subscript) else base
            for alternative in symbols.base_alternatives(node):  # `Base = ScriptModule if jit else nn.Module`
                qualname = symbols.qualify(alternative)
                if qualname in _SCRIPT_MODULES:
                    return qualname if alternative is node else f"{ast.unparse(node)} (possibly {qualname}, chosen at import)"
    return None


def decide(facts: AttributeFacts) -> Decision | None:
    if not facts.considered:
        return None
    base = script_base(facts.cls.lineage())
    if base is None:
        return None
    return RULE.skip(
        f"{facts.cls.cls.name} derives from {base}, which refuses non-persistent buffers (RuntimeError), and a "
        "persistent one would add a key to every checkpoint",
        f'if new checkpoint keys are acceptable: self.register_buffer("{facts.attr}", <the value>) (persistent); '
        "or derive from nn.Module and compile the model with torch.jit.script",
    )
