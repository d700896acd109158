"""The package as users get it: a wheel built from a clean checkout, installed into a fresh
virtual environment (its own site-packages only), without torch, passes a smoke run.

Dependencies are installed by pip from its configured index; the build uses the
setuptools of the test environment (no download of a build environment).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "torch-buffer-codemod"

MODEL = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.idx = torch.arange(n, dtype=torch.long)

    def forward(self, x):
        return x + self.idx
"""


def _run(cmd: list, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, env=env, **kwargs)


def _ok(completed: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert completed.returncode == 0, f"{completed.args}\n{completed.stdout}\n{completed.stderr}"
    return completed


@pytest.fixture(scope="module")
def clean_checkout(tmp_path_factory) -> Path:
    """The committed tree (HEAD), as a clean clone would have it."""
    if _run(["git", "-C", REPO_ROOT, "rev-parse", "--is-inside-work-tree"]).returncode != 0:
        pytest.skip("not a git checkout: there is no committed tree to build from")
    base = tmp_path_factory.mktemp("checkout")
    archive = base / "head.tar"
    _ok(_run(["git", "-C", REPO_ROOT, "archive", "--format=tar", "-o", archive, "HEAD"]))
    source = base / "src"
    with tarfile.open(archive) as tar:
        tar.extractall(source, filter="data")
    return source


@pytest.fixture(scope="module")
def wheel(clean_checkout: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _ok(_run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", out, clean_checkout]))
    [built] = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def fresh_venv(wheel: Path, tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("venv") / "venv"
    _ok(_run([sys.executable, "-m", "venv", venv]))
    config = (venv / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in config
    _ok(_run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel]))
    return venv


def test_wheel_metadata_name_and_dependencies(wheel: Path) -> None:
    assert wheel.name.startswith("torch_buffer_codemod-")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        [metadata_name] = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(zf.read(metadata_name).decode())
        entry_points = zf.read(metadata_name.replace("METADATA", "entry_points.txt")).decode()
    assert metadata["Name"] == DISTRIBUTION
    requires = metadata.get_all("Requires-Dist")
    torch_requirements = [r for r in requires if r.startswith("torch")]
    assert torch_requirements and all("extra ==" in r for r in torch_requirements), requires
    assert any(r.startswith("libcst") and "extra" not in r for r in requires)
    assert "validate" in metadata.get_all("Provides-Extra")
    assert "\ncodemod = codemod." in "\n" + entry_points
    # The import package, whole; nothing of the repository's tests or golden cases.
    assert "codemod/__main__.py" in names and "codemod/rules/base.py" in names
    assert "codemod/validate/worker.py" in names and "codemod/tools/generate_torch_table.py" in names
    assert not any(n.startswith(("tests/", "golden/", "benchmarks/", "examples/")) for n in names)


def test_fresh_venv_without_torch_runs_the_static_tool(fresh_venv: Path, tmp_path: Path) -> None:
    python, codemod = fresh_venv / "bin" / "python", fresh_venv / "bin" / "codemod"
    assert _run([python, "-c", "import torch"]).returncode != 0, "torch must not be installed by the static tool"
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (project / "model.py").write_text(MODEL)

    version = _ok(_run([codemod, "--version"]))
    assert "0.1.0" in version.stdout
    dry = _ok(_run([codemod, "run", "--no-validate", "--dry-run", "."], cwd=project))
    assert '+        self.register_buffer("idx", torch.arange(n, dtype=torch.long), persistent=False)' in dry.stdout
    assert "model.py:8:9: Model.idx -> register_buffer" in dry.stdout
    check = _run([python, "-m", "codemod", "run", "--no-validate", "--check", "."], cwd=project)
    assert check.returncode == 1, check.stderr
    # Asking for validation explicitly where torch is missing: a usage error naming the extra,
    # before anything is written.
    validated = _run([codemod, "run", "--validate", "."], cwd=project)
    assert validated.returncode == 2
    assert "validation needs torch" in validated.stderr and "[validate]" in validated.stderr
    assert (project / "model.py").read_text() == MODEL
    # A plain run says so once and goes on statically, writing the statically safe rewrite.
    plain = _ok(_run([codemod, "run", "."], cwd=project))
    assert plain.stderr.count("validation needs torch") == 1 and "`validate` extra" in plain.stderr, plain.stderr
    assert 'self.register_buffer("idx", torch.arange(n, dtype=torch.long), persistent=False)' in (project / "model.py").read_text()
    _ok(_run([codemod, "run", "--no-validate", "--check", "."], cwd=project))
    # The rule explainer needs nothing more.
    explained = _ok(_run([codemod, "rule", "BUF101"], cwd=project))
    assert explained.stdout.startswith("BUF101 non-persistent-buffer") and "ignore[BUF101]" in explained.stdout
    # The editor server needs its extra, and says so.
    server = _run([codemod, "server"], cwd=project)
    assert server.returncode == 2 and "the `server` extra" in server.stderr
    # The installed tool is the one that ran, not the checkout.
    where = _ok(_run([python, "-c", "import codemod; print(codemod.__file__)"], cwd=tmp_path))
    assert str(fresh_venv) in where.stdout


def test_readme_server_install_then_a_real_lsp_session(fresh_venv: Path, clean_checkout: Path, tmp_path: Path) -> None:
    """The README's `pip install ".[server]"`, as written, from a clean checkout; then the installed
    `codemod server` in a real LSP session (pytest-lsp's client): initialize, didOpen, diagnostics."""
    import asyncio
    import re

    from lsprotocol import types
    from pytest_lsp import ClientServerConfig, client_capabilities

    readme = (REPO_ROOT / "README.md").read_text()
    [command] = re.findall(r"^pip install \"\.\[server\]\"$", readme, flags=re.M)
    pip = [str(fresh_venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *command.split()[2:]]
    _ok(_run([arg.strip('"') for arg in pip], cwd=clean_checkout))
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (project / "model.py").write_text(MODEL)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}

    async def session() -> list:
        client = await ClientServerConfig(server_command=[str(fresh_venv / "bin" / "codemod"), "server"],
                                          server_env=env).start()
        try:
            await client.initialize_session(types.InitializeParams(
                capabilities=client_capabilities("neovim"), root_uri=project.as_uri()))
            uri = (project / "model.py").as_uri()
            client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=MODEL)))
            await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 120)
            await client.shutdown_session()
            return list(client.diagnostics[uri])
        finally:
            await client.stop()

    [diagnostic] = asyncio.run(session())
    assert diagnostic.code == "BUF101" and diagnostic.message.startswith("Model.idx -> register_buffer")
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (7, 8)
