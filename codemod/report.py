"""Turning a run's results into text: finding lines, diffs, JSON, the summary."""

from __future__ import annotations

import re
from collections.abc import Iterable

import click

from codemod.fileio import source_lines
from codemod.ftypes import Action, FileResult, Finding, Validation, Verdict

_DEFAULT_KEEP_COLOUR = None


# Control characters (a newline, an escape sequence) and bidirectional overrides in a
# file name would forge lines or hide text in the output: printed escaped instead.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(path: str) -> str:
    """`path` as the text output shows it: control characters as `\\n`, `\\x1b`, ..."""
    return _UNPRINTABLE.sub(_escape, path)


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char) or (
        f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    )


def finding_line(finding: Finding) -> str:
    return f"{printable(finding.path)}:{finding.line}:{finding.column}: {finding_text(finding)}"


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
    if finding.suggestion:
        text += f" (suggestion: {finding.suggestion})"
    if finding.validation is not None:
        verdict = finding.validation.verdict_for(finding.attribute).value
        text += f" [{verdict}, not written]" if finding.held_back else f" [{verdict}]"
    elif finding.held_back:  # a run without validation writes statically safe rewrites only
        if finding.statically_safe:
            text += f" [statically safe, not written: {finding.held_back}]"
        else:
            text += " [not statically safe, not written]"
    return text


def evidence(validation: Validation) -> str:
    """What the verdict of a class rests on: forward compared or not, builds used, branches covered."""
    parts = [f"forward compared: {'yes' if validation.forward_compared else 'no'}"]
    if validation.builds:
        parts.append(f"builds: {len(validation.builds)}")
    if len(validation.branches) == 2 and validation.branches[1]:
        parts.append(f"branches covered: {validation.branches[0]} of {validation.branches[1]}")
    return "; ".join(parts)


_UNPROVEN = (Verdict.NOT_VALIDATED, Verdict.CHECKED_WITHOUT_FORWARD, Verdict.CHANGES_CHECKPOINT)


def written_key(writing: bool) -> str:
    """The key saying whether a rewrite is in the files: a run that writes nothing (--dry-run,
    --check) says what it would write."""
    return "written" if writing else "would_be_written"


def finding_record(finding: Finding, result: FileResult, writing: bool) -> dict:
    """A finding as JSON, with whether its rewrite was (or would be) written."""
    record = finding.to_json()
    if finding.action is not Action.SKIP:
        record[written_key(writing)] = not finding.held_back and result.changed and result.error is None
    return record


def validation_lines(path: str, class_name: str, validation: Validation, held_back: list[Finding] = ()) -> list[str]:
    """What validating one class proved: one line when it passed (with the evidence it has);
    details only for failures, rewrites that could not be proven, and compatibility notes."""
    path = printable(path)
    device = f" on {validation.device}" if validation.device else ""
    if validation.verdict is Verdict.NOT_VALIDATED and not validation.builds:
        head = f"{path}: {class_name}: not validated: {validation.message or 'no way to build it'}"
    elif validation.verdict in (Verdict.ERROR, Verdict.TIMEOUT):
        head = f"{path}: {class_name}: validation {validation.verdict.value}{device}: {validation.message}"
    else:
        word = "not validated" if validation.verdict is Verdict.NOT_VALIDATED else f"validation {validation.verdict.value}"
        head = f"{path}: {class_name}: {word}{device}"
        if validation.builds:
            head += f" ({evidence(validation)})"
        if validation.compared:
            head += ": " + ", ".join(validation.compared)
        if validation.max_abs_diff is not None:
            head += f"; largest output difference {validation.max_abs_diff:.3g}"
    lines = [head]
    if validation.verdict is Verdict.FAILED:
        lines += [f"    {d}" for d in (validation.failures or [validation.message])]
    elif validation.verdict in _UNPROVEN:
        for attr, own in validation.rewrites.items():
            if own["verdict"] != Verdict.PASSED.value:
                lines.append(f"    {attr}: {own['verdict']}: {own['message']}")
    if validation.verdict is not Verdict.PASSED and len(validation.builds) > 1:
        lines += [f"    build {i}: {detail}" for i, detail in enumerate(validation.builds, 1)]
    for note in compatibility_notes(validation):
        lines.append(f"    note: {note}")
    for finding in held_back:
        lines.append(f"    {finding.attribute} not written: {finding.held_back}")
    if validation.snippet:
        lines.append(f"    add to the examples file: {validation.snippet}")
    return lines


def compatibility_notes(validation: Validation) -> list[str]:
    """What a user of the rewritten class must know although nothing failed."""
    notes = list(validation.notes)
    if validation.parameter_order_changed:
        notes.append("a new parameter changes the parameter order: an optimizer state saved before will not load")
    return notes


def unified_diff(result: FileResult) -> str:
    """A unified diff of one file's change, as `git apply` reads it."""
    before = source_lines(result.original or "", keepends=True)
    after = source_lines(result.rewritten or "", keepends=True)
    import difflib  # only runs that print a change need it

    shown = printable(result.display_path)
    lines = difflib.unified_diff(before, after, f"a/{shown}", f"b/{shown}")
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
    files = list(files)
    findings = [finding_record(f, r, summary.writing) for r in files for f in r.findings]
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
            "held_back": summary.held_back,
            "errors": summary.errors,
            "verdicts": dict(summary.verdicts),
            "rewrite_verdicts": dict(summary.rewrite_verdicts),
            "rewrites_validated": summary.rewrites_validated,
            "rewrites_proven": summary.rewrites_proven,
            "rewrites_forward_compared": summary.rewrites_forward,
        },
    }
    if with_diffs:
        document["diffs"] = [{"path": r.display_path, "diff": unified_diff(r)} for r in files if r.changed]
    import json  # only for --output-format json

    return json.dumps(document, indent=2)


