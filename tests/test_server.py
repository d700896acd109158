"""`codemod server` in a real LSP session (pytest-lsp's client over stdio): initialize, didOpen,
publishDiagnostics, codeAction, executeCommand and the server's workspace/applyEdit, didSave,
didClose.  The server gives a file the findings `codemod run --no-validate FILE` gives, through
the same project index and cache, and never runs the repository's code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from cli_support import ENCODER, ENCODER_REWRITTEN, NOISY, tool_env
from codemod import editor
from codemod.explain import rule_url

INDICES = """\
import torch
from torch import nn


class Indices(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.idx = torch.arange(n, dtype=torch.long)

    def forward(self, x):
        return x[..., self.idx]
"""
INDICES_REWRITTEN = INDICES.replace(
    "self.idx = torch.arange(n, dtype=torch.long)", 'self.register_buffer("idx", torch.arange(n, dtype=torch.long), persistent=False)'
)
# Only the whole-project index knows that causal_mask (another file) returns a tensor.
HELPERS = """\
import torch


def causal_mask(n):
    return torch.ones(n, n).tril()
"""
ATTENTION = """\
from torch import nn

from models.helpers import causal_mask

open(__file__ + ".ran", "w").close()  # if this ever runs, the server ran repository code


class Attention(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.mask = causal_mask(n)  # a comment stays
"""
PAIR = """\
import torch
from torch import nn


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = [torch.ones(2), torch.zeros(2)]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    files = {
        "pyproject.toml": '[project]\nname = "proj"\nversion = "0.1"\n',
        "models/__init__.py": "",
        "models/encoder.py": ENCODER,
        "models/noisy.py": NOISY,
        "models/indices.py": INDICES,
        "models/helpers.py": HELPERS,
        "models/attention.py": ATTENTION,
        "models/pair.py": PAIR,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


CACHE = Path(os.environ["CODEMOD_CACHE_DIR"]) / "server-tests"


def _server_env() -> dict[str, str]:
    return tool_env(CODEMOD_CACHE_DIR=str(CACHE))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "codemod", "server"],
                                              server_env=_server_env()))
async def client(lsp_client: LanguageClient, project: Path):
    lsp_client.applied_edits = []

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        lsp_client.applied_edits.append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
        root_uri=project.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="proj")],
    ))
    yield
    await lsp_client.shutdown_session()


def _uri(path: Path) -> str:
    return path.as_uri()


async def _open(client: LanguageClient, path: Path, text: str | None = None) -> list[types.Diagnostic]:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=_uri(path), language_id="python", version=1, text=path.read_text() if text is None else text)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return client.diagnostics[_uri(path)]


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codemod", "run", *args], cwd=project, env=_server_env(),
                          capture_output=True, text=True, timeout=120)


def _apply(text: str, edit: types.WorkspaceEdit) -> str:
    """What a client does with a workspace edit (ASCII texts: UTF-16 columns are characters)."""
    [change] = edit.document_changes
    return editor.apply_edits(text, [
        editor.TextEdit(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character, e.new_text)
        for e in change.edits
    ])


@pytest.mark.asyncio
async def test_diagnostics_on_open_are_the_command_lines_findings(client: LanguageClient, project: Path):
    for name in ("encoder.py", "noisy.py", "attention.py", "pair.py"):
        path = project / "models" / name
        diagnostics = await _open(client, path)
        # `codemod run --no-validate FILE`, with --unsafe-fixes so that no line says "not written"
        completed = _cli(project, "--no-validate", "--unsafe-fixes", "--check", f"models/{name}")
        expected = [line.split(": ", 1)[1] for line in completed.stdout.splitlines() if line.startswith(f"models/{name}:")]
        located = [line.split(": ", 1)[0] for line in completed.stdout.splitlines() if line.startswith(f"models/{name}:")]
        assert [d.message for d in diagnostics] == expected, name
        assert [f"models/{name}:{d.range.start.line + 1}:{d.range.start.character + 1}" for d in diagnostics] == located
        codes = json.loads(_cli(project, "--no-validate", "--check", "--format", "json", f"models/{name}").stdout)
        assert [d.code for d in diagnostics] == [f["code"] for f in codes["findings"]]
        for diagnostic in diagnostics:
            assert diagnostic.source == "codemod"
            assert diagnostic.code_description.href == rule_url(diagnostic.code)
    # found only through the other file of the project (the whole-project index)
    attention = client.diagnostics[_uri(project / "models" / "attention.py")]
    assert [d.message.split(" ->")[0] for d in attention] == ["Attention.mask"]
    # a safety skip or report is shown too, as the command line shows it
    [pair] = client.diagnostics[_uri(project / "models" / "pair.py")]
    assert pair.code == "BUF301" and pair.severity == types.DiagnosticSeverity.Warning
    # static only: the repository's code never ran
    assert not list(project.rglob("*.ran"))


@pytest.mark.asyncio
async def test_the_server_shares_the_command_lines_cache(client: LanguageClient, project: Path):
    from codemod.cache import project_directory

    _cli(project, "--no-validate", "--check", ".")
    [cache_file] = project_directory(CACHE, project).glob("analysis-*.json")
    new = project / "models" / "extra.py"  # a file with nothing to rewrite (those are the ones cached)
    new.write_text(PAIR.replace("class Pair", "class Extra"))
    await _open(client, new)
    entries = json.loads(cache_file.read_text())["entries"]  # the same file, now holding the new one
    assert str(new.resolve()) in entries or str(new) in entries


