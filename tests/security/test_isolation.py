"""The tool's own process never imports the scanned repository's modules."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemod.cli import main

from .conftest import MODEL, REPO_ROOT, REWRITTEN_LINE, run_codemod

SHADOW = "open({marker!r}, 'w').close()\nraise SystemExit('the repository module {name} was imported')\n"


def test_running_from_a_repository_root_with_modules_named_like_dependencies(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    (root / "model.py").write_text(MODEL)
    names = ("pathspec", "concurrent", "click", "libcst", "json", "hashlib")
    for name in names:
        (root / f"{name}.py").write_text(SHADOW.format(marker=str(tmp_path / f"imported-{name}"), name=name))
    (root / ".gitignore").write_text("ignored/\n")  # pathspec is needed
    for args in (["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--jobs", "2", "."], ["run", "--no-validate", "--unsafe-fixes", "."], ["clean"]):
        result = run_codemod(args, root)
        assert result.returncode == 0, result.stderr
    assert not list(tmp_path.glob("imported-*"))
    assert 'register_buffer("mask"' in (root / "model.py").read_text()


def _shadowing_repository(tmp_path: Path, names: tuple[str, ...], config: str = "") -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text(config)
    (root / "model.py").write_text(MODEL)
    for name in names:
        path = root / (f"{name}/__init__.py" if name.endswith("/") else f"{name}.py")
        path.parent.mkdir(exist_ok=True)
        path.write_text(SHADOW.format(marker=str(tmp_path / f"imported-{name.strip('/')}"), name=name))
    return root


@pytest.mark.parametrize("shadow", ["codemod", "codemod/"])
def test_the_command_and_python_P_run_the_tool_even_where_the_repository_has_a_codemod_module(tmp_path: Path, shadow: str):
    root = _shadowing_repository(tmp_path, (shadow,))
    script = shutil.which("codemod", path=sysconfig.get_path("scripts"))
    assert script, "the codemod command is installed next to this interpreter"
    for command in ([script], [sys.executable, "-P", "-m", "codemod"]):
        env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
        result = subprocess.run([*command, "run", "--no-validate", "--unsafe-fixes", "--dry-run", "."], cwd=root, env=env,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert "1 would change" in result.stdout
    assert not list(tmp_path.glob("imported-*"))
    # What the README warns about: a plain `python -m codemod` there runs the repository's module.
    result = run_codemod(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "."], root)
    assert f"the repository module {shadow} was imported" in result.stderr
    assert (tmp_path / "imported-codemod").exists()
    assert (root / "model.py").read_text() == MODEL


FAKE_FORMATTER = """#!{python}
import sys
data = sys.stdin.read()
sys.stdout.write({output})
"""


@pytest.mark.parametrize("name", ["black", "ruff"])
def test_a_formatter_shadowed_by_a_repository_module_is_never_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str):
    """The repository's black.py / ruff.py is never imported: with no formatter installed the
    run stops before any work (exit 2), and the file is untouched."""
    root = _shadowing_repository(tmp_path, ("black", "ruff"), f'[tool.codemod]\nformatter = "{name}"\n')
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("PATH", f".{os.pathsep}{empty}")  # a relative PATH entry names the repository
    (root / name).write_text(SHADOW.format(marker=str(tmp_path / f"ran-{name}"), name=name))
    (root / name).chmod(0o755)
    real = sysconfig.get_path
    monkeypatch.setattr(sysconfig, "get_path", lambda key, *a, **k: str(empty) if key == "scripts" else real(key, *a, **k))
    for args in (["--dry-run", "--no-validate", "--unsafe-fixes"], ["--no-validate", "--unsafe-fixes"]):
        result = CliRunner().invoke(main, ["run", *args, "."])
        assert result.exit_code == 2
        assert f"formatter {name!r} is not installed" in result.output
    assert not list(tmp_path.glob("imported-*")) and not list(tmp_path.glob("ran-*"))
    assert (root / "model.py").read_text() == MODEL
    # Installed in the tool's environment, the real formatter runs, from outside the repository.
    monkeypatch.setattr(sysconfig, "get_path", real)
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "."])
    assert result.exit_code == 0, result.output
    assert not list(tmp_path.glob("imported-*")) and not list(tmp_path.glob("ran-*"))
    assert REWRITTEN_LINE in (root / "model.py").read_text()


def test_the_formatter_starts_outside_the_repository_without_its_python_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = _shadowing_repository(tmp_path, ("black",), '[tool.codemod]\nformatter = "black"\n')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    seen = tmp_path / "seen.json"
    output = f"(__import__('json').dump([__import__('os').getcwd(), __import__('os').environ.get('PYTHONPATH')], open({str(seen)!r}, 'w')), data)[1]"
    (bin_dir / "black").write_text(FAKE_FORMATTER.format(python=sys.executable, output=output))
    (bin_dir / "black").chmod(0o755)
    monkeypatch.chdir(root)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", f"{root}{os.pathsep}.")
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "."])
    assert result.exit_code == 0, result.output
    cwd, python_path = json.loads(seen.read_text())
    assert not Path(cwd).resolve().is_relative_to(root.resolve()) and python_path is None
    assert not list(tmp_path.glob("imported-*"))
    assert REWRITTEN_LINE in (root / "model.py").read_text()


@pytest.mark.parametrize("output", ["data.replace('torch.ones', 'torch.zeros')", "''", "data + 'import os\\n'"])
def test_a_formatter_whose_output_is_other_code_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str):
    root = _shadowing_repository(tmp_path, (), '[tool.codemod]\nformatter = "black"\n')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "black").write_text(FAKE_FORMATTER.format(python=sys.executable, output=output))
    (bin_dir / "black").chmod(0o755)
    monkeypatch.chdir(root)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "."])
    assert result.exit_code == 2
    assert "black's output was not used: it parses to different code than it was given; " \
           "the rewrite is kept as codemod wrote it" in result.stderr
    assert (root / "model.py").read_text() == MODEL.replace("self.mask = torch.ones(3)", REWRITTEN_LINE)


def test_validation_imports_torch_and_its_dependencies_from_the_installation(tmp_path: Path):
    """torch (and what it imports lazily: sympy, typing_extensions) comes from the interpreter's
    installation, never from a repository module of the same name: the warm process that
    imports them does not start in the repository."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    (root / "model.py").write_text(MODEL)
    names = ("sympy", "typing_extensions", "filelock", "jinja2", "networkx")
    for name in names:
        (root / f"{name}.py").write_text(SHADOW.format(marker=str(tmp_path / f"imported-{name}"), name=name))
    result = run_codemod(["run", "--dry-run", "--no-cache", "--jobs", "1", "."], root, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "validation of 1 class: 1 passed" in result.stdout, result.stdout + result.stderr
    assert not list(tmp_path.glob("imported-*"))
