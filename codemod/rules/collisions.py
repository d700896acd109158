"""Names register_buffer cannot take.

Torch fact (torch 2.13): `register_buffer(name, ...)` raises `KeyError: "attribute
'<name>' already exists"` when `hasattr(self, name)` and `name not in self._buffers`: a
method, a class attribute, a submodule, a parameter, an attribute of `nn.Module` itself
(`training`), or a plain attribute set before (by a base class's constructor, earlier in
this one, or by the setter of a `training` property, which `nn.Module.__init__` runs when it
sets `self.training`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF207",
    "name-collision",
    "the name is also a method, class attribute, nn.Module attribute, registered parameter/submodule, or set by a base class first; register_buffer would raise KeyError",
    fact='register_buffer(name, ...) raises KeyError "attribute \'name\' already exists" when name is a method, a class attribute, a submodule, a parameter, an nn.Module attribute or set by a base constructor.',
    before='def __init__(self, n):\n    super().__init__()\n    self.training = torch.ones(n)',
)
RULES = (RULE,)

# Names a buffer can never take: nn.Module's own attributes.
RESERVED_NAMES = frozenset(
    {"training", "forward", "to", "cuda", "cpu", "float", "double", "half", "type", "state_dict", "parameters",
     "buffers", "modules", "children", "apply", "eval", "train", "dump_patches", "call_super_init"}
)


def decide(facts: AttributeFacts) -> Decision | None:
    attr = facts.attr
    for event in facts.events:
        if event.kind == "registered":
            if _absent_parameter(event, facts):
                continue
            return RULE.skip(f"also registered as a parameter or submodule at line {event.stmt.lineno}")
    names = facts.cls.class_level_names
    if attr in names:
        return RULE.skip(f"'{attr}' is also {names[attr]}; register_buffer would raise KeyError")
    if attr in RESERVED_NAMES:
        return RULE.skip(f"'{attr}' is an attribute of nn.Module itself")
    for label, event in facts.outside:
        if label.startswith("base ") and label.endswith(".__init__") and event.kind in ("assign", "setattr"):
            return RULE.skip(f"also set in {label} before this constructor runs; register_buffer would raise KeyError")
        if label.endswith(".training") and not label.startswith("subclass ") and event.kind in ("assign", "setattr"):
            # a `training` property whose setter binds it: nn.Module.__init__ sets
            # self.training, so the setter runs before this constructor's own body
            return RULE.skip(
                f"also set by the setter of the training property ({label}, line {event.stmt.lineno}), which "
                "nn.Module.__init__ runs before this constructor's body; register_buffer would raise KeyError",
                "leave it as it is: as a buffer, the setter must leave the name alone until __init__ has registered it")
    return None


def _absent_parameter(event, facts: AttributeFacts) -> bool:
    """`register_parameter(name, None)` beside a trained tensor that becomes an nn.Parameter:
    torch accepts a Parameter assigned to a name registered as a None parameter, and
    register_parameter on a name that already holds a Parameter."""
    from codemod.tensors import Kind

    if event.value is None or event.value.kind is not Kind.NONE:
        return False
    return any(e.kind == "assign" and e.value is not None and e.value.is_tensor and e.value.requires_grad for e in facts.events)
