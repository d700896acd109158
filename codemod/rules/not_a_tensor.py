"""Only what is proven a tensor becomes a buffer.

Torch fact (torch 2.13): `register_buffer(name, value)` raises `TypeError: cannot assign
'<type>' object to buffer` for anything but a tensor or None, and assigning a non-tensor
to a registered buffer raises `TypeError` too; `register_buffer` on a name already set as a
plain attribute raises `KeyError: attribute '<name>' already exists`.  `torch.load(...)`
returns whatever was saved (a dict, a list, a number), so its result, values taken from
it by string keys and `dict.get(...)` results are not tensors unless proven.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF204",
    "not-a-tensor",
    "bound (first, or also) to a value that is not a tensor or cannot be typed; register_buffer would raise TypeError or KeyError",
    fact='register_buffer(name, value) raises TypeError for anything but a tensor or None, and KeyError on a name already set as a plain attribute; torch.load(...) returns whatever was saved.',
    before='def __init__(self, path, learn):\n    super().__init__()\n    self.stats = torch.load(path)\n    self.scale = 1.0 if learn else torch.ones(3)',
)
RULES = (RULE,)


def loads_anything(qualname: str) -> bool:
    """`torch.load(...)` unpickles whatever was saved: never proven a tensor."""
    return qualname in ("torch.load", "torch.serialization.load")


def is_string_key(index: ast.expr) -> bool:
    """`x["meta"]`: a tensor cannot be indexed by a string, so `x` is a mapping."""
    return isinstance(index, ast.Constant) and isinstance(index.value, str)


# -- the decision ---------------------------------------------------------------------------


def decide(facts: AttributeFacts) -> Decision | None:
    """Every binding in __init__ must be a tensor or None (a Parameter in another arm aside).

    One binding that is not stops the rewrite of all of them: rewriting only the tensor's
    branch would leave the attribute a buffer in one configuration and a plain attribute
    (or an error) in the other."""
    # imported here: codemod.tensors imports this module for loads_anything / is_string_key
    from codemod.rules import local_first  # the non-tensor prefix a local can take over
    from codemod.tensors import ARGUMENT_STATE, PARAMETER_ARGUMENT_STATE, Kind

    found = local_first.localised(facts)
    events = facts.events[found[2] :] if found is not None else facts.events
    if found is not None and facts.trained is not None:
        first = found[1][0].line if found[1] else facts.anchor.lineno
        return RULE.skip(f"first bound to a non-tensor at line {first}; build the trained tensor in a local, then assign nn.Parameter once")
    passed = next((e for e in events if e.kind == "assign" and e.value is not None and e.value.maybe_parameter), None)
    if passed is not None and passed.value.stateful == PARAMETER_ARGUMENT_STATE:
        return RULE.skip(
            f"bound at line {passed.stmt.lineno} to an argument annotated to admit an nn.Parameter (Union[Parameter, Tensor]); "
            "a Parameter passed in must stay a parameter"
        )
    if passed is not None:
        typed_later = passed.value.stateful == ARGUMENT_STATE  # call_sites.typed_by_signature_only
        return RULE.skip(
            f"bound at line {passed.stmt.lineno} to a value that may be an nn.Parameter passed in (annotated as a "
            "tensor, defaulting to a tensor, or tested with isinstance(..., torch.Tensor), which a Parameter passes); "
            "a Parameter passed in must stay a parameter"
            + ("; a call in the repository that passes a plain tensor lets the codemod rewrite it" if typed_later else "")
        )
    tensors = [e for e in events if e.kind in ("assign", "register_buffer") and e.value is not None and e.value.is_tensor]
    seen_tensor = False
    for event in events:
        value = event.value
        if event.kind not in ("assign", "register_buffer") or value is None:
            continue
        if value.is_tensor or value.kind is Kind.NONE:
            seen_tensor = seen_tensor or value.is_tensor
            continue
        if value.kind in (Kind.PARAMETER, Kind.BUFFER):
            continue  # rules/rebinding.py
        what = "a non-tensor" if value.kind is Kind.NON_TENSOR else ("a sequence" if value.kind is Kind.SEQUENCE else "a value the codemod cannot type")
        if tensors and all(facts.exclusive(event, t) for t in tensors) and (value.module is not None or value.instance is not None):
            # `self.rho = nn.Linear(...)` in one arm, a tensor in the other: a submodule there
            return RULE.skip(
                f"bound to a submodule in another branch (line {event.stmt.lineno}); registering the tensor's branch as a "
                "buffer would give the name a buffer in one configuration and a submodule in the other",
                "leave it, or give the tensor a name of its own (a buffer) and read it where the submodule is not used",
            )
        if tensors and all(facts.exclusive(event, t) for t in tensors):
            return RULE.skip(
                f"bound to {what} in another branch (line {event.stmt.lineno}); rewriting only the tensor's branch would make it "
                "a buffer in one configuration and a plain attribute in the other",
                "convert the other branch's value to a tensor (or None), then every branch can be registered",
            )
        where = "first bound" if not seen_tensor else "also bound"
        consequence = ("register_buffer would raise (KeyError or TypeError)" if value.kind is not Kind.UNKNOWN
                       else "if it is not a tensor, register_buffer would raise (KeyError or TypeError)")
        return RULE.skip(
            f"{where} to {what} at line {event.stmt.lineno}; {consequence}",
            "convert the value to a tensor before the first assignment" if where == "first bound" else None,
        )
    return None
