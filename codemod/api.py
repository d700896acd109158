"""The Python API that the command line is a thin shell over.

    >>> from codemod.api import transform_source
    >>> result = transform_source(code)
    >>> result.code, result.findings
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from codemod.analysis import plan_module, scan_text
from codemod.ftypes import (  # AnalysisOptions and FileAnalysis are part of this API too
    Action,
    AnalysisOptions,
    Style,
    ClassRewrite,
    FileAnalysis,
    FileResult,
    Finding,
    PersistentPolicy,
    RewriteError,
    TransformResult,
)
from codemod.repo_index import RepoIndex
from codemod.selection import RuleSelection, check_markers


def transform_source(
    source: str,
    *,
    path: str | Path = "<string>",
    persistent: PersistentPolicy = "never",
    index: RepoIndex | None = None,
    selection: RuleSelection | None = None,
    style: Style | None = None,
) -> TransformResult:
    """Rewrite one module's source text; other repository files come from `index` when given.

    Rewritten statements are laid out to `style` (default: 88 columns, the file's quotes).

    Raises SyntaxError when the source does not parse.
    """
    path = Path(path)
    if index is None:
        index = RepoIndex(lazy=False)
    if not index.has_file(path):
        index.add_file(path, text=source, name=path.stem if path.suffix == ".py" else "__main__")
    analysis = analyse_text(
        index, path, source, str(path), AnalysisOptions(persistent, selection or RuleSelection(), style or Style())
    )
    if analysis.result.error:
        raise RewriteError(analysis.result.error)
    return TransformResult(code=analysis.result.rewritten or source, findings=analysis.result.findings)


# Python 2's print statement and `except E, e:` at the start of a line.
_PYTHON2 = re.compile(r"^[ \t]*(?:print(?:[ \t]*>>|[ \t]+(?![\s(=.,)\]}]))|except\b[^:\n#]*,[ \t]*\w+[ \t]*:)", re.MULTILINE)


def analyse_text(
    index: RepoIndex,
    path: Path,
    text: str,
    display_path: str,
    options: AnalysisOptions,
) -> FileAnalysis:
    """Plan and apply the rewrites of one file.  Raises SyntaxError when it does not parse."""
    result = FileResult(path=path, display_path=display_path, original=text)
    marker_error = check_markers(text)
    if marker_error is not None:
        # A mistyped suppression must not let through the rewrite it was meant to stop.
        result.error = marker_error
        return FileAnalysis(result)
    planned = _plan_text(index, path, text, display_path, options)
    if planned is None:
        return FileAnalysis(result)  # nothing here can hold a finding: not even parsed
    symbols, plan = planned
    result.findings = plan.findings
    if plan.changed:
        from codemod.rewrite import apply_plan  # libcst: imported only when something changes

        try:
            result.rewritten = apply_plan(text, plan, style=options.style)
        except RewriteError as exc:
            result.error = str(exc)
            result.rewritten = None
            # The findings stand, but nothing of this file is written.
            for finding in result.findings:
                if finding.action is not Action.SKIP:
                    finding.action = Action.SKIP
                    finding.reason = f"not rewritten: {exc}"
                    finding.persistent = None
    for class_plan in plan.classes:
        if class_plan.changed and result.rewritten is not None:
            result.classes.append(
                ClassRewrite(
                    path=path,
                    module=symbols.name,
                    class_name=class_plan.name,
                    findings=[f for f in class_plan.findings if f.action is not Action.SKIP],
                    statements=tuple((e.attr, e.line, max(e.line, e.end[0])) for e in class_plan.edits),
                )
            )
    return FileAnalysis(result, plan, symbols.name)


def findings_of_text(index: RepoIndex, path: Path, text: str, display_path: str,
                     options: AnalysisOptions) -> list[Finding]:
    """What the analysis finds in one file's text, without rewriting anything (a tolerant
    reading of a file that does not parse: tolerant.py).  Raises SyntaxError."""
    planned = _plan_text(index, path, text, display_path, options)
    return planned[1].findings if planned is not None else []


def _plan_text(index: RepoIndex, path: Path, text: str, display_path: str, options: AnalysisOptions):
    """(symbols, plan) of one file's text; None where the pre-filter sees nothing that can
    hold a finding.  Raises SyntaxError when the text does not parse."""
    holders = None
    segments = None
    if index.lazy:
        scan = scan_text(index, path, text)
        if scan.nothing_to_find:
            if _PYTHON2.search(text):
                # a file in Python 2 (`print x`, `except E, e:`) holds no finding the pre-filter
                # sees, but its syntax error is still reported: parse it (SyntaxError goes up)
                ast.parse(text, filename=str(path))
            return None
        holders, segments = scan.holders, scan.segments
    symbols = index.load(path, text, segments)
    return symbols, plan_module(index, symbols, display_path, options.persistent, holders, options.selection)


def rewrite_without(analysis: FileAnalysis, rejected_classes: set[str], style: Style | None = None) -> str | None:
    """The file's text with every rewrite except those of the rejected classes."""
    assert analysis.plan is not None and analysis.result.original is not None
    from codemod.rewrite import apply_plan

    keep = [c.name for c in analysis.plan.classes if c.changed and c.name not in rejected_classes]
    if not keep:
        return None
    code = apply_plan(analysis.result.original, analysis.plan, only_classes=keep, style=style)
    return code if code != analysis.result.original else None
