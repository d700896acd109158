"""What an editor shows for one file: its findings, and the edits that apply or suppress them.

The language server (server.py) is a thin shell over this module, as the command line is over
runner.py, and this module goes through the very same run: the project's `[tool.codemod]`, the
whole-project index and the per-file result cache (`runner.run`), static only (validation is
never run: the editor never executes repository code).  So a file gives the same findings in
the editor as `codemod run --no-validate FILE`.

Positions here are 0-based lines and columns in characters; the server converts columns to
what the client counts (UTF-16 code units by default).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from codemod.config import find_project_root, load_config, load_style
from codemod.fileio import SourceError, read_source, source_lines
from codemod.ftypes import Action, FileAnalysis, Finding
from codemod.report import finding_text
from codemod.runner import RunOptions, run, run_source
from codemod.selection import RuleSelection, marker_codes


@dataclass(frozen=True)
class TextEdit:
    """Replace the text from (start_line, start_column) to (end_line, end_column) with `text`."""

    start_line: int
    start_column: int
    end_line: int
    end_column: int
    text: str


@dataclass
class Rewrite:
    """One class's rewrites, applied together (the class is the unit a rewrite is written in)."""

    class_name: str
    findings: list[Finding]
    edits: list[TextEdit]

    @property
    def statically_safe(self) -> bool:
        return all(f.statically_safe for f in self.findings)


@dataclass
class DocumentAnalysis:
    text: str
    findings: list[Finding] = field(default_factory=list)
    rewrites: dict[str, Rewrite] = field(default_factory=dict)  # class name -> its rewrites
    safe_edits: list[TextEdit] = field(default_factory=list)  # every statically safe rewrite of the file
    error: str | None = None  # the file could not be analysed (a syntax error, ...)


def run_options(root: Path) -> RunOptions:
    """The options of `codemod run --no-validate` in project `root`, from its [tool.codemod]."""
    config = load_config(root)
    formatter = config.get("formatter")
    defaults = RunOptions()  # the command line's defaults too
    return RunOptions(
        persistent=config.get("persistent", defaults.persistent),
        write=False,
        validate=False,  # an editor never runs the repository's code
        unsafe_fixes=config.get("unsafe_fixes", False),
        excludes=tuple(config.get("exclude", ())),
        jobs=1,
        use_cache=config.get("cache", True),
        root=root,
        prefilter=not config.get("parse_all", False),
        selection=RuleSelection(config.get("select"), tuple(config.get("ignore", ()))),
        style=load_style(root, formatter if formatter not in (None, "none") else None),
    )


def analyse_document(path: Path, text: str) -> DocumentAnalysis:
    """The findings of the file at `path` holding `text`, and the edits of its rewrites.

    When `text` is what the file holds on disk, this is `codemod run --no-validate path`
    (the result cache included); an unsaved buffer is analysed as `codemod run -` would.
    """
    path = Path(os.path.abspath(path))
    root = find_project_root([path])
    options = run_options(root)
    try:
        on_disk = read_source(path).text == text
    except (SourceError, OSError):
        on_disk = False
    report = run([path], options) if on_disk else run_source(text, path, str(path), options)
    analysis = DocumentAnalysis(text=text)
    if report.errors:
        analysis.error = report.errors[0][1]
    if not report.files:
        return analysis
    result = report.files[0]
    analysis.findings = list(result.findings)
    analysis.error = analysis.error or result.error
    if on_disk and result.original is None:
        result.original = text
    file_analysis = next((a for a in report.analyses if a.result is result), None)
    if file_analysis is not None and file_analysis.plan is not None and result.original == text:
        analysis.rewrites = _class_rewrites(file_analysis, options)
    if result.changed and result.error is None and result.original == text:
        analysis.safe_edits = text_edits(text, result.rewritten or text)
    return analysis


