"""Statements before `super().__init__()`.

Torch fact (torch 2.13): `register_buffer` (and assigning an `nn.Parameter`) before
`nn.Module.__init__` has run raises `AttributeError: cannot assign buffer before
Module.__init__() call`, while a raw tensor attribute there works.  Such a statement is
moved after the call when nothing before it reads the attribute, `self`, or rebinds the
names it uses (and no random draw changes order); otherwise it is left alone.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule
from codemod.tensors import mentions_self_attribute

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF209",
    "before-super-init",
    "assigned before super().__init__() where it cannot be moved after it; register_buffer there raises AttributeError",
    fact='register_buffer before nn.Module.__init__() raises AttributeError "cannot assign buffer before Module.__init__() call"; a raw attribute there works.',
    before='def __init__(self, n):\n    self.mask = torch.ones(n)\n    self.size = self.mask.numel()\n    super().__init__()',
)
RULES = (RULE,)


def decide(facts: AttributeFacts) -> Decision | None:
    for event in rewritten_bindings(facts):
        where = placement(facts, event)
        if isinstance(where, str):
            return RULE.skip(where)
    return None


def refine_class(cls, decided: dict) -> None:
    """Statements are moved after super().__init__() only where no attribute of the class is
    left before it: moving some and not others changes what the rest are assigned before and
    used by, so a second run would decide them otherwise (a codemod's second run changes
    nothing).  Where one is left, the others that would move are left with it."""
    left = sorted(attr for attr, (_, decision) in decided.items() if decision.code == RULE.code)
    if not left:
        return
    for attr, (facts, decision) in list(decided.items()):
        if decision.code != RULE.code and any(edit.move_after for edit in decision.edits):
            decided[attr] = (facts, RULE.skip(
                f"assigned before super().__init__(), as self.{left[0]} is, which stays there; move these "
                "assignments after super().__init__() by hand"))


def rewritten_bindings(facts: AttributeFacts) -> list:
    """The statements a rewrite of this attribute edits (before any localisation)."""
    if facts.trained is not None:
        return facts.tensor_bindings
    return [e for e in facts.events if e.kind == "assign" and e.value is not None and (e.value.is_tensor or e.value.kind.name == "NONE")]


def placement(facts: AttributeFacts, event) -> tuple[int, int] | None | str:
    """None when the statement can stay; the super() statement to move after; or a skip reason."""
    from codemod.edits import char_col

    cls = facts.cls
    walker = cls.walker
    attr = facts.attr
    if walker is None or walker.super_index is None:
        return "no super().__init__() call in __init__; register_buffer needs nn.Module.__init__ to have run"
    if event.top_index > walker.super_index or event.in_base_init:
        return None
    if event.nested or event.top_index == walker.super_index:
        return "assigned before super().__init__() inside a block; it cannot be moved safely"
    body = cls.init.body
    between = body[event.top_index + 1 : walker.super_index + 1]
    super_stmt = body[walker.super_index]
    self_name = walker.ev.self_name
    # every attribute the statement binds (`self.mask, self.b = ...` moves both), read or bound again before super()
    if any(mentions_self_attribute(stmt, self_name, attr) for stmt in between):
        return "assigned before super().__init__() and used before it; move the assignment after super().__init__()"
    others = sorted({n.attr for n in ast.walk(event.stmt) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                     and isinstance(n.value, ast.Name) and n.value.id == self_name} - {attr})
    used = [name for name in others if any(mentions_self_attribute(stmt, self_name, name) for stmt in between)]
    if used:
        return (f"assigned before super().__init__() by a statement that also binds self.{used[0]}, which is used or "
                "bound again before it; move these assignments after super().__init__() by hand")
    if any(_uses_bare_self(stmt, self_name) for stmt in between if stmt is not super_stmt):
        return "assigned before super().__init__() and `self` is used before it; move it by hand"
    value_names = {n.id for n in ast.walk(event.stmt) if isinstance(n, ast.Name)}
    if any(_rebinds(stmt, value_names) for stmt in between):
        return "assigned before super().__init__() from names rebound before it; move it by hand"
    if event.value is not None and event.value.stateful and "random" in event.value.stateful:
        only_module = all(
            cls.symbols.qualify(_unsub(b)) in ("torch.nn.Module", "torch.nn.modules.module.Module") for b in cls.cls.bases
        )
        if not only_module:
            return "random value created before super().__init__(), which may draw random numbers too; moving it would change the values"
    return (super_stmt.lineno, char_col(cls.lines, super_stmt.lineno, super_stmt.col_offset))


def _unsub(node: ast.expr) -> ast.expr:
    return node.value if isinstance(node, ast.Subscript) else node


def _uses_bare_self(stmt: ast.stmt, self_name: str | None) -> bool:
    """`self` used other than as `self.<name> = ...`: passed along, a method called, or an
    attribute read (which may be a property reading the attribute being moved)."""
    stores = {id(n.value) for n in ast.walk(stmt) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    return any(isinstance(n, ast.Name) and n.id == self_name and id(n) not in stores for n in ast.walk(stmt))


def _rebinds(stmt: ast.stmt, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names for n in ast.walk(stmt))
