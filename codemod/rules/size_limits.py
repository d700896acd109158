"""Statements too large to rewrite within a bounded time: reported, never rewritten.

Not a torch fact but a cost bound: the rewrite goes through a concrete syntax tree whose
cost grows with the statement (a 300,000-element literal takes minutes and gigabytes).
A constructor statement longer than `MAX_STATEMENT_CHARS` characters (a table pasted
into the code) is left for its author; the class's other rewrites go with it, since a
class is rewritten, validated and written as one unit.
"""

from __future__ import annotations

from codemod.rules.base import Rule

# About a second of rewriting on a slow machine; hand-written constructor statements,
# even those holding a lookup table of a few hundred numbers, stay far below it.
MAX_STATEMENT_CHARS = 20_000

RULE = Rule(
    "BUF305",
    "statement-too-large",
    f"a rewrite would touch a statement over {MAX_STATEMENT_CHARS:,} characters; the class is left to rewrite by hand",
    fact='Not a torch fact but a cost bound: a constructor statement of more than 20,000 characters (a pasted table) is reported, not parsed into a concrete syntax tree.',
    before='def __init__(self):\n    super().__init__()\n    self.table = torch.tensor([0.1, 0.2, ...])  # 300,000 numbers',
)
RULES = (RULE,)

REASON = (
    "the statement on line {line} is {size:,} characters long, over the {limit:,}-character limit"
    " for a rewrite; the class is left alone (rewrite it by hand)"
)
