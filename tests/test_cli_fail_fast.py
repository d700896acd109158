"""Fail fast: an invalid option or configuration value is a usage error (exit 2) before any work.

"Before any work" is checked on a repository with a pending rewrite, run without --dry-run:
its file keeps its bytes and no cache is written.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemod.cli import main
from codemod.validate import preflight

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


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "model.py").write_text(MODEL)
    (root / "examples.py").write_text("")
    monkeypatch.setenv("CODEMOD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(root)
    return root


def invoke(args: list[str]):
    return CliRunner().invoke(main, ["run", *args], catch_exceptions=False)


def assert_usage_error(repo: Path, result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    for word in words:
        assert word in result.output, result.output
    assert (repo / "model.py").read_text() == MODEL, "the file was rewritten"
    cache = repo.parent / "cache"
    assert not (cache.exists() and any(cache.iterdir())), "work was done (a cache was written)"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--device", "gpu", "."], ["--device", "must be auto, cpu, meta, cuda or cuda:N", "'gpu'"]),
        (["--device", "cuda:one", "."], ["--device", "'cuda:one'"]),
        (["--device", "", "."], ["--device"]),
        (["--examples", "missing.py", "."], ["--examples", "missing.py", "does not exist"]),
        (["--examples", ".", "."], ["--examples"]),
        (["--timeout", "nan", "."], ["--timeout", "must be a number > 0", "nan"]),
        (["--timeout", "inf", "."], ["--timeout", "inf"]),
        (["--timeout", "-inf", "."], ["--timeout"]),
        (["--timeout", "-1", "."], ["--timeout"]),
        (["--timeout", "0", "."], ["--timeout"]),
        (["--timeout", "soon", "."], ["--timeout"]),
        (["--jobs", "0", "."], ["--jobs"]),
        (["--persistent", "sometimes", "."], ["--persistent"]),
        ([""], ["PATHS", "empty path"]),
        (["model.py", ""], ["PATHS", "empty path"]),
    ],
)
def test_invalid_option_is_a_usage_error(repo: Path, args: list[str], words: list[str]) -> None:
    assert_usage_error(repo, invoke(args), *words)


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ('device = "gpu"', ["pyproject.toml", "device", "'gpu'"]),
        ("timeout = nan", ["pyproject.toml", "timeout"]),
        ("timeout = inf", ["pyproject.toml", "timeout"]),
        ("timeout = -3", ["pyproject.toml", "timeout"]),
        ("jobs = 0", ["pyproject.toml", "jobs"]),
        ('persistent = "sometimes"', ["pyproject.toml", "persistent"]),
        ('examples = "missing.py"', ["missing.py", "does not exist"]),
        ('examples = ""', ["pyproject.toml", "examples"]),
        ('quiet = "yes"', ["pyproject.toml", "quiet"]),
        ("check = 1", ["pyproject.toml", "check"]),
        ("devise = \"cpu\"", ["pyproject.toml", "unknown key", "device"]),
        ("exclude = \"tests/\"", ["pyproject.toml", "exclude"]),
    ],
)
def test_invalid_config_value_is_a_usage_error(repo: Path, table: str, words: list[str]) -> None:
    (repo / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.codemod]\n{table}\n")
    assert_usage_error(repo, invoke(["."]), *words)


def test_invalid_config_value_fails_even_when_the_flag_would_override_it(repo: Path) -> None:
    """A broken configuration is reported, not silently shadowed."""
    (repo / "pyproject.toml").write_text('[tool.codemod]\ndevice = "gpu"\n')
    assert_usage_error(repo, invoke(["--device", "cpu", "."]), "device")


def test_valid_values_are_accepted(repo: Path) -> None:
    result = invoke(["--no-validate", "--unsafe-fixes", "--dry-run", "--device", "cuda:1", "--timeout", "0.5", "--examples", "examples.py", "."])
    assert result.exit_code == 0, result.output
    assert "Model.idx -> register_buffer" in result.output


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:7"])
def test_cuda_device_that_is_not_there_is_a_usage_error(repo: Path, device: str) -> None:
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    import torch

    if torch.cuda.is_available() and int(device.partition(":")[2] or 0) < torch.cuda.device_count():
        pytest.skip("this CUDA device exists here")
    assert_usage_error(repo, invoke(["--device", device, "."]), f"--device {device}")


FLOAT = MODEL.replace("        self.idx = torch.arange(n, dtype=torch.long)\n", "        self.idx = torch.arange(n, dtype=torch.long)\n        self.scale = torch.ones(n)\n")


def _without_torch(monkeypatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))


def test_without_torch_a_run_says_so_once_and_goes_on_statically(repo: Path, monkeypatch) -> None:
    # The static-only install: `codemod run .` is no usage error; it says once that validation
    # needs the `validate` extra and writes the statically safe rewrites only.
    _without_torch(monkeypatch)
    (repo / "other.py").write_text(FLOAT.replace("class Model", "class Other"))
    result = invoke(["."])
    assert result.exit_code == 1, result.output  # a rewrite is held back: still pending
    assert result.stderr.count("validation needs torch") == 1 and "[validate]" in result.stderr
    assert "--unsafe-fixes" in result.stderr
    assert 'self.register_buffer("idx", torch.arange(n, dtype=torch.long), persistent=False)' in (repo / "model.py").read_text()
    assert (repo / "other.py").read_text() == FLOAT.replace("class Model", "class Other")  # a float buffer: held back
    assert "Other.scale -> register_buffer" in result.stdout and "[not statically safe, not written]" in result.stdout
    # Other.idx is statically safe but written with its class only (the class is the unit)
    assert result.stdout.splitlines()[-1].endswith("2 held back (--unsafe-fixes writes them)")


def test_without_torch_asking_for_validation_is_a_usage_error_naming_the_fix(repo: Path, monkeypatch) -> None:
    _without_torch(monkeypatch)
    for args in (["--validate", "."], ["--require-validated", "."]):
        assert_usage_error(repo, invoke(args), "validation needs torch", "--no-validate", "[validate]")
    # The static run needs no torch at all.
    result = invoke(["--no-validate", "--dry-run", "."])
    assert result.exit_code == 0, result.output
    assert "validation needs torch" not in result.output


def test_preflight_accepts_cpu_and_meta() -> None:
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    assert preflight.validation_problem("cpu") is None
    assert preflight.validation_problem("meta") is None
    assert preflight.validation_problem("auto") is None


def test_python_m_codemod_gives_exit_2_too(repo: Path) -> None:
    import subprocess

    completed = subprocess.run(
        [sys.executable, "-m", "codemod", "run", "--device", "gpu", "."], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 2
    assert "must be auto, cpu, meta, cuda or cuda:N" in completed.stderr
    assert (repo / "model.py").read_text() == MODEL
