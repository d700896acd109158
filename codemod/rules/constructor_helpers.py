"""Helpers called from `__init__` are constructor code.

Torch fact (torch 2.13): `register_buffer("x", t)` after `self.x = ...` raises
`KeyError: "attribute 'x' already exists"`.  An attribute first bound in a helper
(`self._init_x()`) that `__init__` calls, and registered later in `__init__` (or the
reverse order with a raw assignment), hits exactly that; the analysis follows `self.`
method calls made by `__init__` (recursively, each method once) both to find tensors and
to check for such bindings.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF208",
    "bound-in-constructor-helper",
    "also bound in a method that __init__ calls; rewriting one binding and not the other would raise KeyError",
    fact='register_buffer after a plain assignment of the same name raises KeyError; a base-class method binding the attribute may run before or after this constructor.',
    before='class Base(nn.Module):\n    def reset(self):\n        self.table = [0, 1]\n\nclass Model(Base):\n    def __init__(self):\n        super().__init__()\n        self.table = torch.ones(2)',
)
RULES = (RULE,)


def helper_calls(init: ast.AST, self_name: str | None, own_methods: dict[str, ast.AST]) -> list[tuple[ast.Call, ast.AST]]:
    """The calls `self.<method>(...)` that __init__ makes, directly or through the helpers it
    calls, with the method each runs: (the call in __init__ that leads there, the method).
    Each method once; only methods of the class itself (whose statements can be rewritten)."""
    found: list[tuple[ast.Call, ast.AST]] = []
    seen: set[str] = {"__init__"}

    def calls(function: ast.AST, name: str | None):
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == name
                and node.func.attr in own_methods
            ):
                yield node

    def visit(function: ast.AST, name: str | None, origin: ast.Call | None) -> None:
        for call in sorted(calls(function, name), key=lambda c: (c.lineno, c.col_offset)):
            method_name = call.func.attr  # type: ignore[union-attr]
            if method_name in seen:
                continue
            seen.add(method_name)
            method = own_methods[method_name]
            found.append((origin or call, method))
            parameters = method.args.args  # type: ignore[attr-defined]
            if parameters:
                visit(method, parameters[0].arg, origin or call)

    visit(init, self_name, None)
    return found


def decide(facts: AttributeFacts) -> Decision | None:
    from codemod.facts import THROUGH_FUNCTION

    through_init = f"{facts.cls.cls.name}.__init__{THROUGH_FUNCTION}"
    for label, event in facts.outside:
        if label.startswith(through_init) and event.kind in ("assign", "setattr") and facts.events:
            function = label[len(through_init):]
            return RULE.skip(
                f"also bound in {function} (line {event.stmt.lineno}), a function of the module that __init__ "
                "hands self to; the tool rewrites statements of the class only, and register_buffer here with "
                "that plain assignment would raise KeyError",
                f'register it in __init__ before {function} runs (self.register_buffer("{facts.attr}", None, '
                "persistent=False)); the function's assignments then land in the buffer",
            )
        if label.startswith("base ") and not label.endswith(".__init__") and event.kind in ("assign", "setattr"):
            return RULE.skip(
                f"also bound in {label} (line {event.stmt.lineno}), a base-class method that may run before or after "
                "this constructor; register_buffer here, or that assignment, would raise KeyError or TypeError"
            )
    return None
