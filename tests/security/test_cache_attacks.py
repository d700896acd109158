"""What a repository (or anyone who can plant files) ships as a cache never runs, never
redirects a write, never makes the tool delete or create anything outside its own files."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemod.cache import TAG_NAME, TAG_TEXT, cache_base, file_digest, project_directory
from codemod.cli import main
from codemod.runner import RunOptions, run

from .conftest import MODEL, REWRITTEN_LINE, run_codemod, snapshot


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


SKIPPED = """\
import torch
from torch import nn


class Pairs(nn.Module):
    def __init__(self):
        super().__init__()
        self.pair = [torch.ones(2), torch.zeros(2)]
"""


def _entries(root: Path) -> tuple[Path, dict]:
    path = cache_file(root)
    return path, json.loads(path.read_text())


@pytest.mark.parametrize(
    "tamper",
    [
        "a rewrite added",
        "a finding that is not a skip",
        "extra key",
        "wrong type",
        "code in an identifier",
        "entry for a file outside",
        "deep nesting",
    ],
)
def test_tampered_cache_entries_are_ignored_and_never_written_anywhere(repo: Path, outside: Path, tamper: str):
    """Whatever an entry says, a writing run writes what the analysis of today's file gives,
    and only to the files of this run."""
    model, other = repo / "pkg" / "model.py", repo / "pkg" / "other.py"
    other.write_text(SKIPPED)
    assert invoke("run", "--dry-run", "--no-validate", "--unsafe-fixes", ".").exit_code == 0
    path, data = _entries(repo)
    assert str(model) not in data["entries"], "a file with a rewrite is never cached"
    key = str(other)
    entry = data["entries"][key]
    analysis = entry["analysis"]
    if tamper == "a rewrite added":
        analysis["rewritten"] = SKIPPED + "import os\nos.system('echo owned')\n"
    elif tamper == "a finding that is not a skip":
        analysis["findings"][0]["action"] = "buffer"
    elif tamper == "extra key":
        analysis["path"] = str(outside / "victim.py")
    elif tamper == "wrong type":
        analysis["findings"][0]["line"] = True
    elif tamper == "code in an identifier":
        analysis["findings"][0]["class_name"] = "x); __import__('os').system('id'); (y"
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
    assert other.read_text() == SKIPPED
    (skip,) = [f for f in report.findings if f.class_name == "Pairs"]
    assert skip.action.value == "skip" and skip.line == 8
    assert snapshot(outside) == before


def _plant(root: Path, path: Path, analysis: dict) -> None:
    """An entry for `path` that passes every freshness check (digest, size, time)."""
    cache_path, data = _entries(root)
    info = path.stat()
    data["entries"][str(path)] = {
        "digest": file_digest(path.read_bytes()), "dependencies": [], "lookups": [], "repository_digest": None,
        "stat": [info.st_size, info.st_mtime_ns], "recorded_ns": info.st_mtime_ns + 10**10, "analysis": analysis,
    }
    cache_path.write_text(json.dumps(data))


def test_a_poisoned_cache_entry_adds_no_code_to_the_diff_the_file_or_what_validation_runs(repo: Path, tmp_path: Path):
    """The issue's probe: the cached rewritten text of a file, edited to add a line."""
    marker = tmp_path / "code-ran"
    model = repo / "pkg" / "model.py"
    (repo / "pkg" / "other.py").write_text(SKIPPED)
    assert run_codemod(["run", "--dry-run", "--no-validate", "--unsafe-fixes", "."], repo).returncode == 0
    expected = MODEL.replace("self.mask = torch.ones(3)", REWRITTEN_LINE)
    injected = expected.replace(REWRITTEN_LINE, REWRITTEN_LINE + f"\n        open({str(marker)!r}, 'w').close()")
    # The entry a writing run once stored for a file with a rewrite: its findings, plan and
    # texts, the rewritten text edited.
    finding = {"line": 8, "column": 9, "class_name": "Model", "attribute": "mask", "action": "buffer", "persistent": False,
               "reason": "deterministic constant", "suggestion": None, "code": "BUF101"}
    edit = {"line": 8, "col": 8, "op": "buffer", "attr": "mask", "persistent": False, "spine": [], "move_after": None,
            "end": [8, 33], "local": "", "owner": "self"}
    plan = {"parameter_spelling": "nn.Parameter", "add_nn_import": False, "classes": [
        {"name": "Model", "line": 5, "findings": [0], "edits": [edit], "annotations": [], "body_starts": [6, 10]}]}
    poisoned = {"module": "pkg.model", "findings": [finding], "original": MODEL, "rewritten": injected, "error": None,
                "classes": [{"module": "pkg.model", "class_name": "Model", "findings": [0]}], "plan": plan}
    _plant(repo, model, poisoned)
    dry = run_codemod(["run", "--dry-run", "--no-validate", "--unsafe-fixes", "."], repo)
    assert dry.returncode == 0, dry.stderr
    assert "+        " + REWRITTEN_LINE in dry.stdout and "code-ran" not in dry.stdout
    _plant(repo, model, poisoned)
    written = run_codemod(["run", "--jobs", "1", "."], repo, timeout=300)  # validates, then writes
    assert written.returncode == 0, written.stderr
    assert "validation passed" in written.stdout
    assert model.read_text() == expected
    assert not marker.exists(), "code from the cache ran"
    # An entry in the shape the cache writes can only say "nothing to rewrite here": it hides
    # the rewrite (a miss), it never adds one.
    model.write_text(MODEL)
    _plant(repo, model, {"module": "pkg.model", "findings": [], "error": None})
    hidden = run_codemod(["run", "--no-validate", "--unsafe-fixes", "."], repo)
    assert hidden.returncode == 0, hidden.stderr
    assert model.read_text() == MODEL and not marker.exists()


