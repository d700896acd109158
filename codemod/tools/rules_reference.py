"""The README's table and reference of rules, generated from the registry.

    python -m codemod.tools.rules_reference            # print the Markdown
    python -m codemod.tools.rules_reference --write    # replace it in README.md

The README holds it between `<!-- rules:start -->` and `<!-- rules:end -->`; a test checks
that it is what this prints.  Each rule gets an anchor `#buf101` (lower-case code), which
SARIF results and GitHub annotations link to.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

START = "<!-- rules:start -->"
END = "<!-- rules:end -->"


def anchor(code: str) -> str:
    return code.lower()


def markdown() -> str:
    from codemod.rules.registry import ORDER, REGISTRY, module_of

    lines = [
        "| Code | Rule | Kind | Module | Statically safe |",
        "| --- | --- | --- | --- | --- |",
    ]
    for code, rule in REGISTRY.items():
        module = module_of(code).__name__.rpartition(".")[2]
        safe = "when integer or bool" if rule.statically_safe else ""
        lines.append(f"| [{code}](#{anchor(code)}) | {rule.name} | {rule.kind} | `rules/{module}.py` | {safe} |")
    lines.append("")
    order = ", ".join(f"`{m.__name__.rpartition('.')[2]}`" for m in ORDER)
    lines.append(f"The analysis consults the rule modules in this order, and the first that decides wins: {order}.")
    lines.append("Any code can be left out with `# codemod: ignore[CODE]` on the statement (or the class line) or `--ignore CODE`.")
    for code, rule in REGISTRY.items():
        lines += ["", f'<a id="{anchor(code)}"></a>', f"#### {code} {rule.name}", "", _sentence(rule.summary)]
        if rule.fact:
            lines += ["", f"*Torch fact:* {rule.fact}"]
        if rule.before:
            lines += ["", "```python", rule.before]
            if rule.after:
                lines += ["# becomes", rule.after]
            else:
                lines.append("# is left as it is, " + ("reported" if rule.code.startswith("BUF3") else "with the reason"))
            lines.append("```")
    return "\n".join(lines) + "\n"


def _sentence(text: str) -> str:
    text = text[0].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def replace_in(readme: str) -> str:
    start, end = readme.index(START) + len(START), readme.index(END)
    return readme[:start] + "\n" + markdown() + readme[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="replace the generated part of README.md")
    args = parser.parse_args(argv)
    if args.write:
        readme = Path(__file__).resolve().parents[2] / "README.md"
        readme.write_text(replace_in(readme.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
