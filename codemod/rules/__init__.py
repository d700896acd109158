"""The rules the analysis decides with, one module per rule, and their stable codes.

Codes: BUF1xx rewrite an attribute, BUF2xx leave it alone because a rewrite could break
something (a safety skip), BUF3xx report a raw tensor whose shape no rewrite fits.  A code
is never reused for another rule.  Each rule module's docstring states the torch fact it
rests on; its golden cases live in `golden/` under names that say what they show.
"""

from __future__ import annotations

from codemod.rules import (
    branches,
    captured_reference,
    collisions,
    complex_values,
    constructor_helpers,
    device_moves,
    inplace_init,
    local_first,
    not_a_tensor,
    off_device,
    parameter_limits,
    placed_where_read,
    parameters,
    persistence,
    rebinding,
    reported,
    size_limits,
    super_order,
    transformers_models,
)
from codemod.rules.base import Rule

_MODULES = (
    branches,
    persistence,
    parameters,
    local_first,
    complex_values,
    transformers_models,
    inplace_init,
    not_a_tensor,
    device_moves,
    captured_reference,
    off_device,
    placed_where_read,
    collisions,
    constructor_helpers,
    super_order,
    parameter_limits,
    rebinding,
    reported,
    size_limits,
)

REGISTRY: dict[str, Rule] = {}
for _module in _MODULES:
    for _rule in _module.RULES:
        if _rule.code in REGISTRY:
            raise RuntimeError(f"rule code {_rule.code} used twice")
        REGISTRY[_rule.code] = _rule
REGISTRY = dict(sorted(REGISTRY.items()))


# The rules by name, for the analysis to cite.
NON_PERSISTENT = persistence.NON_PERSISTENT
PERSISTENT = persistence.PERSISTENT
TRAINED_TENSOR = parameters.TRAINED_TENSOR
BUFFER_REQUIRES_GRAD = parameters.BUFFER_REQUIRES_GRAD
MOVED_PARAMETER = parameters.MOVED_PARAMETER
COMPLEX = complex_values.RULE
TRANSFORMERS_MODEL = transformers_models.RULE
INIT_RETURNS_PARAMETER = inplace_init.RULE
NOT_A_TENSOR = not_a_tensor.RULE
DEVICE_MOVE_MATTERS = device_moves.RULE
HANDED_OUT = captured_reference.RULE
OFF_DEVICE = off_device.RULE
PLACED_WHERE_READ = placed_where_read.RULE
COLLISION = collisions.RULE
CONSTRUCTOR_HELPER = constructor_helpers.RULE
BEFORE_SUPER = super_order.RULE
CANNOT_BE_PARAMETER = parameter_limits.RULE
REBOUND = rebinding.REBOUND
DELETED = rebinding.DELETED
MIXED_REGISTERED = rebinding.MIXED_REGISTERED
LOCAL_FIRST = local_first.RULE
CONTAINER = reported.CONTAINER
SETATTR = reported.SETATTR
OUTSIDE_CONSTRUCTOR = reported.OUTSIDE_CONSTRUCTOR
UNPACKED = reported.UNPACKED
TOO_LARGE = size_limits.RULE


def rule(code: str) -> Rule:
    """The rule with this code; KeyError for an unknown one."""
    return REGISTRY[code]


__all__ = ["REGISTRY", "Rule", "rule"]
