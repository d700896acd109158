"""Turning a run's results into text: finding lines, diffs, JSON, the summary."""

from __future__ import annotations

from collections.abc import Iterable

import click

from codemod.fileio import source_lines
from codemod.ftypes import Action, FileResult, Finding, Validation, Verdict

_DEFAULT_KEEP_COLOUR = None


def finding_line(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}:{finding.column}: {finding_text(finding)}"


def finding_text(finding: Finding) -> str:
    """What a finding says, without its location."""
    head = f"{finding.class_name}.{finding.attribute}"
    if finding.action is Action.SKIP:
        text = f"{head} skipped: {finding.reason}"
        if finding.suggestion:
            text += f" (suggestion: {finding.suggestion})"
        return text
    target = "register_buffer" if finding.action is Action.BUFFER else "nn.Parameter"
    text = f"{head} -> {target} ({finding.reason})"
    if finding.validation is not None:
        text += f" [{finding.validation.verdict.value}]"
    return text


def validation_lines(path: str, class_name: str, validation: Validation) -> list[str]:
    """What validating one class proved, as a heading line and indented details."""
    device = f" on {validation.device}" if validation.device else ""
    if validation.verdict is Verdict.NOT_VALIDATED:
        head = f"{path}: {class_name}: not validated: {validation.message or 'no way to build it'}"
    elif validation.verdict in (Verdict.ERROR, Verdict.TIMEOUT):
        head = f"{path}: {class_name}: validation {validation.verdict.value}{device}: {validation.message}"
    else:
        head = f"{path}: {class_name}: validation {validation.verdict.value}{device}"
        if validation.compared:
            head += ": compared " + ", ".join(validation.compared)
        if validation.max_abs_diff is not None:
            head += f"; largest output difference {validation.max_abs_diff:.3g}"
    lines = [head]
    if validation.message and validation.verdict in (Verdict.PASSED, Verdict.FAILED):
        lines.append(f"    {validation.message}")
    if validation.original_failure:
        lines.append(f"    the original fails on that device (the bug being fixed): {validation.original_failure}")
    if validation.left_behind:
        lines.append("    the original leaves behind on .to(): " + ", ".join(validation.left_behind))
    if validation.checkpoint_compatible is True:
        lines.append("    checkpoints saved before the rewrite load with strict=True")
    elif validation.checkpoint_compatible is False:
        lines.append(
            "    checkpoints saved before the rewrite lack "
            + ", ".join(validation.missing_keys)
            + " (load such checkpoints with strict=False)"
        )
    if validation.parameter_order_changed:
        lines.append("    a new parameter changes the parameter order: an optimizer state saved before will not load")
    if validation.snippet:
        lines.append(f"    add to the examples file: {validation.snippet}")
    return lines


def unified_diff(result: FileResult) -> str:
    """A unified diff of one file's change, as `git apply` reads it."""
    before = source_lines(result.original or "", keepends=True)
    after = source_lines(result.rewritten or "", keepends=True)
    import difflib  # only runs that print a change need it

    lines = difflib.unified_diff(before, after, f"a/{result.display_path}", f"b/{result.display_path}")
    out = []
    for line in lines:
        if not line.endswith(("\n", "\r")):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


def colour_diff(diff: str) -> str:
    out = []
    for line in source_lines(diff, keepends=True):
        if line.startswith(("+++", "---")):
            out.append(click.style(line, bold=True))
        elif line.startswith("@@"):
            out.append(click.style(line, fg="cyan"))
        elif line.startswith("+"):
            out.append(click.style(line, fg="green"))
        elif line.startswith("-"):
            out.append(click.style(line, fg="red"))
        else:
            out.append(line)
    return "".join(out)


def json_document(files: Iterable[FileResult], errors: list[tuple[str, str]], summary, with_diffs: bool) -> str:
    findings = [f.to_json() for r in files for f in r.findings]
    document = {
        "findings": findings,
        "errors": [{"path": p, "message": m} for p, m in errors]
        + [{"path": r.display_path, "message": r.error} for r in files if r.error],
        "summary": {
            "files_scanned": summary.files_scanned,
            "files_changed": summary.files_changed,
            "files_proposed": summary.files_proposed,
            "files_written": summary.files_written,
            "buffers": summary.buffers,
            "parameters": summary.parameters,
            "skipped": summary.skipped,
            "errors": summary.errors,
            "verdicts": dict(summary.verdicts),
        },
    }
    if with_diffs:
        document["diffs"] = [{"path": r.display_path, "diff": unified_diff(r)} for r in files if r.changed]
    import json  # only for --output-format json

    return json.dumps(document, indent=2)


def json_lines(files: Iterable[FileResult], errors: list[tuple[str, str]], with_diffs: bool) -> list[str]:
    """One JSON object per line: each finding, each error, and (with --dry-run) each diff.

    Every record has a "type" ("finding", "error", "diff"); a finding's other keys are
    those of the JSON document's findings.
    """
    import json

    files = list(files)
    records: list[dict] = [{"type": "finding", **f.to_json()} for r in files for f in r.findings]
    records += [{"type": "error", "path": p, "message": m} for p, m in errors]
    records += [{"type": "error", "path": r.display_path, "message": r.error} for r in files if r.error]
    if with_diffs:
        records += [{"type": "diff", "path": r.display_path, "diff": unified_diff(r)} for r in files if r.changed]
    return [json.dumps(record) for record in records]


def statistics(findings: Iterable[Finding]) -> list[dict]:
    """Findings counted per rule code, the most frequent first."""
    from codemod.rules import REGISTRY

    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        rule = REGISTRY.get(code)
        rows.append({"code": code, "name": rule.name if rule else "", "count": count, "rewrites": bool(rule and rule.rewrites)})
    return rows


def statistics_lines(rows: list[dict]) -> list[str]:
    """`  12  BUF101  rewrite  non-persistent-buffer`, aligned."""
    if not rows:
        return []
    width = max(len(str(row["count"])) for row in rows)
    lines = []
    for row in rows:
        kind = "rewrite" if row["rewrites"] else ("report" if row["code"].startswith("BUF3") else "skip")
        lines.append(f"{row['count']:>{width}}  {row['code']:<6}  {kind:<7}  {row['name']}".rstrip())
    return lines
