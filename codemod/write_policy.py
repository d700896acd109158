"""Which rewrites are written.

Without validation (`--no-validate`, standard input, the pre-commit hooks, a static-only
install), a rewrite is written only when it is statically safe (Finding.statically_safe: a
non-persistent integer or bool buffer, which changes no checkpoint and no cast);
`--unsafe-fixes` writes the others too, as ruff does for its unsafe fixes.

With validation, by default a rewrite is written when running proved it (**passed**), or when it could not
be proven (**not validated**: no way to build the class, or its statement never ran with
the arguments used) and the rule that decided it is statically safe: a rewrite that
changes nothing a checkpoint, a cast, an optimizer or a loader sees beyond what the
static analysis already proves.  **Failed**, **error** and **timeout** rewrites are not
written, nor not-validated ones decided by other rules; `--unsafe-fixes` writes them too
(as ruff does for its unsafe fixes), `--require-validated` writes passed rewrites only.

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
    if policy.require_validated:
        return False, f"{verdict.value}; --require-validated writes passed rewrites only"
    if policy.unsafe_fixes:
        return True, ""
    if verdict is Verdict.NOT_VALIDATED:
        if statically_safe(finding):
            return True, ""
        return False, "not validated and not statically safe (--unsafe-fixes writes it)"
    return False, f"{verdict.value} (--unsafe-fixes writes it)"


def held_back_hint(policy: WritePolicy) -> str:
    """What the summary says writes the rewrites held back."""
    return REQUIRE_VALIDATED_HINT if policy.require_validated else UNSAFE_FIXES_HINT
