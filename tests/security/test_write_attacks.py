"""Writes go only to the files read, inside the paths given; never through a symlink
swapped in, never to a read-only file; temporary files are recognisable and cleaned up."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import codemod.runner as runner
from codemod.cli import main
from codemod.runner import RunOptions, run

from .conftest import MODEL, REWRITTEN_LINE, snapshot


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _swap_before_writing(monkeypatch: pytest.MonkeyPatch, swap) -> None:
    """Run `swap()` after the analysis, just before the run writes (the window an attacker races for)."""
    real = runner._finalise

    def finalise(*args, **kwargs):
        swap()
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "_finalise", finalise)


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_file_swapped_for_a_symlink_mid_run_is_not_written_through(repo: Path, outside: Path, monkeypatch):
    model = repo / "pkg" / "model.py"

    def swap():
        model.unlink()
        model.symlink_to(outside / "victim.py")  # same content: only the identity differs

    _swap_before_writing(monkeypatch, swap)
    before = snapshot(outside)
    report = run([repo], RunOptions(write=True, validate=False, unsafe_fixes=True, root=repo, jobs=1, use_cache=False))
    assert snapshot(outside) == before
    assert model.is_symlink()
    (error,) = [r.error for r in report.files if r.error]
    assert error.startswith("not written:") and "symlink" in error
    assert report.summary.files_written == 0 and report.summary.files_proposed == 1
    assert "1 not written" in report.summary.line()


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_directory_swapped_for_a_symlink_mid_run_is_not_written_through(repo: Path, outside: Path, monkeypatch):
    copy = outside / "pkg"

    def swap():
        shutil.copytree(repo / "pkg", copy)
        shutil.rmtree(repo / "pkg")
        (repo / "pkg").symlink_to(copy, target_is_directory=True)

    _swap_before_writing(monkeypatch, swap)
    report = run([repo], RunOptions(write=True, validate=False, unsafe_fixes=True, root=repo, jobs=1, use_cache=False))
    assert (copy / "model.py").read_text() == MODEL
    assert any(r.error and r.error.startswith("not written:") for r in report.files)


def test_a_file_replaced_by_another_file_mid_run_is_not_written(repo: Path, monkeypatch):
    model = repo / "pkg" / "model.py"

    def swap():  # another file with the same text (the first one kept, so its inode is not reused)
        model.rename(repo / "pkg" / "model.py.orig")
        model.write_text(MODEL)

    _swap_before_writing(monkeypatch, swap)
    report = run([repo], RunOptions(write=True, validate=False, unsafe_fixes=True, root=repo, jobs=1, use_cache=False))
    assert model.read_text() == MODEL
    assert any(r.error and "replaced" in r.error for r in report.files)


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_symlink_in_the_tree_is_never_followed(repo: Path, outside: Path):
    (repo / "pkg" / "linked.py").symlink_to(outside / "victim.py")
    (repo / "linked_dir").symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    assert invoke("run", "--no-validate", "--unsafe-fixes", ".").exit_code == 0
    assert snapshot(outside) == before
    assert REWRITTEN_LINE in (repo / "pkg" / "model.py").read_text()


def test_read_only_files_are_left_alone_and_reported(repo: Path):
    model = repo / "pkg" / "model.py"
    model.chmod(0o444)
    try:
        result = invoke("run", "--no-validate", "--unsafe-fixes", "--format", "json", ".")
        assert model.read_text() == MODEL
        assert stat.S_IMODE(model.stat().st_mode) == 0o444
        document = json.loads(result.stdout)
        assert result.exit_code == 2
        (error,) = document["errors"]
        assert error["path"] == "pkg/model.py" and "read-only" in error["message"]
        summary = document["summary"]
        assert (summary["files_proposed"], summary["files_written"], summary["files_changed"]) == (1, 0, 0)
        # A run that writes nothing proposes the rewrite as usual.
        dry = json.loads(invoke("run", "--no-validate", "--unsafe-fixes", "--dry-run", "--format", "json", ".").stdout)["summary"]
        assert (dry["files_proposed"], dry["files_written"], dry["files_changed"]) == (1, 0, 1)
    finally:
        model.chmod(0o644)


def test_temporary_files_are_recognisable_and_stale_ones_removed(repo: Path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = repo / "pkg" / f".model.py.codemod-tmp-{dead.pid}"
    live = repo / "pkg" / f".model.py.codemod-tmp-{os.getppid()}"  # a process still running
    foreign = repo / "pkg" / ".model.py.other-tool-tmp-1"
    for path in (stale, live, foreign):
        path.write_text("half a file")
    invoke("run", "--no-validate", "--unsafe-fixes", "--dry-run", ".")
    assert stale.exists(), "a dry run writes (and deletes) nothing in the repository"
    invoke("run", "--no-validate", "--unsafe-fixes", ".")
    assert not stale.exists()
    assert live.exists() and foreign.exists()
    assert REWRITTEN_LINE in (repo / "pkg" / "model.py").read_text()
    assert sorted(p.name for p in (repo / "pkg").iterdir() if "codemod-tmp" in p.name) == [live.name]


def test_writes_stay_inside_the_paths_given(repo: Path, tmp_path: Path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "model.py").write_text(MODEL)
    # Only pkg/ is given: files found elsewhere are never written, whatever the root says.
    report = run([repo / "pkg"], RunOptions(write=True, validate=False, unsafe_fixes=True, root=tmp_path, jobs=1))
    assert not report.has_errors
    assert (other / "model.py").read_text() == MODEL
    from codemod.fileio import SourceError, read_source, write_source_atomic

    with pytest.raises(SourceError, match="outside the paths given"):
        write_source_atomic(read_source(other / "model.py"), "x = 1\n", [str(repo)])
    assert (other / "model.py").read_text() == MODEL
