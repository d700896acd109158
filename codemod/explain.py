"""Explaining a rule where the user is: `codemod rule CODE`, SARIF help, editor and CI links.

Everything comes from the registry's Rule fields (code, name, summary, fact, before, after):
the explanation of a rule is written once, in its module under `codemod/rules/`, and shown
the same way on the command line, in code scanning and in editors.  A field a rule does not
fill yet is left out (the torch fact falls back on the "Torch fact" paragraph of the rule
module's docstring).

`rule_url(code)` is the one place that says where a rule's documentation lives: the README's
heading for that code.
"""

from __future__ import annotations

import sys
import textwrap

from codemod.rules.registry import REGISTRY
from codemod.rules.base import Rule

# The README as published with the repository; each rule code has a heading of its own there.
README_URL = "https://github.com/torch-buffer-codemod/torch-buffer-codemod/blob/main/README.md"


def rule_url(code: str) -> str:
    """The README's anchor for a rule code: `...README.md#buf101`."""
    return f"{README_URL}#{code.lower()}"


class UnknownRule(LookupError):
    """A code that names no rule of the registry."""


def find_rule(code: str) -> Rule:
    """The rule of a code (any case); UnknownRule, naming the closest codes, when there is none."""
    wanted = code.strip().upper()
    if wanted in REGISTRY:
        return REGISTRY[wanted]
    import difflib

    close = difflib.get_close_matches(wanted, REGISTRY, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else f" (known: {', '.join(REGISTRY)})"
    raise UnknownRule(f"unknown rule code {code!r}{hint}")


def kind(rule: Rule) -> str:
    """rewrite, safety skip or report (the code's hundreds say which)."""
    if rule.rewrites:
        return "rewrite"
    return "report" if rule.code.startswith("BUF3") else "safety skip"


def fact(rule: Rule) -> str:
    """The torch fact a rule rests on: its own field, else its module docstring's paragraph."""
    if rule.fact.strip():
        return " ".join(rule.fact.split())
    module = _module_of(rule)
    for paragraph in (module.__doc__ or "").split("\n\n") if module is not None else ():
        text = " ".join(paragraph.split())
        if text.lower().startswith("torch fact"):
            head, _, rest = text.partition(":")
            return rest.strip() if "(" in head or head.lower() == "torch fact" else text
    return ""


def _module_of(rule: Rule):
    for name, module in list(sys.modules.items()):
        if name.startswith("codemod.rules.") and any(r is rule for r in getattr(module, "RULES", ()) or ()):
            return module
    return None


def safety(rule: Rule) -> str:
    if not rule.rewrites:
        return "writes nothing: the attribute stays as it is"
    if rule.statically_safe:
        return ("statically safe when the buffer holds an integer or bool tensor (written without validation); "
                "otherwise written once validation passes, or with --unsafe-fixes")
    return "not statically safe: written once validation passes, or with --unsafe-fixes"


def suppression(code: str) -> str:
    return (f"`# codemod: ignore[{code}]` on the statement that binds the attribute (or alone on the line "
            f"above it) keeps that attribute as it is; on a `class` line, the whole class. For the whole "
            f"project: `ignore = [\"{code}\"]` in [tool.codemod], or `--ignore {code}`.")


def _example(rule: Rule) -> tuple[str, str]:
    before = textwrap.dedent(rule.before).strip("\n")
    after = textwrap.dedent(rule.after).strip("\n")
    return before, after


def rule_text(rule: Rule) -> str:
    """`codemod rule CODE`: what the rule decides, the torch fact, an example, how to suppress it."""
    out = [f"{rule.code} {rule.name}", f"{kind(rule).capitalize()}; {safety(rule)}.", "", "What it decides:",
           _indent(rule.summary, 2)]
    torch_fact = fact(rule)
    if torch_fact:
        out += ["", "Torch fact:", _indent(torch_fact, 2)]
    before, after = _example(rule)
    if before:
        out += ["", "Example:", "  before:", textwrap.indent(before, "    ")]
        out += ["  after:", textwrap.indent(after, "    ") if after else "    (left as it is)"]
    out += ["", "How to suppress it:", _indent(suppression(rule.code), 2), "", f"Documentation: {rule_url(rule.code)}"]
    return "\n".join(out)


def rule_markdown(rule: Rule) -> str:
    """The same as Markdown (SARIF's help.markdown, editors' hovers)."""
    out = [f"**{rule.code} {rule.name}** ({kind(rule)}; {safety(rule)})", "", rule.summary]
    torch_fact = fact(rule)
    if torch_fact:
        out += ["", f"**Torch fact.** {torch_fact}"]
    before, after = _example(rule)
    if before:
        out += ["", "Before:", "", "```python", before, "```"]
        out += ["", "After:", "", "```python", after, "```"] if after else ["", "After: left as it is."]
    out += ["", f"**Suppress it.** {suppression(rule.code)}", "", f"[Documentation]({rule_url(rule.code)})"]
    return "\n".join(out)


def rule_json(rule: Rule) -> dict:
    before, after = _example(rule)
    return {
        "code": rule.code,
        "name": rule.name,
        "kind": kind(rule),
        "statically_safe": rule.statically_safe,
        "summary": rule.summary,
        "fact": fact(rule),
        "before": before,
        "after": after,
        "suppress": f"# codemod: ignore[{rule.code}]",
        "url": rule_url(rule.code),
    }


def _indent(text: str, width: int) -> str:
    return textwrap.fill(" ".join(text.split()), width=88, initial_indent=" " * width, subsequent_indent=" " * width,
                         break_on_hyphens=False, break_long_words=False)
