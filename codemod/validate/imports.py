"""Where the repository's packages are importable from, and which Python imports them.

Validation imports the repository under its real package names.  Many
repositories keep their packages below the root (``src/pkg``, ``lib/pkg``)
and declare that in ``pyproject.toml``, ``setup.cfg`` or ``setup.py``; the
workers need those directories on ``sys.path`` as an installed package would
have them.  The workers also run under the *project's* interpreter (its
virtual environment holds the project's dependencies), not necessarily the
one running the tool.

Parent side only: nothing here imports torch.
"""

from __future__ import annotations

import ast
import configparser
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Iterable

from codemod.discovery import module_name_for


def import_roots(root: Path, files: Iterable[Path]) -> list[Path]:
    """Directories for ``sys.path``, the repository root first.

    The declared package directories come next, then the import root of
    every rewritten file (the first directory above its package chain).
    """
    root = Path(root).resolve()
    roots: list[Path] = [root]
    for directory in declared_package_dirs(root) + [module_name_for(Path(f))[0] for f in files]:
        directory = Path(directory).resolve()
        if directory not in roots and _inside(directory, root):
            roots.append(directory)
    return roots


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def declared_package_dirs(root: Path) -> list[Path]:
    """Package directories declared by the build configuration, plus a ``src/`` layout."""
    found: list[str] = []
    found += _from_pyproject(root / "pyproject.toml")
    found += _from_setup_cfg(root / "setup.cfg")
    found += _from_setup_py(root / "setup.py")
    if (root / "src").is_dir() and not (root / "src" / "__init__.py").exists():
        found.append("src")
    out: list[Path] = []
    for item in found:
        item = item.strip().strip("/") or "."
        path = (root / item).resolve()
        if path.is_dir() and path not in out:
            out.append(path)
    return out


def _from_pyproject(path: Path) -> list[str]:
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    out: list[str] = []
    setuptools = tool.get("setuptools") if isinstance(tool.get("setuptools"), dict) else {}
    package_dir = setuptools.get("package-dir")
    if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
        out.append(package_dir[""])
    packages = setuptools.get("packages")
    find = packages.get("find") if isinstance(packages, dict) else None
    if isinstance(find, dict):
        where = find.get("where")
        out += [w for w in (where if isinstance(where, list) else [where]) if isinstance(w, str)]
    # hatch: packages = ["src/pkg"]; poetry: packages = [{include = "pkg", from = "src"}]
    hatch = tool.get("hatch") if isinstance(tool.get("hatch"), dict) else {}
    wheel = ((hatch.get("build") or {}).get("targets") or {}).get("wheel") or {}
    for item in wheel.get("packages") or [] if isinstance(wheel, dict) else []:
        if isinstance(item, str) and "/" in item.strip("/"):
            out.append(item.strip("/").rsplit("/", 1)[0])
    poetry = tool.get("poetry") if isinstance(tool.get("poetry"), dict) else {}
    for item in poetry.get("packages") or []:
        if isinstance(item, dict) and isinstance(item.get("from"), str):
            out.append(item["from"])
    flit = (tool.get("flit") or {}).get("module") if isinstance(tool.get("flit"), dict) else None
    if isinstance(flit, dict) and isinstance(flit.get("directory"), str):
        out.append(flit["directory"])
    return out


def _from_setup_cfg(path: Path) -> list[str]:
    parser = configparser.ConfigParser()
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, configparser.Error, UnicodeDecodeError):
        return []
    out = []
    value = parser.get("options", "package_dir", fallback="")
    for line in value.replace(";", "\n").splitlines():
        key, _, target = line.partition("=")
        if target and not key.strip():
            out.append(target.strip())
    where = parser.get("options.packages.find", "where", fallback="").strip()
    if where:
        out.append(where)
    return out


def _from_setup_py(path: Path) -> list[str]:
    """``package_dir={"": "src"}`` and ``find_packages("src")`` / ``where="src"``, read, never run."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == "" and isinstance(value, ast.Constant) \
                        and isinstance(value.value, str):
                    out.append(value.value)
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
            "find_packages", "find_namespace_packages"
        ):
            arguments = list(node.args[:1]) + [k.value for k in node.keywords if k.arg == "where"]
            out += [a.value for a in arguments if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return out


# -- the project's interpreter ---------------------------------------------------------------


class InterpreterError(Exception):
    """The interpreter asked for does not exist or cannot run."""


def project_python(root: Path, requested: str | os.PathLike[str] | None, environ: dict[str, str] | None = None) -> str:
    """The interpreter the workers run under.

    ``requested`` (``--python`` or ``[tool.codemod] python``, relative to the
    root when not absolute) wins; then the active virtual environment
    (``VIRTUAL_ENV``); then ``.venv`` or ``venv`` in the project; then the
    interpreter running the tool.
    """
    environ = os.environ if environ is None else environ
    if requested:
        text = os.fspath(requested)
        if os.sep not in text and "/" not in text and shutil.which(text):
            return str(shutil.which(text))  # a command name, such as python3.11
        candidate = Path(requested).expanduser()
        if not candidate.is_absolute():
            candidate = Path(root) / candidate
        if candidate.is_dir():
            candidate = _venv_python(candidate) or candidate
        if not candidate.is_file() or not os.access(candidate, os.X_OK):
            raise InterpreterError(f"--python {requested}: no executable interpreter at {candidate}")
        return str(candidate)
    venv = environ.get("VIRTUAL_ENV")
    if venv:
        found = _venv_python(Path(venv))
        if found:
            return str(found)
    for name in (".venv", "venv"):
        found = _venv_python(Path(root) / name)
        if found:
            return str(found)
    return sys.executable


def _venv_python(directory: Path) -> Path | None:
    for relative in ("bin/python", "bin/python3", "Scripts/python.exe"):
        candidate = directory / relative
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


_MISSING_TORCH = re.compile(r"No module named '?torch'?")


def explain_start_failure(python: str, message: str) -> str:
    """A worker that could not start, said in terms of the interpreter used."""
    if _MISSING_TORCH.search(message):
        return (f"the project interpreter {python} cannot import torch: install the project's dependencies "
                f"there, or pick another with --python PATH")
    return message