async def _actions(client: LanguageClient, path: Path, line: int, only=None) -> list[types.CodeAction]:
    diagnostics = client.diagnostics.get(_uri(path), [])
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=_uri(path)),
        range=types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)),
        context=types.CodeActionContext(diagnostics=[d for d in diagnostics if d.range.start.line == line], only=only),
    ))


@pytest.mark.asyncio
async def test_code_actions_register_the_buffer_or_keep_the_attribute(client: LanguageClient, project: Path):
    path = project / "models" / "encoder.py"
    [diagnostic] = await _open(client, path)
    actions = await _actions(client, path, diagnostic.range.start.line)
    assert all(a.kind == types.CodeActionKind.QuickFix for a in actions)  # no safe rewrite to apply at once
    titles = [a.title for a in actions]
    assert titles == [
        "Register Encoder.mask as a buffer (unsafe: not statically safe; `codemod run` validates it)",
        "Keep Encoder.mask as an attribute: add `# codemod: ignore[BUF101]`",
    ]
    register, keep = actions
    assert register.kind == types.CodeActionKind.QuickFix and not register.is_preferred  # a float buffer
    assert _apply(ENCODER, register.edit) == ENCODER_REWRITTEN
    kept = _apply(ENCODER, keep.edit)
    assert kept == ENCODER.replace("        self.mask = torch.ones(size)",
                                   "        # codemod: ignore[BUF101]\n        self.mask = torch.ones(size)")
    path.write_text(kept)  # saved: the finding is gone, for the command line as for the editor
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=_uri(path), version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=kept)]))
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=_uri(path))))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert not client.diagnostics[_uri(path)]
    assert "Encoder.mask" not in _cli(project, "--no-validate", "--check", "models/encoder.py").stdout


@pytest.mark.asyncio
async def test_a_class_is_rewritten_whole_and_an_existing_marker_gets_the_code(client: LanguageClient, project: Path):
    path = project / "models" / "noisy.py"
    diagnostics = await _open(client, path)
    actions = await _actions(client, path, diagnostics[0].range.start.line)
    assert actions[0].title == ("Register Noisy.noise as a buffer (with 1 other rewrite of Noisy) "
                                "(unsafe: not statically safe; `codemod run` validates it)")
    rewritten = _apply(NOISY, actions[0].edit)
    assert 'self.register_buffer("noise", torch.randn(dim), persistent=False)' in rewritten
    assert "nn.Parameter(torch.ones(dim))" in rewritten
    marked = NOISY.replace("self.noise = torch.randn(dim)", "self.noise = torch.randn(dim)  # codemod: ignore[BUF3]")
    finding = next(f for f in editor.analyse_document(path, marked).findings if f.attribute == "noise")
    edit = editor.ignore_edit(marked, finding)
    assert editor.apply_edits(marked, [edit]).count(f"# codemod: ignore[BUF3, {finding.code}]") == 1


@pytest.mark.asyncio
async def test_execute_command_sends_the_statically_safe_rewrites_as_apply_edit(client: LanguageClient, project: Path):
    path = project / "models" / "indices.py"
    [diagnostic] = await _open(client, path)
    [register, _keep, offered_too] = await _actions(client, path, diagnostic.range.start.line)
    assert offered_too.kind == "source.fixAll.codemod"  # when the client asks for every kind
    assert register.title == "Register Indices.idx as a buffer" and register.is_preferred  # statically safe
    [fix_all] = await _actions(client, path, 0, only=[types.CodeActionKind.SourceFixAll])
    assert fix_all.kind == "source.fixAll.codemod" and _apply(INDICES, fix_all.edit) == INDICES_REWRITTEN
    # the command does the same through the client: workspace/executeCommand, then the
    # server's workspace/applyEdit
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="codemod.applySafeFixes", arguments=[_uri(path)]))
    assert result["applied"] is True
    [edit] = client.applied_edits
    assert _apply(INDICES, edit) == INDICES_REWRITTEN
    # a file whose rewrites are all unsafe offers no source action: nothing is written unvalidated
    encoder = project / "models" / "encoder.py"
    await _open(client, encoder)
    assert not await _actions(client, encoder, 0, only=[types.CodeActionKind.SourceFixAll])


@pytest.mark.asyncio
async def test_an_unsaved_buffer_is_analysed_and_closing_clears(client: LanguageClient, project: Path):
    path = project / "models" / "indices.py"
    unsaved = INDICES + "\n\nclass More(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.t = torch.ones(2)\n"
    diagnostics = await _open(client, path, unsaved)
    assert [d.message.split(" ->")[0] for d in diagnostics] == ["Indices.idx", "More.t"]
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=_uri(path))))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert not client.diagnostics[_uri(path)]
    broken = await _open(client, project / "models" / "pair.py", PAIR.replace("torch.zeros(2)]", "torch.zeros(2)"))
    assert [(d.severity, d.message) for d in broken] == [
        (types.DiagnosticSeverity.Error, "syntax error: '[' was never closed (line 8)")]
