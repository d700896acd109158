"""The codemod over two large real code bases: the sources of transformers and timm.

The corpora are fetched once by benchmarks/run_benchmark.py into a cache outside the
repository (~/.cache/codemod-bench, or $CODEMOD_BENCH_CACHE) and only scratch copies are
handed to the tool.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import tool_env
from codemod.runner import RunOptions, RunReport, run

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[1]


def _load_benchmark():
    spec = importlib.util.spec_from_file_location("run_benchmark_for_scale_tests", REPO_ROOT / "benchmarks" / "run_benchmark.py")
    module = importlib.util.module_from_spec(spec)
    old, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = old
    return module


@pytest.fixture(scope="module")
def corpora() -> dict[str, Path]:
    """name -> the pristine package sources in the benchmark cache (never handed to the tool)."""
    bench = _load_benchmark()
    cache = bench.resolve_cache_dir(None)
    found = {}
    for name in ("transformers", "timm"):
        source = bench.fetch_corpus(name, cache)
        assert (source / "__init__.py").is_file(), source
        found[name] = source
    assert len(bench.list_py_files(found["transformers"])) > 2000
    assert len(bench.list_py_files(found["timm"])) > 250
    return found


@pytest.fixture(scope="module")
def scratch(corpora: dict[str, Path], tmp_path_factory) -> dict[str, Path]:
    """A scratch copy of each corpus, shared by the tests that write nothing into it."""
    base = tmp_path_factory.mktemp("corpora")
    return {name: Path(shutil.copytree(source, base / name)) for name, source in corpora.items()}


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*.py"))
        if ".codemod" not in p.relative_to(root).parts
    }


def _comparable(report: RunReport) -> list:
    return [
        (r.display_path, r.error, r.rewritten if r.changed else None, [f.to_json() for f in r.findings])
        for r in report.files
    ]


def _errors(report: RunReport) -> list:
    return list(report.errors) + [(r.display_path, r.error) for r in report.files if r.error]


def _run(paths, root: Path, **options) -> RunReport:
    return run(list(paths), RunOptions(write=options.pop("write", False), validate=False, unsafe_fixes=True, root=root, **options))


# -- the command line over both corpora ------------------------------------------------------------


def test_dry_run_over_both_corpora_reports_no_error(scratch: dict[str, Path]):
    env = tool_env()
    before = {name: _files(root) for name, root in scratch.items()}
    result = subprocess.run(
        [sys.executable, "-m", "codemod", "run", "--dry-run", "--no-validate", "--unsafe-fixes", "--no-cache", "--jobs", "2",
         "--format", "json", str(scratch["transformers"]), str(scratch["timm"])],
        cwd=scratch["timm"].parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert "Traceback" not in result.stderr
    document = json.loads(result.stdout)
    assert document["errors"] == []
    summary = document["summary"]
    assert summary["errors"] == 0
    assert summary["files_scanned"] == sum(len(files) for files in before.values())
    assert summary["files_changed"] == len(document["diffs"])
    for name, root in scratch.items():
        assert _files(root) == before[name], f"--dry-run wrote into {name}"
        assert not (root / ".codemod").exists()
    for record in document["findings"]:
        assert record["path"].startswith(("transformers/", "timm/")), record
        assert record["action"] in ("buffer", "parameter", "skip")


# -- writing the rewrites ---------------------------------------------------------------------------


def test_write_run_gives_parsable_files_and_a_second_run_changes_nothing(corpora: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    work = tmp_path / "work"
    copies = {name: Path(shutil.copytree(source, work / name)) for name, source in corpora.items()}
    monkeypatch.chdir(work)
    planned = _run(copies.values(), work, jobs=2, use_cache=False)
    assert _errors(planned) == []
    expected = {r.path: r.rewritten for r in planned.changed_files}

    written = _run(copies.values(), work, write=True, jobs=2, use_cache=False)
    assert _errors(written) == []
    assert {r.path for r in written.changed_files} == set(expected)

    for name, copy in copies.items():
        original = _files(corpora[name])
        after = _files(copy)
        assert set(after) == set(original), "files were added or removed"
        for relative, data in after.items():
            path = copy / relative
            if path in expected:
                assert data.decode("utf-8") == expected[path], f"{path} differs from the planned rewrite"
                assert data != original[relative]
                ast.parse(data, filename=str(path))
                compile(data, str(path), "exec", dont_inherit=True)
            else:
                assert data == original[relative], f"{name}/{relative} changed although it had no rewrite"
                assert path.stat().st_mtime_ns == (corpora[name] / relative).stat().st_mtime_ns, f"{name}/{relative} was rewritten"
            if path in expected:
                assert path.stat().st_mode == (corpora[name] / relative).stat().st_mode, "permissions changed"

    again = _run(copies.values(), work, write=True, jobs=2, use_cache=False)
    assert _errors(again) == []
    assert again.changed_files == []
    assert [f for f in again.findings if f.action.value != "skip"] == []
    for name, copy in copies.items():
        assert _files(copy) == {
            p: (expected[copy / p].encode() if copy / p in expected else d) for p, d in _files(corpora[name]).items()
        }


# -- the pre-filter and the cache change nothing --------------------------------------------------------


def _same_results(root: Path, paths: list[Path]) -> tuple[RunReport, RunReport, RunReport]:
    from codemod.cache import cache_base, project_directory

    cache = project_directory(cache_base(), root)  # outside the tree: $CODEMOD_CACHE_DIR (conftest)
    reference = _run(paths, root, prefilter=False, use_cache=False, jobs=2)
    assert not cache.exists()
    cold = _run(paths, root, prefilter=True, use_cache=True, jobs=2)
    assert cache.is_dir() and any(cache.iterdir())
    assert not (root / ".codemod").exists()  # nothing written into the repository
    warm = _run(paths, root, prefilter=True, use_cache=True, jobs=2)
    assert _errors(reference) == []
    return reference, cold, warm


def test_prefilter_and_cache_change_nothing_over_timm(corpora: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = Path(shutil.copytree(corpora["timm"], tmp_path / "timm"))
    monkeypatch.chdir(tmp_path)
    reference, cold, warm = _same_results(root, [root])
    assert len(reference.files) == len(_files(root))
    assert reference.findings, "timm has findings to compare"
    assert _comparable(cold) == _comparable(reference)
    assert _comparable(warm) == _comparable(reference)


def test_prefilter_and_cache_change_nothing_over_transformers(corpora: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Every file of the corpus, not a sample: the pre-filter must not lose a single finding.
    root = Path(shutil.copytree(corpora["transformers"], tmp_path / "transformers"))
    monkeypatch.chdir(tmp_path)
    reference, cold, warm = _same_results(root, [root])
    assert len(reference.files) == len(_files(root)) > 2000
    assert reference.findings, "transformers has findings to compare"
    assert _comparable(cold) == _comparable(reference)
    assert _comparable(warm) == _comparable(reference)
