"""GitHub Actions workflow commands: one annotation per finding, shown on the pull request.

    ::warning file=models/encoder.py,line=9,col=9,title=BUF101::Encoder.mask -> register_buffer (...) (BUF101: https://...#buf101)

The title carries the rule code, and the message ends with the code and the README's anchor
for it (explain.rule_url), which `codemod rule CODE` prints too.

Escaping follows GitHub's workflow-command rules: in the message `%`, CR and LF are
percent-encoded; in a property value `:` and `,` are too.
"""

from __future__ import annotations

from collections.abc import Iterable

from codemod.ftypes import FileResult
from codemod.report import finding_text


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **properties: object) -> str:
    """`::level key=value,...::message`; properties whose value is None are left out."""
    shown = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{level}{' ' + shown if shown else ''}::{escape_data(message)}"


def annotations(files: Iterable[FileResult], errors: list[tuple[str, str]]) -> list[str]:
    """A warning per finding and an error per file that could not be processed."""
    from codemod.explain import rule_url

    lines = []
    for result in files:
        for finding in result.findings:
            message = finding_text(finding)
            if finding.code:
                message += f" ({finding.code}: {rule_url(finding.code)})"
            lines.append(
                command(
                    "warning",
                    message,
                    file=finding.path,
                    line=finding.line,
                    col=finding.column,
                    title=finding.code or None,
                )
            )
        if result.error:
            lines.append(command("error", result.error, file=result.display_path, title="codemod"))
    for shown, message in errors:
        lines.append(command("error", message, file=shown, title="codemod"))
    return lines
