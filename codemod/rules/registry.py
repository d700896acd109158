"""Every rule, and the order in which the analysis consults them (see base.py).

`ORDER` is the declared order: for each attribute, the first module whose `decide`
answers makes the decision (reports first, then the safety skips, then the rewrites);
then every module's `refine` may adjust a rewrite; then `refine_class` sees the decisions
of a whole class.  Adding a rule: its module, its golden cases, and one line here.
"""

from __future__ import annotations

from codemod.rules import (
    aliases,
    assigned_from_outside,
    branches,
    captured_reference,
    captured_tensors,
    collisions,
    complex_values,
    conditional_tensors,
    constructor_helpers,
    cpu_data_reads,
    derived_at_construction,
    device_moves,
    external_bases,
    inplace_init,
    kept_raw_partners,
    lazy,
    local_first,
    mixins,
    moved_parameter,
    not_a_tensor,
    off_device,
    old_torch,
    parameter_limits,
    parameters,
    persistence,
    placed_where_read,
    placeholder,
    rebinding,
    rebound_from_outside,
    registered_later,
    reported,
    rerun_helpers,
    script_modules,
    scripted_models,
    size_limits,
    super_order,
    trained_tensors,
    transformers_models,
    unread_trained,
    untyped_arguments,
    unparsed_files,
    unregistered_parameters,
    untyped_method_arguments,
    untyped_values,
)
from codemod.rules.base import Decision, Rule

ORDER = (
    reported,  # BUF301-304: shapes no rewrite fits, reported
    unregistered_parameters,  # BUF316: nn.Parameter(t).squeeze(1): the parameter itself is never registered
    aliases,  # BUF310: a second name for another attribute's tensor
    mixins,  # BUF306: set by a method of a plain base class
    placeholder,  # BUF307: a number in __init__, a tensor later
    untyped_arguments,  # BUF308: a kept argument used as a tensor that no call types
    untyped_method_arguments,  # BUF309: the same, kept by another method (None or nothing in __init__)
    untyped_values,  # BUF312: a value nothing types (another package's call), used as a tensor
    conditional_tensors,  # BUF315: a tensor in one arm of a conditional, something else in the other
    assigned_from_outside,  # BUF313: None here, never set by the class, used as a tensor
    captured_tensors,  # BUF317: a lambda on self that closes over a local tensor
    rebinding,  # BUF211-213: deleted, registered elsewhere, rebound to a non-tensor
    rebound_from_outside,  # BUF224: rebound to a list or a number through another object
    not_a_tensor,  # BUF204: a binding not proven a tensor (in any branch)
    collisions,  # BUF207: a name register_buffer cannot take
    constructor_helpers,  # BUF208: also bound by a base-class method
    rerun_helpers,  # BUF220: bound by a helper that other code calls again
    complex_values,  # BUF201
    off_device,  # BUF206
    placed_where_read,  # BUF215
    transformers_models,  # BUF202
    script_modules,  # BUF221: a torch.jit.ScriptModule refuses non-persistent buffers
    parameter_limits,  # BUF210
    moved_parameter,  # BUF216: nn.Parameter(t).to(device), reported unless persistence is asked for
    captured_reference,  # BUF214 (after BUF216: a moved Parameter is the first thing to say of it)
    super_order,  # BUF209
    registered_later,  # BUF108: assigned, then registered under the same name
    trained_tensors,  # BUF217: requires grad and handed out in a list (an optimizer of its own): reported
    cpu_data_reads,  # BUF218: values that reach Tensor.numpy() or torch.LongTensor(t)
    unread_trained,  # BUF219: requires grad, but nothing reads it: reported
    derived_at_construction,  # BUF223: requires grad, and construction computes other values from it: reported
    parameters,  # BUF103-105: nn.Parameter for trained tensors
    lazy,  # BUF107: None in __init__, a tensor later
    persistence,  # BUF101/102: register_buffer
    local_first,  # refine -> BUF106: built in a local first
    device_moves,  # refine: construction-time moves kept unless proven pointless (BUF205)
    kept_raw_partners,  # refine_class -> BUF225: computed with a tensor that stays raw
    old_torch,  # refine_class -> BUF222: no non-persistent buffers in the torch the repository declares
    scripted_models,  # refine_class -> BUF226: a scripted module saves every buffer in its state_dict
)

# An attribute the constructor never binds (assigned only by other methods, or by a base class's
# method __init__ calls) has no statement to rewrite: only these rules speak about it (each is
# in ORDER too, which `considers` and the registry walk).
OUTSIDE_CONSTRUCTOR = (reported, mixins, untyped_method_arguments)

# Modules that hold rules without a decision of their own: their rules are facts the others use.
_OTHERS = (branches, inplace_init, size_limits, external_bases, unparsed_files)

REGISTRY: dict[str, Rule] = {}
for _module in (*ORDER, *_OTHERS):
    for _rule in getattr(_module, "RULES", ()):
        if _rule.code in REGISTRY:
            raise RuntimeError(f"rule code {_rule.code} used twice")
        REGISTRY[_rule.code] = _rule
REGISTRY = dict(sorted(REGISTRY.items()))


def considers(facts) -> bool:
    """Whether any rule has something to say about the attribute: a raw tensor binding
    (AttributeFacts.considered), or a pattern a rule module claims with `wants(facts)`."""
    if facts.registered_by_base:
        return False  # a buffer already (registered by a base class or a helper): assignments land in it
    return facts.considered or any(getattr(module, "wants", None) and module.wants(facts) for module in ORDER)


def decide(facts) -> Decision | None:
    """The decision for one attribute: the first rule that answers, refined by every rule."""
    decision = None
    for module in ORDER if facts.events else OUTSIDE_CONSTRUCTOR:
        ask = getattr(module, "decide", None)
        if ask is not None:
            decision = ask(facts)
            if decision is not None:
                break
    if decision is None:
        return None
    for module in ORDER:
        refine = getattr(module, "refine", None)
        if refine is not None:
            decision = refine(facts, decision)
    return decision


def refine_class(cls, decided: dict) -> None:
    """Decisions that depend on other attributes of the class (persistence of attributes updated together)."""
    for module in ORDER:
        refine = getattr(module, "refine_class", None)
        if refine is not None:
            refine(cls, decided)


def module_of(code: str):
    """The module holding the rule with this code."""
    for module in (*ORDER, *_OTHERS):
        if any(r.code == code for r in getattr(module, "RULES", ())):
            return module
    raise KeyError(code)


def rule(code: str) -> Rule:
    """The rule with this code; KeyError for an unknown one."""
    return REGISTRY[code]


__all__ = ["ORDER", "REGISTRY", "considers", "decide", "module_of", "refine_class", "rule"]
