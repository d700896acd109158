"""Each attack is built in a temporary repository next to an `outside` directory that
nothing may touch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

MODEL = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.mask = torch.ones(3)

    def forward(self, x):
        return x * self.mask
"""
REWRITTEN_LINE = 'self.register_buffer("mask", torch.ones(3), persistent=False)'


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'victim'\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text(MODEL)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "victim.py").write_text(MODEL)
    (directory / "keep.pickle").write_bytes(b"not ours")
    (directory / "analysis-0123456789abcdef01234567.json").write_text("{}")
    return directory


def snapshot(directory: Path) -> dict[str, bytes | str]:
    """Every entry under `directory` with its content (links by target): to show nothing changed."""
    found: dict[str, bytes | str] = {}
    for path in sorted(directory.rglob("*")):
        key = str(path.relative_to(directory))
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_file():
            found[key] = path.read_bytes()
        else:
            found[key] = "dir"
    return found


def codemod_process(args: list[str], cwd: Path, env_extra: dict[str, str] | None = None, **kwargs) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT)
    env.update(env_extra or {})
    return subprocess.Popen([sys.executable, "-m", "codemod", *args], cwd=cwd, env=env, **kwargs)


def run_codemod(args: list[str], cwd: Path, timeout: float = 120, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    process = codemod_process(args, cwd, env_extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = process.communicate(timeout=timeout)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