def _class_rewrites(file_analysis: FileAnalysis, options: RunOptions) -> dict[str, Rewrite]:
    from codemod.rewrite import apply_plan

    plan, original = file_analysis.plan, file_analysis.result.original
    assert plan is not None and original is not None
    rewrites = {}
    for class_plan in plan.classes:
        if not class_plan.changed:
            continue
        findings = [f for f in class_plan.findings if f.action is not Action.SKIP]
        try:
            rewritten = apply_plan(original, plan, only_classes=[class_plan.name], style=options.style)
        except Exception:  # a class whose rewrite fails to apply is offered no edit
            continue
        rewrites[class_plan.name] = Rewrite(class_plan.name, findings, text_edits(original, rewritten))
    return rewrites


def message(finding: Finding) -> str:
    """A diagnostic's message: the finding as the command line words it, without what only a
    run that writes says ("not written")."""
    return finding_text(dataclasses.replace(finding, held_back="", validation=None))


def rewrite_title(finding: Finding, rewrite: Rewrite) -> str:
    if finding.action is Action.PARAMETER:
        title = f"Make {finding.class_name}.{finding.attribute} an nn.Parameter"
    else:
        title = f"Register {finding.class_name}.{finding.attribute} as a buffer"
    others = len(rewrite.findings) - 1
    if others:
        title += f" (with {others} other rewrite{'s' if others > 1 else ''} of {rewrite.class_name})"
    if not rewrite.statically_safe:
        title += " (unsafe: not statically safe; `codemod run` validates it)"
    return title


def ignore_title(finding: Finding) -> str:
    if finding.action is Action.SKIP:
        return f"Silence {finding.code} for {finding.class_name}.{finding.attribute}: add `# codemod: ignore[{finding.code}]`"
    return f"Keep {finding.class_name}.{finding.attribute} as an attribute: add `# codemod: ignore[{finding.code}]`"


_MARKER_CODES = re.compile(r"(#.*?codemod:\s*ignore\[)([^\]]*)(\])")


def ignore_edit(text: str, finding: Finding) -> TextEdit:
    """The edit that suppresses `finding`'s code for its attribute.

    A `# codemod: ignore[...]` already on the statement's line, or alone on the line above,
    gets the code added; otherwise a comment line `# codemod: ignore[CODE]` goes above the
    statement, at its indentation (the one place a comment is always valid Python).
    """
    lines = source_lines(text, keepends=False)
    number = finding.line - 1
    for index in (number, number - 1):
        if not 0 <= index < len(lines):
            continue
        line = lines[index]
        if index == number - 1 and not line.lstrip().startswith("#"):
            continue
        found, codes = marker_codes(line)
        match = _MARKER_CODES.search(line)
        if found and codes is not None and match is not None:
            at = match.end(2)
            return TextEdit(index, at, index, at, f", {finding.code}" if match.group(2).strip() else finding.code)
    statement = lines[number] if number < len(lines) else ""
    indent = statement[: len(statement) - len(statement.lstrip())]
    return TextEdit(number, 0, number, 0, f"{indent}# codemod: ignore[{finding.code}]{_newline(text)}")


def _newline(text: str) -> str:
    """The file's own newline."""
    if "\r\n" in text:
        return "\r\n"
    return "\r" if "\r" in text and "\n" not in text else "\n"


def text_edits(before: str, after: str) -> list[TextEdit]:
    """Edits that turn `before` into `after`, one per changed run of lines."""
    old = source_lines(before, keepends=True)
    new = source_lines(after, keepends=True)
    edits = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        end_line, end_column = _line_start(old, i2)
        start_line, start_column = _line_start(old, i1)
        edits.append(TextEdit(start_line, start_column, end_line, end_column, "".join(new[j1:j2])))
    return edits


def _line_start(lines: list[str], index: int) -> tuple[int, int]:
    """Where line `index` starts; past the last line, the end of the text."""
    if index < len(lines) or not lines or lines[-1].endswith(("\n", "\r")):
        return index, 0
    return len(lines) - 1, len(lines[-1])


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """`text` with `edits` applied (they must not overlap), as a client applies them."""
    lines = source_lines(text, keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return offsets[min(line, len(lines))] + column

    out = text
    for edit in sorted(edits, key=lambda e: (e.start_line, e.start_column), reverse=True):
        start, end = offset(edit.start_line, edit.start_column), offset(edit.end_line, edit.end_column)
        out = out[:start] + edit.text + out[end:]
    return out
