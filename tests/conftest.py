"""Shared pytest configuration."""

from __future__ import annotations


import os as _os
import shutil as _shutil
import tempfile as _tempfile

_CACHE_HOME: list[str] = []


def pytest_configure(config):
    # The result cache lives in the user's cache directory by default: tests use their own.
    _CACHE_HOME.append(_tempfile.mkdtemp(prefix="codemod-test-cache-"))
    _os.environ["CODEMOD_CACHE_DIR"] = _CACHE_HOME[0]


def pytest_unconfigure(config):
    for directory in _CACHE_HOME:
        _shutil.rmtree(directory, ignore_errors=True)


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden/*/expected.py and report.txt from the tool's current output (review the diff afterwards)",
    )


# -- small repositories written into tmp_path ---------------------------------------------------

import textwrap as _textwrap
from pathlib import Path as _Path

import pytest as _pytest


def write_files(root: _Path, files: dict) -> _Path:
    """Write {relative path: text or bytes} under root (text is dedented); return root."""
    root = _Path(root)
    for relative, content in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(_textwrap.dedent(content), encoding="utf-8", newline="")
    return root


@_pytest.fixture
def write_tree():
    """`write_tree(root, {"pkg/mod.py": "...", ...})` writes a small repository."""
    return write_files


@_pytest.fixture(scope="session", autouse=True)
def _one_validation_zygote_per_session(tmp_path_factory):
    """Validation runs made in this process fork their workers from one warm interpreter per
    session instead of importing torch again for every run (runner.keep_zygotes); runs of
    the `codemod` command in subprocesses still start their own."""
    from codemod.validate import runner

    runner.keep_zygotes(tmp_path_factory.mktemp("zygote"))
    yield
    runner.release_zygotes()
