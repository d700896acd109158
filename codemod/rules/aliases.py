"""A second name for another attribute's tensor is reported, never registered.

`self.alpha_mean = self.alpha` in a constructor keeps the same tensor under two names (so
does `self.tokens = self.prompt_learner.tokens`, a child module's buffer).  As
a plain attribute the copy stays where it was made when the model moves; registering it
as a buffer of its own would not keep the two names one tensor either: `Module._apply`
(what `.to()`, `.half()` run) replaces each buffer with its own converted copy, so after a
move an in-place update through one name (`self.alpha.data.clamp_(0, 1)`) no longer shows
through the other.  Only the user can say which name the code should read.

Torch fact (torch 2.13): `Module._apply` converts every entry of `_buffers` separately, and
a plain attribute not at all; `Module.__setattr__` registers an nn.Parameter assigned to an
attribute on its own, so a copy of a parameter is not reported.
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
    "BUF310",
    "attribute-alias",
    "a second name for the tensor another attribute holds; the copy is neither moved by .to() nor saved, and a buffer "
    "of its own would stop sharing the tensor after a move",
    fact="Module._apply (.to(), .half()) replaces each entry of _buffers with its own converted copy and leaves plain "
    "attributes as they are, so two names for one tensor stop being one tensor after a move either way.",
    before="def __init__(self, n):\n    super().__init__()\n    self.register_buffer(\"alpha\", torch.rand(n))\n"
    "    self.alpha_mean = self.alpha",
)
RULES = (RULE,)

# Views of the same storage under another name: `self.b = self.a.data`, `self.a.detach()`.
_SAME_TENSOR = frozenset({"data", "detach"})


def _source(node: ast.expr | None, self_name: str | None) -> str | None:
    """The attribute of self (or of a module self holds) a value reads as it is: `self.a`,
    `self.a.data`, `self.a.detach()`, `self.child.a`; its path after `self.`."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords and isinstance(node.func, ast.Attribute):
        if node.func.attr not in _SAME_TENSOR:
            return None
        node = node.func.value
    elif isinstance(node, ast.Attribute) and node.attr in _SAME_TENSOR and isinstance(node.value, ast.Attribute):
        node = node.value
    path: list[str] = []
    while isinstance(node, ast.Attribute):
        path.append(node.attr)
        node = node.value
    if path and isinstance(node, ast.Name) and node.id == self_name:
        return ".".join(reversed(path))
    return None


def _aliased(facts: AttributeFacts) -> tuple[AttrEvent, str] | None:
    """(binding, source) where every constructor binding of the attribute is a copy of another
    attribute that holds a tensor (bound before it, here or by a base's constructor)."""
    events = facts.events
    if not events or not all(e.kind == "assign" for e in events):
        return None
    self_name = facts.cls.self_name
    found = None
    for event in events:
        source = _source(event.value_node, self_name)
        if source is None or source == facts.attr:
            return None
        value = event.value
        if (value is None or value.kind is Kind.UNKNOWN) and "." not in source:
            value = facts.cls.attrs_after_construction.get(source)
        if value is None or value.kind is not Kind.TENSOR or value.requires_grad:
            return None
        found = found or (event, source)
    return found


def wants(facts: AttributeFacts) -> bool:
    if facts.registered_by_base or _aliased(facts) is None:
        return False
    return not any(
        e.kind in ("register_buffer", "registered") or (e.value is not None and e.value.kind in (Kind.PARAMETER, Kind.BUFFER))
        for _, e in facts.outside
    )


def decide(facts: AttributeFacts) -> Decision | None:
    if not wants(facts):
        return None
    event, source = _aliased(facts)  # type: ignore[misc]
    return RULE.skip(
        f"a second name for self.{source}'s tensor (line {event.stmt.lineno}); it stays where it is when the model moves, "
        f"and a buffer of its own would stop sharing the tensor with self.{source} after a move",
        f"read self.{source} where self.{facts.attr} is read (a property returning self.{source} keeps the name), "
        f"then register self.{source} if it is not a buffer yet",
    )
