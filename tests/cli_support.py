"""A small project and ways to run the command line on it, shared by the command-line tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from codemod.cli import main

REPO_ROOT = Path(__file__).resolve().parents[1]

ENCODER = """\
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.proj = nn.Linear(size, size)
        self.mask = torch.ones(size)

    def forward(self, x):
        return self.proj(x) * self.mask
"""
ENCODER_REWRITTEN = ENCODER.replace(
    "self.mask = torch.ones(size)", 'self.register_buffer("mask", torch.ones(size), persistent=False)'
)

NOISY = """\
import torch
import torch.nn as nn


class Noisy(nn.Module):
    def __init__(self, dim=3):
        super().__init__()
        self.noise = torch.randn(dim)
        self.scale = torch.ones(dim, requires_grad=True)

    def forward(self, x):
        return x * self.scale + self.noise
"""
NOISY_REWRITTEN = NOISY.replace(
    "self.noise = torch.randn(dim)", 'self.register_buffer("noise", torch.randn(dim), persistent=False)'
).replace("self.scale = torch.ones(dim, requires_grad=True)", "self.scale = nn.Parameter(torch.ones(dim))")

PAIR = """\
import torch
from torch import nn


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = [torch.ones(2), torch.zeros(2)]
"""


def make_project(root: Path, write_tree, extra: dict | None = None) -> Path:
    """Two model files with rewrites (BUF101; BUF101 and BUF103), one with a report (BUF301)."""
    write_tree(
        root,
        {
            "pyproject.toml": '[project]\nname = "proj"\nversion = "0.1"\n',
            "models/__init__.py": "",
            "models/encoder.py": ENCODER,
            "models/noisy.py": NOISY,
            "models/pair.py": PAIR,
            **(extra or {}),
        },
    )
    return root


def invoke(*args: str, input: bytes | str | None = None):
    return CliRunner().invoke(main, ["run", *args], input=input, catch_exceptions=False)


def tool_env(**extra: str) -> dict[str, str]:
    """The environment for running this tree's `python -m codemod` in a subprocess: this tree
    first on PYTHONPATH, no colour variables, then ``extra``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.pop("FORCE_COLOR", None)
    env.pop("NO_COLOR", None)
    env.update(extra)
    return env


def subprocess_run(args: list[str], cwd: Path, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """`python -m codemod ARGS` with this tree importable and no colour variables unless given."""
    full = tool_env(**(env or {}))
    return subprocess.run([sys.executable, "-m", "codemod", *args], cwd=cwd, env=full, capture_output=True, timeout=120, **kwargs)


def python_files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*.py"))
        if ".codemod" not in p.relative_to(root).parts
    }
