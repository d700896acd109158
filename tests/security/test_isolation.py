"""The tool's own process never imports the scanned repository's modules."""

from __future__ import annotations

from pathlib import Path

from .conftest import MODEL, run_codemod

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
    assert "validation: 1 passed" in result.stdout, result.stdout + result.stderr
    assert not list(tmp_path.glob("imported-*"))
