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

from .conftest import MODEL, REWRITTEN_LINE, run_codemod, snapshot


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


def _dead_pid() -> int:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    return dead.pid


def _leftover(repo: Path, name: str, data: bytes, pid: int) -> Path:
    """What a run killed mid-write leaves: a recorded temporary file next to `name`."""
    from codemod.cache import cache_base, project_directory
    from codemod.tempfiles import Journal, new_token, temp_name

    token = new_token()
    path = repo / "pkg" / temp_name(name, token)
    journal = Journal(project_directory(cache_base(), repo))
    assert journal.record(token, os.path.join(os.path.realpath(repo / "pkg"), path.name), data)
    record = journal.directory / f"write-{token}.json"
    record.write_text(json.dumps({**json.loads(record.read_text()), "pid": pid}))
    path.write_bytes(data)
    return path


def test_only_temporary_files_proven_the_tools_own_are_removed(repo: Path):
    """Look-alikes of the tool's temporary files are never removed: only a file its record
    names, whose run is gone, holding nothing or exactly the recorded bytes."""
    pid = _dead_pid()
    model = repo / "pkg" / "model.py"
    (repo / "data").mkdir()
    foreign = [
        repo / "pkg" / f".model.py.codemod-tmp-{pid}",  # the old name, of a dead process
        repo / "pkg" / f".model.py.codemod-tmp-{'a' * 32}",  # the name, without a record
        repo / "data" / f".table.bin.codemod-tmp-{pid}",  # in a folder where nothing is written
        repo / "pkg" / ".model.py.other-tool-tmp-1",
    ]
    for path in foreign:
        path.write_text("someone's data")
    changed = _leftover(repo, "model.py", b"half", pid)
    changed.write_bytes(b"edited since")  # recorded, but its bytes are not the recorded ones
    alive = _leftover(repo, "model.py", b"a run still writing", os.getppid())
    full = _leftover(repo, "model.py", b"what the killed run wrote", pid)
    empty = _leftover(repo, "model.py", b"killed before writing", pid)
    empty.write_bytes(b"")
    other = _leftover(repo, "__init__.py", b"", pid)  # next to a file this run does not write
    snapshot_before = snapshot(repo)
    result = run_codemod(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "."], repo, timeout=120)
    assert result.returncode == 0, result.stderr
    assert snapshot(repo) == snapshot_before, "a dry run writes (and removes) nothing"
    result = run_codemod(["run", "--no-validate", "--unsafe-fixes", "."], repo, timeout=120)
    assert result.returncode == 0, result.stderr
    assert model.read_text() == MODEL.replace("self.mask = torch.ones(3)", REWRITTEN_LINE)
    assert not full.exists() and not empty.exists()
    left = {p for p in repo.rglob("*") if p.is_file()}
    assert set(foreign) | {changed, alive, other} <= left
    assert all(p.read_text() == "someone's data" for p in foreign)
    expected = {str(p.relative_to(repo)) for p in foreign + [changed, alive, other]}
    expected |= {"pyproject.toml", "pkg/__init__.py", "pkg/model.py"}
    assert {str(p.relative_to(repo)) for p in left} == expected, "nothing else was created or removed"


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


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_symlinked_path_argument_is_refused_unless_asked(repo: Path, outside: Path):
    """Files and directories named on the command line follow the walk's rule: nothing is
    taken through a symlink, nor outside the project root, without --follow-symlinks."""
    project = outside / "project"  # a project of its own: the link must not become the root
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    (project / "m.py").write_text(MODEL)
    (repo / "pkg" / "linked.py").symlink_to(outside / "victim.py")
    (repo / "linked_dir").symlink_to(outside, target_is_directory=True)
    (repo / "linked_project").symlink_to(project, target_is_directory=True)
    before = snapshot(outside)
    for argument in ("pkg/linked.py", "linked_dir", "linked_dir/victim.py", "linked_project", str(repo / "linked_project")):
        result = run_codemod(["run", "--no-validate", "--unsafe-fixes", argument], repo, timeout=120)
        assert result.returncode == 2, (argument, result.stdout, result.stderr)
        assert "not followed (--follow-symlinks takes it)" in result.stderr
        assert "0 changed" in result.stdout
        assert snapshot(outside) == before
    assert (repo / "pkg" / "model.py").read_text() == MODEL
    result = run_codemod(["run", "--no-validate", "--unsafe-fixes", "."], repo, timeout=120)  # the walk skips the links
    assert result.returncode == 0, result.stderr
    assert snapshot(outside) == before
    assert REWRITTEN_LINE in (repo / "pkg" / "model.py").read_text()
    # Asked for, a named link is taken: its target is rewritten.
    result = run_codemod(["run", "--no-validate", "--unsafe-fixes", "--follow-symlinks", "pkg/linked.py"], repo, timeout=120)
    assert result.returncode == 0, result.stderr
    assert REWRITTEN_LINE in (outside / "victim.py").read_text()
