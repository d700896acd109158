"""What a repository (or anyone who can plant files) ships as a cache never runs, never
redirects a write, never makes the tool delete or create anything outside its own files."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemod.cache import TAG_NAME, TAG_TEXT, cache_base, project_directory
from codemod.cli import main
from codemod.runner import RunOptions, run

from .conftest import MODEL, REWRITTEN_LINE, snapshot


class _Payload:
    """Unpickling this creates a marker file: proof that code ran."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def cache_file(root: Path) -> Path:
    (found,) = project_directory(cache_base(), root).glob("analysis-*.json")
    return found


def test_a_committed_pickle_cache_is_never_read(repo: Path, tmp_path: Path):
    marker = tmp_path / "code-ran"
    legacy = repo / ".codemod" / "cache"
    legacy.mkdir(parents=True)
    for name in ("0" * 24 + "-" + "1" * 16 + ".pickle", "cache.pickle"):
        (legacy / name).write_bytes(pickle.dumps({str(repo / "pkg" / "model.py"): _Payload(marker)}))
    result = invoke("run", "--dry-run", "--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 0, result.output
    assert not marker.exists()
    # ... and a pickle planted in the user's cache directory is not read either.
    real = cache_file(repo)
    (real.parent / "analysis-0123456789abcdef01234567.json").write_bytes(pickle.dumps(_Payload(marker)))
    real.write_bytes(pickle.dumps(_Payload(marker)))
    assert invoke("run", "--dry-run", "--no-validate", "--unsafe-fixes", ".").exit_code == 0
    assert not marker.exists()


def test_the_repository_holds_no_cache_after_any_run(repo: Path):
    for args in (["--dry-run"], ["--check"], []):
        invoke("run", "--no-validate", "--unsafe-fixes", *args, ".")
        assert not (repo / ".codemod").exists()
    assert sorted(p.name for p in repo.rglob("*") if p.is_file()) == ["__init__.py", "model.py", "pyproject.toml"]


def test_committed_symlinks_under_dot_codemod_are_left_alone(repo: Path, outside: Path):
    before = snapshot(outside)
    (repo / ".codemod").mkdir()
    (repo / ".codemod" / "cache").symlink_to(outside, target_is_directory=True)
    (repo / ".codemod" / ".gitignore").symlink_to(outside / "created-through-a-dangling-link")
    for args in (["--dry-run"], []):
        assert invoke("run", "--no-validate", "--unsafe-fixes", *args, ".").exit_code == 0
    assert snapshot(outside) == before
    assert invoke("clean").exit_code == 0
    assert snapshot(outside) == before
    assert (repo / ".codemod" / "cache").is_symlink()


def test_a_symlinked_project_cache_directory_is_neither_followed_nor_cleaned(repo: Path, outside: Path):
    project = project_directory(cache_base(), repo)
    project.parent.mkdir(parents=True, exist_ok=True)
    project.symlink_to(outside, target_is_directory=True)
    (outside / TAG_NAME).write_text(TAG_TEXT)  # even with our tag in it
    before = snapshot(outside)
    assert invoke("run", "--no-validate", "--unsafe-fixes", ".").exit_code == 0
    assert REWRITTEN_LINE in (repo / "pkg" / "model.py").read_text()
    assert invoke("clean").exit_code == 0
    assert invoke("clean", "--all").exit_code == 0
    assert snapshot(outside) == before
    assert project.is_symlink()


def test_symlinks_inside_the_cache_directory_are_not_followed(repo: Path, outside: Path):
    assert invoke("run", "--dry-run", "--no-validate", "--unsafe-fixes", ".").exit_code == 0
    real = cache_file(repo)
    real.unlink()
    real.symlink_to(outside / "analysis-0123456789abcdef01234567.json")
    (real.parent / ".analysis-0123456789abcdef01234567.json.codemod-tmp-999999999").symlink_to(outside / "victim.py")
    before = snapshot(outside)
    assert invoke("run", "--dry-run", "--no-validate", "--unsafe-fixes", ".").exit_code == 0
    assert invoke("clean").exit_code == 0
    assert snapshot(outside) == before


def test_clean_removes_only_what_the_tool_created(repo: Path):
    assert invoke("run", "--dry-run", "--no-validate", "--unsafe-fixes", ".").exit_code == 0
    project = cache_file(repo).parent
    (project / "notes.txt").write_text("the user's own file")
    result = invoke("clean")
    assert result.exit_code == 0
    assert sorted(p.name for p in project.iterdir()) == [TAG_NAME, "notes.txt"]
    (project / "notes.txt").unlink()
    assert "removed" in invoke("clean").output
    assert not project.exists()
    # A directory that merely looks like a project cache (no tag) is not touched.
    lookalike = project.parent / ("lookalike-" + "0" * 16)
    lookalike.mkdir()
    (lookalike / "analysis-0123456789abcdef01234567.json").write_text("{}")
    invoke("clean", "--all")
    assert (lookalike / "analysis-0123456789abcdef01234567.json").exists()


def _entries(root: Path) -> tuple[Path, dict]:
    path = cache_file(root)
    return path, json.loads(path.read_text())


@pytest.mark.parametrize(
    "tamper",
    [
        "rewritten text",
        "extra key",
        "wrong type",
        "unknown edit",
        "code in an identifier",
        "finding index out of range",
        "entry for a file outside",
        "deep nesting",
    ],
)
def test_tampered_cache_entries_are_ignored_and_never_written_anywhere(repo: Path, outside: Path, tamper: str):
    """Whatever an entry says, a writing run writes what the analysis of today's file gives,
    and only to the files of this run."""
    model = repo / "pkg" / "model.py"
    assert invoke("run", "--dry-run", "--no-validate", "--unsafe-fixes", ".").exit_code == 0
    path, data = _entries(repo)
    key = str(model)
    entry = data["entries"][key]
    analysis = entry["analysis"]
    if tamper == "rewritten text":
        analysis["rewritten"] = "import os\nos.system('echo owned')\n"
        analysis["plan"] = None  # a rewrite without its plan is malformed
    elif tamper == "extra key":
        analysis["path"] = str(outside / "victim.py")
    elif tamper == "wrong type":
        analysis["findings"][0]["line"] = True
    elif tamper == "unknown edit":
        analysis["plan"]["classes"][0]["edits"][0]["op"] = "exec"
    elif tamper == "code in an identifier":
        analysis["plan"]["classes"][0]["edits"][0]["attr"] = "x); __import__('os').system('id'); (y"
    elif tamper == "finding index out of range":
        analysis["classes"][0]["findings"] = [99]
    elif tamper == "entry for a file outside":
        data["entries"][str(outside / "victim.py")] = entry
    elif tamper == "deep nesting":
        entry["analysis"] = "PLACEHOLDER"
    text = json.dumps(data)
    if tamper == "deep nesting":
        text = text.replace('"PLACEHOLDER"', "[" * 100_000 + "]" * 100_000)
    path.write_text(text)
    before = snapshot(outside)
    report = run([repo], RunOptions(write=True, validate=False, unsafe_fixes=True, root=repo, jobs=1))
    assert not report.has_errors
    assert model.read_text() == MODEL.replace("self.mask = torch.ones(3)", REWRITTEN_LINE)
    assert snapshot(outside) == before
