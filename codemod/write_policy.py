"""Which rewrites are written.

Without validation (`--no-validate`, standard input, the pre-commit hooks, the editor server,
a static-only install), a rewrite is written only when it is statically safe
(Finding.statically_safe: a non-persistent integer or bool buffer, which changes no
checkpoint and no cast); `--unsafe-fixes` writes the others too, as ruff does for its
unsafe fixes.

With validation, by default a rewrite is written when running proved it (**passed**: its
statement ran, its tensor was compared, and a forward was compared in float32 and after
each cast, or no forward of the class reads it), or when it is not proven (**checked without
forward**, **not validated**) and it is statically safe.  A rewrite that **changes the
checkpoint format** (its only difference: new ``state_dict`` keys) is written with
``--allow-new-keys``.  **Failed**, **error** and **timeout** rewrites are not written;
``--unsafe-fixes`` writes everything, ``--require-validated`` writes passed rewrites only
(and, with ``--allow-new-keys``, those that change the checkpoint format).

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


UNSAFE_FIXES_HINT = "--unsafe-fixes writes them"
REQUIRE_VALIDATED_HINT = "--require-validated writes passed rewrites only"


def may_write(finding: Finding, policy: WritePolicy) -> tuple[bool, str]:
    """Whether this rewrite may be written, and why not when it may not."""
    if finding.validation is None:  # validation did not run
        if policy.require_validated:
            return False, "not validated; --require-validated writes passed rewrites only"
        if policy.unsafe_fixes or statically_safe(finding):
            return True, ""
        return False, "not statically safe and not validated (--unsafe-fixes writes it)"
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


def held_back_hint(policy: WritePolicy) -> str:
    """What the summary says writes the rewrites held back."""
    return REQUIRE_VALIDATED_HINT if policy.require_validated else UNSAFE_FIXES_HINT
