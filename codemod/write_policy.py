"""Which validated rewrites are written.

By default a rewrite is written when running proved it (**passed**: its statement ran, its
tensor was compared, and a forward was compared in float32 and after each cast, or no
forward of the class reads it), or when it is not proven (**checked without forward**, **not
validated**) and the analysis proves it statically safe (Finding.statically_safe: a
non-persistent integer or bool buffer, which no checkpoint, cast or optimizer sees).  A
rewrite that **changes the checkpoint format** (its only difference: new ``state_dict``
keys) is written with ``--allow-new-keys``.  **Failed**, **error** and **timeout** rewrites
are not written; ``--unsafe-fixes`` writes everything (as ruff does for its unsafe fixes),
``--require-validated`` writes passed rewrites only (and, with ``--allow-new-keys``, those
that change the checkpoint format).

The unit that is written or held back is the class: its rewrites are applied together
(they can depend on each other, e.g. a local read instead of the attribute), so a class is
written only when every one of its rewrites may be.
"""

from __future__ import annotations

from dataclasses import dataclass

from codemod.ftypes import Action, Finding, Verdict


@dataclass(frozen=True)
class WritePolicy:
    unsafe_fixes: bool = False  # write failed, errored, timed-out and unproven rewrites too
    require_validated: bool = False  # write passed rewrites only
    allow_new_keys: bool = False  # write rewrites whose only difference is new state_dict keys


def statically_safe(finding: Finding) -> bool:
    """Whether this rewrite is safe without running the model (the analysis proves it: see
    Finding.statically_safe)."""
    return finding.action is not Action.SKIP and finding.statically_safe


def may_write(finding: Finding, policy: WritePolicy) -> tuple[bool, str]:
    """Whether this validated rewrite may be written, and why not when it may not."""
    if finding.validation is None:
        return True, ""
    verdict = finding.validation.verdict_for(finding.attribute)
    if verdict is Verdict.PASSED:
        return True, ""
    if verdict is Verdict.CHANGES_CHECKPOINT:
        if policy.allow_new_keys or policy.unsafe_fixes:
            return True, ""
        return False, f"{verdict.value}; --allow-new-keys writes it"
    if policy.require_validated:
        return False, f"{verdict.value}; --require-validated writes passed rewrites only"
    if policy.unsafe_fixes:
        return True, ""
    if verdict in (Verdict.NOT_VALIDATED, Verdict.CHECKED_WITHOUT_FORWARD):
        if statically_safe(finding):
            return True, ""
        return False, f"{verdict.value}: not proven by a forward and not statically safe (--unsafe-fixes writes it)"
    return False, f"{verdict.value} (--unsafe-fixes writes it)"