def json_lines(files: Iterable[FileResult], errors: list[tuple[str, str]], with_diffs: bool, writing: bool = False) -> list[str]:
    """One JSON object per line: each finding, each error, and (with --dry-run) each diff.

    Every record has a "type" ("finding", "error", "diff"); a finding's other keys are
    those of the JSON document's findings.
    """
    import json

    files = list(files)
    records: list[dict] = [{"type": "finding", **finding_record(f, r, writing)} for r in files for f in r.findings]
    records += [{"type": "error", "path": p, "message": m} for p, m in errors]
    records += [{"type": "error", "path": r.display_path, "message": r.error} for r in files if r.error]
    if with_diffs:
        records += [{"type": "diff", "path": r.display_path, "diff": unified_diff(r)} for r in files if r.changed]
    return [json.dumps(record) for record in records]


def statistics(findings: Iterable[Finding]) -> list[dict]:
    """Findings counted per rule code, the most frequent first."""
    from codemod.rules.registry import REGISTRY

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


def _cell(text: object) -> str:
    return printable(str(text)).replace("|", "\\|")


def markdown_report(files: Iterable[FileResult], errors: list[tuple[str, str]], summary) -> str:
    """A Markdown summary of the run, to paste into a pull request."""
    files = list(files)
    findings = [f for r in files for f in r.findings if f.action is not Action.SKIP]
    owner = {id(f): r for r in files for f in r.findings}
    out = ["# Raw tensor attributes: buffers and parameters", "", summary.line(pending=not summary.writing), ""]
    if summary.rewrites_validated:
        out += [f"**{summary.rewrites_proven} of {summary.rewrites_validated} rewrites proven by running.**", ""]
    if findings:
        written_column = "Written" if summary.writing else "Would be written"
        out += ["## Rewrites", "",
                f"| Location | Attribute | Becomes | Rule | Verdict | Forward | Checks | {written_column} |",
                "|---|---|---|---|---|---|---|---|"]
        for f in findings:
            becomes = "nn.Parameter" if f.action is Action.PARAMETER else (
                "buffer" + ("" if f.persistent is None else f" (persistent={f.persistent})"))
            if f.validation is not None:
                verdict = f.validation.verdict_for(f.attribute).value
                checks = ", ".join(f.validation.checks_for(f.attribute)) or "-"
                forward = {"compared": "compared", "not used": "none reads it"}.get(
                    f.validation.forward_for(f.attribute) or "", "no")
            else:
                verdict, checks, forward = "not run", "-", "-"
            result = owner[id(f)]
            if f.held_back:
                written = "no: " + f.held_back
            elif not result.changed or result.error is not None:
                written = "no: " + (result.error or "the file is unchanged")
            else:
                written = "yes"
            out.append(f"| `{_cell(f.path)}:{f.line}` | `{_cell(f.class_name)}.{_cell(f.attribute)}` | {becomes} "
                       f"| {_cell(f.code or '-')} | {verdict} | {forward} | {_cell(checks)} | {_cell(written)} |")
        out.append("")
    classes: dict[tuple[str, str], Validation] = {}
    for f in findings:
        if f.validation is not None:
            classes.setdefault((f.path, f.class_name), f.validation)
    failed = [(key, v) for key, v in classes.items() if v.verdict in (Verdict.FAILED, Verdict.ERROR, Verdict.TIMEOUT)]
    if failed:
        out += ["## Failures", ""]
        for (path, cls), v in failed:
            out.append(f"- `{printable(path)}`: **{cls}** {v.verdict.value}")
            for line in (v.failures or [v.message]):
                out.append(f"  - {line}")
        out.append("")
    for verdict, title in ((Verdict.CHANGES_CHECKPOINT, "Changes the checkpoint format"),
                           (Verdict.CHECKED_WITHOUT_FORWARD, "Checked without forward")):
        some = [f for f in findings if f.validation is not None and f.validation.verdict_for(f.attribute) is verdict]
        if some:
            out += [f"## {title}", ""]
            out += [f"- `{f.path}:{f.line}` {f.class_name}.{f.attribute}: {f.validation.message_for(f.attribute)}"
                    for f in some]
            out.append("")
    unproven = [(f, f.validation.message_for(f.attribute)) for f in findings
                if f.validation is not None and f.validation.verdict_for(f.attribute) is Verdict.NOT_VALIDATED]
    if unproven:
        out += ["## Not validated", ""]
        for f, message in unproven:
            out.append(f"- `{printable(f.path)}:{f.line}` {f.class_name}.{f.attribute}: {message}")
        snippets = sorted({v.snippet for v in classes.values() if v.snippet})
        if snippets:
            out += ["", "Examples to add to `codemod_examples.py`:", "", "```python"] + snippets + ["```"]
        out.append("")
    notes = [(key, note) for key, v in classes.items() for note in compatibility_notes(v)]
    if notes:
        out += ["## Compatibility notes", ""]
        out += [f"- `{printable(path)}`: {cls}: {note}" for (path, cls), note in notes]
        out.append("")
    problems = list(errors) + [(r.display_path, r.error) for r in files if r.error]
    if problems:
        out += ["## Errors", ""] + [f"- `{printable(p)}`: {m}" for p, m in problems] + [""]
    return "\n".join(out)
