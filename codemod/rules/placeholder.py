"""A number (or an empty list) set in the constructor and a tensor set by another method is reported.

Torch facts (torch 2.13): a tensor assigned to a plain attribute is neither moved by
`.to()` nor saved.  The placeholder cannot become an empty buffer slot as a `None` one can
(rules/lazy.py): once a name is a buffer, `Module.__setattr__` refuses a number for it
(`TypeError: cannot assign 'int' as buffer 'loss' (torch.Tensor or None expected)`), so
`self.loss = 0` would raise wherever the class resets it.  Most such attributes are
per-step values (losses, outputs kept for logging), which need no change at all.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.facts import empty_container
from codemod.rules.base import Decision, Rule
from codemod.tensors import Kind

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF307",
    "number-then-tensor",
    "set to a number or an empty list (or None, for a hook's value or a value forward replaces on every call) in __init__ "
    "and to a tensor by another method; the tensor is neither moved by .to() nor saved",
    fact="A registered buffer accepts only a tensor or None (`self.loss = 0` on a buffer raises TypeError), and a "
    "tensor in a plain attribute is not moved by .to() nor saved.",
    before="def __init__(self):\n    super().__init__()\n    self.loss = 0\n\ndef step(self, x, y):\n"
    "    self.loss = torch.mean((self.net(x) - y) ** 2)\n    return self.loss",
)
RULES = (RULE,)


def _is_number(node: ast.expr | None) -> bool:
    """`0`, `-1.0`, and the spellings of infinity a best-so-far starts from: `float('inf')`,
    `math.inf`, `np.inf`."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "int") \
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant):
        return True
    if isinstance(node, ast.Attribute) and node.attr in ("inf", "nan") and isinstance(node.value, ast.Name) \
            and node.value.id in ("math", "np", "numpy"):
        return True
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, bool)


def _later_binding(facts: AttributeFacts):
    """(where, event) of the binding by an own method (not a base's or a subclass's) that makes
    the attribute a tensor, or a tuple of tensors when nothing makes it one tensor."""
    found = facts.own_tensor_binding(kinds=("assign", "unpack"))
    if found is None:
        # `self.loss += criterion(out, y)`: a number plus a tensor is a tensor
        found = facts.own_tensor_binding(kinds=("mutate",))
        if found is not None and not isinstance(found[1].stmt, ast.AugAssign):
            found = None
    if found is None:
        # `out, self.hidden = self.lstm(x, self.hidden)`: an LSTM's (h, c)
        own = f"{facts.cls.cls.name}."
        found = next(
            ((label, e) for label, e in facts.outside if label.startswith(own) and e.kind in ("assign", "unpack")
             and e.value is not None and e.value.kind is Kind.SEQUENCE),
            None,
        )
    return found


def _copied_slot(node: ast.expr | None, facts: AttributeFacts) -> str | None:
    """The other attribute of self that ``node`` reads whole (`self.pending`, `self.pending.clone()`), or None."""
    from codemod.facts import copied_attribute

    copied = copied_attribute(node, {"self", facts.cls.self_name})
    return copied if copied != facts.attr else None