def test_a_poisoned_verdict_is_never_reused_for_other_content(repo: Path):
    """A verdict is reused only for the exact content it was validated on: an entry stripped of
    its file digests, moved under another request's key, or reshaped is a miss, and the class
    is validated again."""
    from codemod.validate.verdict_cache import Digests, verdict_file

    model = repo / "pkg" / "model.py"
    args = ["run", "--jobs", "1", "--dry-run", "--format", "json", "."]

    def validate() -> dict:
        result = run_codemod(args, repo, timeout=300)
        assert result.returncode == 0, result.stderr
        (found,) = json.loads(result.stdout)["findings"]
        return found

    first = validate()
    assert first["verdict"] == "passed"
    store = verdict_file(cache_base(), repo)
    pristine = json.loads(store.read_text())
    (key,) = pristine["entries"]
    other = MODEL.replace("torch.ones(3)", "torch.ones(4)")  # other content, its own request
    no_site = Digests().listing([])
    own = str(model.resolve())
    tampers = {
        "no file digests": lambda e: {**e, "files": {}, "site_dirs": [], "site": no_site},
        "extra key in the verdict": lambda e: {**e, "validation": {**e["validation"], "exec": "id"}},
        "another request's entry": lambda e: {**e, "files": {p: d for p, d in e["files"].items() if p != own}},
    }
    for name, tamper in tampers.items():
        entries = json.loads(json.dumps(pristine["entries"]))
        entry = tamper(entries[key])
        entry["validation"]["message"] = "POISONED"
        entry["validation"]["rewrites"]["mask"]["message"] = "POISONED"
        if name == "another request's entry":
            model.write_text(other)  # validated before only as MODEL: its key is another one
            validate()
            moved = json.loads(store.read_text())["entries"]
            (new_key,) = set(moved) - {key}
            entries = {key: entries[key], new_key: entry}
        else:
            entries[key] = entry
        store.write_text(json.dumps({**pristine, "entries": entries}))
        found = validate()
        assert found["verdict"] == "passed", name
        assert "POISONED" not in json.dumps(found), f"{name}: a poisoned verdict was reused"
        assert model.read_text() in (MODEL, other), "a dry run writes nothing"
