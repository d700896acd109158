"""A function kept on self that closes over a constructor's local tensor is reported.

    pixel_mean = torch.tensor(cfg.PIXEL_MEAN).to(self.device).view(-1, 1, 1)
    pixel_std = torch.tensor(cfg.PIXEL_STD).to(self.device).view(-1, 1, 1)
    self.normalizer = lambda x: (x - pixel_mean) / pixel_std

The tensors live in the lambda's closure, where no module method looks: `model.to(device)`
leaves them on the device of construction (a CPU-built model moved to CUDA then subtracts a
CPU tensor from a CUDA one and raises), `model.half()` leaves them float32, and
`state_dict()` holds neither.  No statement can be rewritten in place (the closure reads a
local), so the attribute is reported with the captured names and the fix: register each as a
buffer and read `self.<name>` in a method.

Torch fact (torch 2.13): `Module._apply` (what `.to()`, `.cuda()`, `.half()` run) visits
`_parameters`, `_buffers` and `_modules` only; a tensor held by a closure is not reached.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule
from codemod.tensors import Kind

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts
    from codemod.walker import AttrEvent

RULE = Rule(
    "BUF317",
    "tensor-in-closure",
    "a function kept on self (a lambda) reads a tensor local to __init__; the closure's tensors are neither moved by "
    ".to() nor cast nor saved",
    fact="Module._apply (.to(), .cuda(), .half()) and state_dict() visit _parameters, _buffers and _modules only: a "
    "tensor a lambda closes over stays on its device and dtype.",
    before="def __init__(self, mean, std):\n    super().__init__()\n    pixel_mean = torch.tensor(mean).view(-1, 1, 1)\n"
    "    pixel_std = torch.tensor(std).view(-1, 1, 1)\n    self.normalizer = lambda x: (x - pixel_mean) / pixel_std",
)
RULES = (RULE,)


def wants(facts: AttributeFacts) -> bool:
    return _captured(facts) is not None


def _captured(facts: AttributeFacts) -> tuple[AttrEvent, list[str]] | None:
    """(binding, names of the captured tensors) for the first constructor binding of a lambda
    whose body reads a local of the constructor typed as a tensor."""
    if facts.considered:
        return None
    for event in facts.events:
        node = event.value_node
        if event.kind != "assign" or not isinstance(node, ast.Lambda) or not event.env:
            continue
        arguments = node.args
        own = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
        own |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
        names: list[str] = []
        reads = sorted((n for n in ast.walk(node.body) if isinstance(n, ast.Name)), key=lambda n: (n.lineno, n.col_offset))
        for read in reads:
            if read.id not in own and read.id not in names:
                value = event.env.get(read.id)
                if value is not None and value.kind is Kind.TENSOR:
                    names.append(read.id)
        if names:
            return event, names
    return None


def decide(facts: AttributeFacts) -> Decision | None:
    found = _captured(facts)
    if found is None:
        return None
    _, names = found
    listed = ", ".join(names)
    first = names[0]
    return RULE.skip(
        f"a lambda that reads the constructor's local tensor{'s' if len(names) > 1 else ''} {listed}: "
        f"{'they live' if len(names) > 1 else 'it lives'} in its closure, which .to(), .half() and state_dict() never reach",
        f'register each as a buffer (self.register_buffer("{first}", {first}, persistent=False)) and read self.{first} '
        "in a method instead of the lambda",
    )
