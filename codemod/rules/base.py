"""What a rule is: a stable code, a name, one line saying what it decides."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One named decision the analysis can make about an attribute.

    code: stable, never reused (BUF1xx rewrites, BUF2xx safety skips, BUF3xx reported
    and not rewritten).  statically_safe: a rewrite decided by this rule is safe without
    running the model (always False for skips and reports, which write nothing).
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
