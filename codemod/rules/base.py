"""What a rule is, and how the analysis consults it.

A rule module holds one or more `Rule`s (stable code, name, summary, the torch fact it
rests on, an example) and the functions that apply them:

- `decide(facts: AttributeFacts) -> Decision | None`: the analysis asks every rule module
  in the registry's order (codemod/rules/__init__.py) and the first decision wins.  A
  rewrite rule answers with the rewrite and its edits; a safety rule with a skip and its
  reason; a rule with nothing to say for this attribute answers None.
- `refine(facts, decision) -> Decision`: once a decision is made, every rule module may
  adjust a rewrite (keep a device move, make a buffer persistent), in the same order.
- `refine_class(cls, decided)`: adjustments that depend on several attributes of a class.
- `wants(facts) -> bool`: a module that speaks about attributes with no raw tensor binding
  in the constructor (a lazy `None`) claims them, so that the analysis asks about them.

So adding a rule is one module, its golden cases and one line in the registry; the
analysis (codemod/analysis.py) gathers facts and asks, and never decides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from codemod.ftypes import Action

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts
    from codemod.plans import SpineEdit, StmtEdit


@dataclass(frozen=True)
class Rule:
    """One named decision the analysis can make about an attribute.

    code: stable, never reused (BUF1xx rewrites, BUF2xx safety skips, BUF3xx reported
    and not rewritten).
    """

    code: str
    name: str
    summary: str
    statically_safe: bool = False  # its rewrites can be safe without running the model (Finding.statically_safe decides each)
    fact: str = ""  # the torch behaviour the rule rests on, as measured (torch 2.13)
    before: str = ""  # a constructor the rule acts on
    after: str = ""  # what the codemod makes of it; "" when it leaves the code as it is

    @property
    def rewrites(self) -> bool:
        return self.code.startswith("BUF1")

    @property
    def kind(self) -> str:
        return {"1": "rewrite", "2": "safety", "3": "report"}.get(self.code[3:4], "rule")

    def skip(self, reason: str, suggestion: str | None = None) -> Decision:
        """This rule's decision to leave the attribute as it is."""
        return Decision(Action.SKIP, reason, self.code, suggestion=suggestion)


@dataclass
class Decision:
    """What happens to one attribute, and why."""

    action: Action
    reason: str
    code: str
    suggestion: str | None = None
    persistent: bool | None = None  # buffers only
    statically_safe: bool = False  # see Finding.statically_safe
    edits: list[StmtEdit] = field(default_factory=list)
    annotations: list[tuple[str, str]] = field(default_factory=list)  # (attr, annotation) to declare on the class
    # Construction-time device moves in the rewritten values, per edit: left in place unless a
    # rule proves them pointless (rules/device_moves.py), which then drops them.
    moves: list[tuple[StmtEdit, tuple[SpineEdit, ...]]] = field(default_factory=list)


def skip_buffers_where(decided: dict[str, tuple[AttributeFacts, Decision]], fact: Callable[[], str | None],
                       skip: Callable[[str, str], Decision]) -> None:
    """For a `refine_class`: where a fact of the repository (asked only when the class has a
    non-persistent buffer to make, since it may read every file) says so, turn each such
    buffer into ``skip(attr, fact)``."""
    buffers = [attr for attr, (_, decision) in decided.items() if decision.action is Action.BUFFER and not decision.persistent]
    found = fact() if buffers else None
    if found is None:
        return
    for attr in buffers:
        decided[attr] = (decided[attr][0], skip(attr, found))
