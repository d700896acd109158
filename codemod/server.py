"""`codemod server`: a Language Server Protocol server (pygls + lsprotocol) over stdio.

Static only: it never runs the repository's code (no validation, no formatter).  What it
shows comes from editor.py, which goes through the command line's own run (the project's
`[tool.codemod]`, the whole-project index, the result cache), so a file gives the same
findings in the editor as `codemod run --no-validate FILE`.

- diagnostics when a file is opened and saved (cleared when it is closed), each with its
  rule code and a link to the rule's documentation;
- code actions for each finding: its class's rewrite ("Register Encoder.mask as a buffer";
  a class is rewritten whole), and "Keep ... as an attribute: add `# codemod: ignore[CODE]`";
- a source action (`source.fixAll.codemod`) with the file's statically safe rewrites, and the
  command `codemod.applySafeFixes` (argument: the document's URI) that sends them to the
  client as `workspace/applyEdit`, for a key binding.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from codemod import __version__, editor
from codemod.explain import rule_url
from codemod.ftypes import Action, Finding

SOURCE = "codemod"
APPLY_SAFE_FIXES = "codemod.applySafeFixes"
FIX_ALL = types.CodeActionKind.SourceFixAll + ".codemod"

server = LanguageServer("codemod", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
# One analysis at a time: a run uses process-wide state (the analysis worker, the collector).
_lock = threading.Lock()
_analyses: dict[str, tuple[str, editor.DocumentAnalysis]] = {}  # uri -> (text analysed, analysis)


def main() -> None:
    server.start_io()


# -- analysis ----------------------------------------------------------------------------------


def _analyse_now(uri: str, text: str, fresh: bool) -> editor.DocumentAnalysis | None:
    path = to_fs_path(uri)
    if path is None:
        return None  # not a file (an untitled buffer): nothing to index it with
    with _lock:
        cached = _analyses.get(uri)
        if cached is not None and cached[0] == text and not fresh:
            return cached[1]  # code actions on the text the diagnostics came from
        analysis = editor.analyse_document(Path(path), text)
        _analyses[uri] = (text, analysis)
        return analysis


async def _analyse(uri: str, fresh: bool = False) -> tuple[list[str], editor.DocumentAnalysis | None]:
    """The document's analysis; `fresh`: run again even for the same text (other files of the
    project may have changed since)."""
    document = server.workspace.get_text_document(uri)
    text = document.source
    analysis = await asyncio.to_thread(_analyse_now, uri, text, fresh)
    return document.lines, analysis


async def _publish(uri: str) -> None:
    try:
        lines, analysis = await _analyse(uri, fresh=True)
    except Exception as exc:  # a bug must not take the editor's server down
        server.window_log_message(types.LogMessageParams(types.MessageType.Error, f"codemod: {uri}: {exc!r}"))
        return
    diagnostics = [] if analysis is None else [_diagnostic(f, lines) for f in analysis.findings]
    if analysis is not None and analysis.error:
        diagnostics.append(types.Diagnostic(range=_range(0, 0, 0, 0, lines), message=analysis.error, source=SOURCE,
                                            severity=types.DiagnosticSeverity.Error))
    server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))


# -- positions: the server counts characters, the client UTF-16 code units (the default) ---------


def _column(lines: list[str], line: int, column: int) -> int:
    if not 0 <= line < len(lines):
        return column
    return len(lines[line][:column].encode("utf-16-le")) // 2


def _position(line: int, column: int, lines: list[str]) -> types.Position:
    return types.Position(line=line, character=_column(lines, line, column))


def _range(start_line: int, start_column: int, end_line: int, end_column: int, lines: list[str]) -> types.Range:
    return types.Range(start=_position(start_line, start_column, lines), end=_position(end_line, end_column, lines))


def _finding_range(finding: Finding, lines: list[str]) -> types.Range:
    line = finding.line - 1
    text = lines[line].rstrip("\r\n") if 0 <= line < len(lines) else ""
    return _range(line, finding.column - 1, line, max(finding.column - 1, len(text.rstrip())), lines)


def _diagnostic(finding: Finding, lines: list[str]) -> types.Diagnostic:
    if finding.action is not Action.SKIP or finding.code.startswith("BUF3"):
        severity = types.DiagnosticSeverity.Warning  # a rewrite, or a raw tensor no rewrite fits
    else:
        severity = types.DiagnosticSeverity.Information  # left alone on purpose (a safety skip)
    return types.Diagnostic(
        range=_finding_range(finding, lines),
        message=editor.message(finding),
        severity=severity,
        code=finding.code or None,
        code_description=types.CodeDescription(href=rule_url(finding.code)) if finding.code else None,
        source=SOURCE,
        data={"class": finding.class_name, "attribute": finding.attribute, "statically_safe": finding.statically_safe},
    )


def _edit(uri: str, edits: list[editor.TextEdit], lines: list[str], version: int | None) -> types.WorkspaceEdit:
    text_edits = [
        types.TextEdit(range=_range(e.start_line, e.start_column, e.end_line, e.end_column, lines), new_text=e.text)
        for e in edits
    ]
    document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=text_edits)])


# -- the protocol ------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(params: types.DidOpenTextDocumentParams) -> None:
    await _publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(params: types.DidSaveTextDocumentParams) -> None:
    await _publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(params: types.DidCloseTextDocumentParams) -> None:
    _analyses.pop(params.text_document.uri, None)
    server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False),
)
async def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    lines, analysis = await _analyse(uri)
    if analysis is None:
        return []
    version = server.workspace.get_text_document(uri).version
    wanted = params.context.only
    actions: list[types.CodeAction] = []
    first, last = params.range.start.line, params.range.end.line
    if wanted is None or any(kind.startswith(types.CodeActionKind.QuickFix) for kind in wanted):
        for finding in analysis.findings:
            if not first <= finding.line - 1 <= last:
                continue
            diagnostic = [_diagnostic(finding, lines)]
            rewrite = analysis.rewrites.get(finding.class_name)
            if finding.action is not Action.SKIP and rewrite is not None and rewrite.edits:
                actions.append(types.CodeAction(
                    title=editor.rewrite_title(finding, rewrite),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diagnostic,
                    is_preferred=rewrite.statically_safe,
                    edit=_edit(uri, rewrite.edits, lines, version),
                ))
            if finding.code:
                actions.append(types.CodeAction(
                    title=editor.ignore_title(finding),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diagnostic,
                    edit=_edit(uri, [editor.ignore_edit(analysis.text, finding)], lines, version),
                ))
    if analysis.safe_edits and (wanted is None or any(FIX_ALL.startswith(kind) for kind in wanted)):
        # With the edit itself, not a command: some clients read any action holding a
        # command as a bare Command.  The command APPLY_SAFE_FIXES does the same on request.
        actions.append(types.CodeAction(
            title="codemod: apply the statically safe rewrites",
            kind=FIX_ALL,
            edit=_edit(uri, analysis.safe_edits, lines, version),
        ))
    return actions


@server.command(APPLY_SAFE_FIXES)
async def apply_safe_fixes(ls: LanguageServer, *arguments) -> dict:
    """Send the document's statically safe rewrites to the client as a workspace/applyEdit."""
    if not arguments:
        return {"applied": False, "reason": "no document given"}
    uri = arguments[0]["uri"] if isinstance(arguments[0], dict) else str(arguments[0])
    lines, analysis = await _analyse(uri)
    if analysis is None or not analysis.safe_edits:
        return {"applied": False, "reason": "no statically safe rewrite"}
    version = ls.workspace.get_text_document(uri).version
    result = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
        edit=_edit(uri, analysis.safe_edits, lines, version), label="codemod: statically safe rewrites"))
    return {"applied": bool(result.applied), "reason": result.failure_reason}