def _is_none(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def wants(facts: AttributeFacts) -> bool:
    """Bound only to numbers in the constructor (or to None, where the tensor comes from a hook
    or callback that rules/lazy.py leaves alone), and to a tensor by a method of the class."""
    from codemod.rules import lazy

    if facts.registered_by_base or not facts.events or not all(e.kind == "assign" or lazy.chained(e) for e in facts.events):
        return False
    if all(empty_container(e.value_node) for e in facts.events):
        # `self.targets = []`, then `self.targets = torch.zeros_like(x)` in forward: one tensor in
        # its place (a list the class fills with tensors is a container, which rules/reported.py says)
        found = facts.own_tensor_binding(kinds=("assign", "unpack"))
        later = [(label, e) for label, e in facts.outside if e.value is not None and e.value.kind is Kind.TENSOR]
        return found is not None and not facts.forward_input_refuted(later)
    if all(_is_number(e.value_node) or _is_none(e.value_node) for e in facts.events) and (
        all(_is_number(e.value_node) for e in facts.events) or not lazy.is_lazy(facts)
    ):
        later = [(label, e) for label, e in facts.outside if e.value is not None and e.value.kind is Kind.TENSOR]
        return _later_binding(facts) is not None and not facts.forward_input_refuted(later)
    return False


def decide(facts: AttributeFacts) -> Decision | None:
    from codemod.rules import lazy

    if not wants(facts):
        return None
    label, event = _later_binding(facts)  # type: ignore[misc]
    line = event.stmt.lineno
    number = ast.unparse(facts.events[0].value_node)  # type: ignore[arg-type]
    if event.value.kind is Kind.SEQUENCE and isinstance(event.value_node, (ast.Dict, ast.DictComp, ast.List, ast.ListComp)):
        # `self.best = {"net": self.net.state_dict()}`: a container, which no buffer holds
        from codemod.rules.reported import FILLED_LATER_SUGGESTION

        shape = "dict" if isinstance(event.value_node, (ast.Dict, ast.DictComp)) else "list"
        return RULE.skip(
            f"set to {number} in __init__ and to a {shape} of tensors in {label} (line {line}); they are not moved by .to() "
            "nor saved",
            FILLED_LATER_SUGGESTION,
        )
    if event.value.kind is Kind.SEQUENCE:
        # a buffer holds one tensor or None, never a tuple of them
        return RULE.skip(
            f"set to {number} in __init__ and to a tuple of tensors in {label} (line {line}); they are not moved by .to() "
            "nor saved",
            "state a method rebuilds on every call (a recurrent (h, c) passed back in) needs no change; a tuple the model "
            "keeps between calls: one buffer per tensor, each declared in __init__ with register_buffer(name, None, "
            "persistent=False)",
        )
    copied = _copied_slot(event.value_node, facts)
    if number == "None" and copied is not None:
        # `self.previous = self.pending`: the slot holds what the other slot held
        return RULE.skip(
            f"set to None in __init__ and to the tensor of self.{copied} in {label} (line {line}); that tensor is not "
            "moved by .to() nor saved",
            f'declare it as self.{copied} is declared, so that both move and cast together: an empty buffer slot, '
            f'self.register_buffer("{facts.attr}", None, persistent=False), where self.{copied} is one',
        )
    empty = empty_container(facts.events[0].value_node)
    if (number == "None" or empty) and lazy.replaced_on_every_call(facts):
        return RULE.skip(
            f"set to {number} in __init__ and to a new tensor on every call of forward (line {line}); that tensor is not moved "
            "by .to() nor saved",
            "a per-call value (attention weights, an output kept for inspection) needs no change; if other code reads it "
            f'after .to(), an empty buffer slot holds it: self.register_buffer("{facts.attr}", None, persistent=False)',
        )
    if number == "None":
        return RULE.skip(
            f"set to None in __init__ and to a tensor in {label} (line {line}); that tensor is not moved by .to() nor saved",
            "a per-call value (a module output kept by a hook) needs no change; an empty buffer slot, "
            f'self.register_buffer("{facts.attr}", None, persistent=False), holds it only if it is always a tensor',
        )
    if empty:
        return RULE.skip(
            f"set to {number} in __init__ and to a tensor in {label} (line {line}); that tensor is not moved by .to() nor "
            "saved, and a buffer cannot hold the empty container",
            "a per-call value (targets, an output kept for inspection) needs no change; a tensor the model keeps between "
            f'calls: an empty buffer slot in place of {number}, self.register_buffer("{facts.attr}", None, persistent=False)',
        )
    return RULE.skip(
        f"set to {number} in __init__ and to a tensor in {label} (line {line}); that tensor is not moved by .to() nor saved, "
        "and a buffer cannot hold the number",
        "a per-step value (a loss, an output kept for logging) needs no change; a tensor the model keeps between calls: "
        f'start it as a tensor and register it, self.register_buffer("{facts.attr}", torch.tensor({number}), persistent=False)',
    )
