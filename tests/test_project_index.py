"""One project, one answer: a file's findings do not depend on the paths a run is given.

Every run indexes the whole project (found from the given paths), reports and rewrites only
the given files, and decides each of them with everything the project holds: base classes,
subclasses and helpers in other files, and the calls of a class elsewhere.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemod import runner
from codemod.config import find_project_root
from codemod.runner import RunOptions, RunReport, run

REPO_ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = REPO_ROOT / "examples" / "research_repo"


def by_file(report: RunReport) -> dict[str, tuple]:
    """display path -> (error, rewritten text when changed, findings as JSON records)."""
    return {
        r.display_path: (r.error, r.rewritten if r.changed else None, [f.to_json() for f in r.findings])
        for r in report.files
    }


def static(**overrides) -> RunOptions:
    return RunOptions(**{"write": False, "validate": False, "unsafe_fixes": True, "use_cache": False, "jobs": 1, **overrides})


def assert_same_answer_from_any_path(root: Path, monkeypatch, extra_paths=()) -> dict[str, tuple]:
    """Each file alone, each directory and the extra paths agree with the run over the root."""
    monkeypatch.chdir(root)
    whole = by_file(run(["."], static()))
    assert whole, "the project has no Python file"
    for shown, expected in whole.items():
        assert by_file(run([shown], static())) == {shown: expected}, shown
    directories = {str(Path(shown).parent) for shown in whole} | set(extra_paths)
    for directory in sorted(directories):
        part = by_file(run([directory], static()))
        assert part == {k: v for k, v in whole.items() if k in part}, directory
    return whole


# -- the shipped example ---------------------------------------------------------------------


@pytest.fixture
def research_repo(tmp_path: Path) -> Path:
    return Path(shutil.copytree(EXAMPLE, tmp_path / "research_repo", ignore=shutil.ignore_patterns(".codemod")))


def test_research_repo_same_findings_from_root_package_and_file(research_repo: Path, monkeypatch) -> None:
    whole = assert_same_answer_from_any_path(research_repo, monkeypatch, extra_paths=["eventx/models", "eventx"])
    # casee.py's PositionAware builds its table with a helper of layers.py: seen even alone.
    casee = whole["eventx/models/casee.py"][2]
    assert {(f["class"], f["attribute"], f["action"]) for f in casee} >= {
        ("PositionAware", "pe", "buffer"),
        ("TypeCls", "type_indices", "buffer"),
        ("CasEE", "noise", "buffer"),
    }


def test_research_repo_from_another_directory(research_repo: Path, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(research_repo)
    whole = run(["."], static())
    expected = {r.path: [f.to_json() for f in r.findings] for r in whole.files}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    target = research_repo / "eventx" / "models" / "casee.py"
    single = run([str(target)], static())
    assert single.root == research_repo
    [result] = single.files
    assert [{**f.to_json(), "path": None} for f in result.findings] == [
        {**f, "path": None} for f in expected[target]
    ]


# -- synthetic repositories: each kind of cross-file knowledge -------------------------------

BASE_WITH_NUMPY_SUBCLASS = {
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/base.py": """\
        import torch
        from torch import nn


        class Base(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.table = torch.zeros(n)

            def forward(self, x):
                return x + self.table
        """,
    "pkg/sub.py": """\
        import numpy as np

        from pkg.base import Base


        class Sub(Base):
            def __init__(self, n):
                super().__init__(n)
                self.table = np.zeros(n)
        """,
}

HELPER_AND_CALL_SITE = {
    "setup.cfg": "[metadata]\nname = graphs\n",
    "graphs/__init__.py": "",
    "graphs/helpers.py": """\
        import torch


        def causal_mask(n):
            return torch.tril(torch.ones(n, n))
        """,
    "graphs/model.py": """\
        from torch import nn

        from graphs.helpers import causal_mask


        class Decoder(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.mask = causal_mask(n)

            def forward(self, x):
                return x.masked_fill(self.mask == 0, 0.0)
        """,
    "graphs/layers.py": """\
        from torch import nn


        class GraphConv(nn.Module):
            def __init__(self, adj):
                super().__init__()
                self.adj = adj

            def forward(self, x):
                return self.adj @ x
        """,
    "graphs/nets/net.py": """\
        import torch
        from torch import nn

        from graphs.layers import GraphConv


        class Net(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.conv = GraphConv(torch.eye(n))

            def forward(self, x):
                return self.conv(x)
        """,
}


def _actions(report_files: dict[str, tuple], shown: str) -> dict[str, str]:
    return {f"{f['class']}.{f['attribute']}": f["action"] for f in report_files[shown][2]}


def test_base_class_rebound_to_numpy_by_a_subclass_elsewhere_is_skipped_alone(tmp_path, write_tree, monkeypatch) -> None:
    root = write_tree(tmp_path / "repo", BASE_WITH_NUMPY_SUBCLASS)
    whole = assert_same_answer_from_any_path(root, monkeypatch)
    assert _actions(whole, "pkg/base.py") == {"Base.table": "skip"}
    # Without the project index the single file would be rewritten (and Sub would raise).
    alone = by_file(run(["pkg/base.py"], static(index_project=False)))
    assert _actions(alone, "pkg/base.py") == {"Base.table": "buffer"}


def test_helper_and_call_site_in_other_files_are_seen_alone(tmp_path, write_tree, monkeypatch) -> None:
    root = write_tree(tmp_path / "repo", HELPER_AND_CALL_SITE)
    whole = assert_same_answer_from_any_path(root, monkeypatch)
    assert _actions(whole, "graphs/model.py") == {"Decoder.mask": "buffer"}
    assert _actions(whole, "graphs/layers.py") == {"GraphConv.adj": "buffer"}
    alone = by_file(run(["graphs/layers.py"], static(index_project=False)))
    # alone, no call types the argument: reported (BUF308), never rewritten
    assert _actions(alone, "graphs/layers.py") == {"GraphConv.adj": "skip"}


def test_script_style_repository_without_packages(tmp_path, write_tree, monkeypatch) -> None:
    """No __init__.py, no marker: the directory is the project; `from layers import X` resolves."""
    files = {
        "layers.py": HELPER_AND_CALL_SITE["graphs/layers.py"],
        "net.py": HELPER_AND_CALL_SITE["graphs/nets/net.py"].replace("graphs.layers", "layers"),
    }
    root = write_tree(tmp_path / "scripts", files)
    (root / ".git").mkdir()
    whole = assert_same_answer_from_any_path(root, monkeypatch)
    assert _actions(whole, "layers.py") == {"GraphConv.adj": "buffer"}


def test_a_folder_imported_from_a_script_folder_below_the_root(tmp_path, write_tree, monkeypatch) -> None:
    """task/src/main.py imports `config.classes` as Python does when it runs the script from
    task/src (no __init__.py anywhere): the constant there is a tensor, so the loss that keeps
    what main hands it keeps a tensor.  A second task folder has its own copy, which the first
    task's script never reads."""
    loss = (
        "import torch\n\n\n"
        "class ContextLoss(torch.nn.Module):\n"
        "    def __init__(self, K):\n"
        "        super().__init__()\n"
        "        self.K = K\n\n"
        "    def forward(self, x):\n"
        "        return x * self.K[0]\n"
    )
    main = (
        "from config.classes import K_TABLE\n"
        "from loss import ContextLoss\n\n\n"
        "def main(rate):\n"
        "    return ContextLoss(K_TABLE * rate)\n"
    )
    files = {
        "task-a/src/config/classes.py": "import torch\n\nK_TABLE = torch.FloatTensor([[1.0, 2.0], [3.0, 4.0]])\n",
        "task-a/src/loss.py": loss,
        "task-a/src/main.py": main,
        "task-b/src/config/classes.py": "K_TABLE = [[1.0, 2.0], [3.0, 4.0]]\n",
        "task-b/src/loss.py": loss,
        "task-b/src/main.py": main,
    }
    root = write_tree(tmp_path / "repo", files)
    (root / ".git").mkdir()
    whole = assert_same_answer_from_any_path(root, monkeypatch)
    assert _actions(whole, "task-a/src/loss.py") == {"ContextLoss.K": "buffer"}
    assert _actions(whole, "task-b/src/loss.py") == {}


def test_a_star_import_of_a_package_that_star_imports_its_submodules(tmp_path, write_tree, monkeypatch) -> None:
    """`from layers import *` where layers/__init__.py itself does `from .functions import *`:
    the names of layers/functions reach the model's module, so the plain prior-box object
    there is typed, and so is the tensor its forward() returns."""
    files = {
        "layers/__init__.py": "from .functions import *\n",
        "layers/functions/__init__.py": "from .prior_box import PriorBox\n\n__all__ = ['PriorBox']\n",
        "layers/functions/prior_box.py": (
            "import torch\n\n\n"
            "class PriorBox(object):\n"
            "    def __init__(self, n):\n"
            "        self.n = n\n\n"
            "    def forward(self):\n"
            "        return torch.Tensor([0.5] * 4 * self.n).view(-1, 4).clamp_(max=1, min=0)\n"
        ),
        "models/detector.py": (
            "import torch\n"
            "import torch.nn as nn\n\n"
            "from layers import *\n\n\n"
            "class Detector(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.priorbox = PriorBox(n)\n"
            "        with torch.no_grad():\n"
            "            self.priors = self.priorbox.forward()\n\n"
            "    def forward(self, x):\n"
            "        return x + self.priors\n"
        ),
    }
    root = write_tree(tmp_path / "repo", files)
    (root / ".git").mkdir()
    whole = assert_same_answer_from_any_path(root, monkeypatch)
    assert _actions(whole, "models/detector.py") == {"Detector.priors": "buffer"}


def test_excluded_files_are_neither_reported_nor_indexed(tmp_path, write_tree, monkeypatch) -> None:
    root = write_tree(tmp_path / "repo", BASE_WITH_NUMPY_SUBCLASS)
    monkeypatch.chdir(root)
    options = static(excludes=("pkg/sub.py",))
    whole = by_file(run(["."], options))
    assert "pkg/sub.py" not in whole
    assert by_file(run(["pkg/base.py"], options)) == {"pkg/base.py": whole["pkg/base.py"]}


def test_a_named_file_outside_the_walk_is_indexed_too(tmp_path, write_tree, monkeypatch) -> None:
    """A file git ignores, named explicitly, is analysed as asked and seen by the others."""
    root = write_tree(tmp_path / "repo", {**BASE_WITH_NUMPY_SUBCLASS, ".gitignore": "pkg/sub.py\n"})
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    assert "pkg/sub.py" not in by_file(run(["."], static()))
    both = by_file(run(["pkg/base.py", "pkg/sub.py"], static()))
    assert _actions(both, "pkg/base.py") == {"Base.table": "skip"}


# -- the project root ---------------------------------------------------------------------------


@pytest.mark.parametrize("marker", ["pyproject.toml", "setup.cfg", "setup.py", ".git"])
def test_project_root_markers(tmp_path: Path, marker: str) -> None:
    (tmp_path / marker).mkdir() if marker == ".git" else (tmp_path / marker).write_text("")
    deep = tmp_path / "src" / "pkg" / "sub"
    deep.mkdir(parents=True)
    assert find_project_root([deep / "m.py"]) == tmp_path


def test_project_root_without_marker_is_the_import_root(tmp_path: Path) -> None:
    if any((p / m).exists() for p in tmp_path.parents for m in ("pyproject.toml", "setup.cfg", "setup.py", ".git")):
        pytest.skip("the temporary directory lies inside a project")
    deep = tmp_path / "top" / "pkg" / "sub"
    deep.mkdir(parents=True)
    for package in (tmp_path / "top" / "pkg", deep):
        (package / "__init__.py").write_text("")
    assert find_project_root([deep / "m.py"]) == tmp_path / "top"


# -- the per-file cache serves single-file runs ----------------------------------------------------


def test_single_file_run_reuses_the_whole_project_cache(tmp_path, write_tree, monkeypatch) -> None:
    root = write_tree(tmp_path / "repo", HELPER_AND_CALL_SITE)
    monkeypatch.chdir(root)
    cached = static(use_cache=True)
    whole = by_file(run(["."], cached))
    # Only a file with a rewrite is analysed again (what is written never comes from the cache).
    rewritten = {shown for shown, (_, text, _) in whole.items() if text is not None}
    assert rewritten and rewritten != set(whole)
    real = runner._analyse_path

    def only_rewrites(index, path, shown, *args, **kwargs):
        if shown not in rewritten:
            raise AssertionError("analysed again although nothing changed")
        return real(index, path, shown, *args, **kwargs)

    monkeypatch.setattr(runner, "_analyse_path", only_rewrites)
    for shown, expected in whole.items():
        assert by_file(run([shown], cached)) == {shown: expected}


def test_cached_single_file_result_follows_changes_in_other_files(tmp_path, write_tree, monkeypatch) -> None:
    files = {**BASE_WITH_NUMPY_SUBCLASS, "pkg/sub.py": BASE_WITH_NUMPY_SUBCLASS["pkg/sub.py"].replace("np.zeros(n)", "None")}
    root = write_tree(tmp_path / "repo", files)
    monkeypatch.chdir(root)
    cached = static(use_cache=True)
    first = by_file(run(["."], cached))
    assert _actions(first, "pkg/base.py") == {"Base.table": "buffer"}
    write_tree(root, {"pkg/sub.py": BASE_WITH_NUMPY_SUBCLASS["pkg/sub.py"]})  # now binds numpy
    assert _actions(by_file(run(["pkg/base.py"], cached)), "pkg/base.py") == {"Base.table": "skip"}
    assert by_file(run(["pkg/base.py"], cached)) == by_file(run(["pkg/base.py"], static()))


# -- real corpora: every file alone gives what the whole-repository run gives -------------------


def _benchmark_module():
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("run_benchmark_for_project_index", REPO_ROOT / "benchmarks" / "run_benchmark.py")
    module = importlib.util.module_from_spec(spec)
    old, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = old
    return module


def _single_file_run(shown: str) -> dict[str, tuple]:
    return by_file(run([shown], static()))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["timm", "transformers"])
def test_every_file_alone_equals_the_whole_repository_run_on_real_corpora(name: str, tmp_path: Path, monkeypatch) -> None:
    """The corpora of the scale tests (fetched once by benchmarks/run_benchmark.py)."""
    import multiprocessing
    import os

    bench = _benchmark_module()
    source = bench.fetch_corpus(name, bench.resolve_cache_dir(None))
    project = tmp_path / "project"
    shutil.copytree(source, project / name)
    (project / "pyproject.toml").write_text("")
    monkeypatch.chdir(project)
    whole = by_file(run([name], static(jobs=None)))
    assert len(whole) > 250
    assert any(findings for _, _, findings in whole.values())
    shown = sorted(whole)
    with multiprocessing.get_context("fork").Pool(os.cpu_count() or 1) as pool:
        singles = pool.map(_single_file_run, shown, chunksize=8)
    mismatches = [path for path, single in zip(shown, singles) if single != {path: whole[path]}]
    assert not mismatches, f"{len(mismatches)} file(s) differ alone, e.g. {mismatches[:5]}"


def test_standard_input_is_decided_with_the_whole_project(tmp_path, write_tree, monkeypatch) -> None:
    """`codemod run --stdin-filename pkg/base.py -` (editors): the subclass on disk is seen."""
    import subprocess
    import sys

    root = write_tree(tmp_path / "repo", BASE_WITH_NUMPY_SUBCLASS)
    source = (root / "pkg" / "base.py").read_text()
    completed = subprocess.run(
        [sys.executable, "-m", "codemod", "run", "--no-validate", "--unsafe-fixes", "--check", "--stdin-filename", "pkg/base.py", "-"],
        input=source, cwd=root, capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "pkg/base.py:8:9: Base.table skipped: bound to a non-tensor in subclass Sub.__init__" in completed.stdout


def test_star_imports_reaching_a_module_by_many_paths_search_each_file_once(tmp_path) -> None:
    """Twelve layers of modules, each star-importing both modules of the next layer: 2**12
    paths lead to the last one.  Looking up a name none of them binds reads each file once."""
    from codemod.repo_index import RepoIndex

    layers = 12
    files = {}
    for layer in range(layers):
        for side in "ab":
            body = "" if layer == layers - 1 else f"from m{layer + 1}a import *\nfrom m{layer + 1}b import *\n"
            files[f"m{layer}{side}.py"] = body + "VALUE = 1\n"
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    index = RepoIndex(sorted(tmp_path.glob("*.py")), root=tmp_path)
    searched = []
    real_text = index.text

    def counting_text(path):
        searched.append(path)
        return real_text(path)

    index.text = counting_text  # type: ignore[method-assign]
    assert not index._may_export("m0a", "missing_name", None)
    assert len(searched) == len(set(searched)) <= 2 * layers
    assert index._may_export("m0a", "VALUE", None)


def test_a_syntax_error_met_in_another_file_is_that_files_and_this_one_is_analysed_without_it(tmp_path, monkeypatch) -> None:
    # The analysis of one file parses parts of others on demand (a caller's class, read to type
    # an argument); one that does not parse raised, and its syntax error was reported as the
    # error of the file being analysed.  Here the first analysis meets it; the index then
    # forgets the other file and the analysis runs again.
    from codemod import api
    from codemod.repo_index import RepoIndex

    clean = tmp_path / "kernel.py"
    clean.write_text("x = 1\n")
    broken = tmp_path / "pose.py"
    broken.write_text("def f(async=True):\n    pass\n")
    calls: list[Path] = []
    real = api.analyse_text

    def analyse_text(index, path, text, shown, options):
        calls.append(path)
        if len(calls) == 1:
            raise SyntaxError("invalid syntax", (str(broken), 1, 7, "def f(async=True):"))
        assert index.symbols_for_path(broken) is None  # forgotten: a file the index cannot read
        return real(index, path, text, shown, options)

    monkeypatch.setattr(api, "analyse_text", analyse_text)
    index = RepoIndex([clean, broken], root=tmp_path)
    analysis = runner._analyse_path(index, clean, "kernel.py", RunOptions(write=False, validate=False))
    assert calls == [clean, clean]
    assert analysis.result.error is None, analysis.result.error


def test_a_caller_file_that_does_not_parse_leaves_no_half_built_memo_behind(tmp_path, monkeypatch) -> None:
    # The cell's argument is typed from its calls in the parent's constructor; typing the
    # parent's own argument reads train.py, whose function body (parsed on demand) does not
    # parse.  The error unwound the search in the middle, and its recursion guard ("nothing
    # typed") stayed in the memo: the analysis run again without train.py said nothing about
    # the cell's tensor, where a run that never met train.py reports it.
    model = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "class Cell(nn.Module):\n"
        "    def __init__(self, n, x_mean=None):\n"
        "        super().__init__()\n"
        "        if x_mean is not None:\n"
        "            self.x_mean = x_mean\n"
        "        self.lin = nn.Linear(n, n)\n\n"
        "    def forward(self, x):\n"
        "        return self.lin(x - self.x_mean)\n\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self, n, x_mean):\n"
        "        super().__init__()\n"
        "        self.x_mean = torch.tensor(x_mean)\n"
        "        self.a = Cell(n, self.x_mean)\n"
        "        self.b = Cell(n)\n\n"
        "    def forward(self, x):\n"
        "        return self.b(self.a(x))\n"
    )
    (tmp_path / "model.py").write_text(model)
    (tmp_path / "train.py").write_text(
        "from model import Net\n\n\n"
        "def train(n, means):\n"
        "    def loss(a, b):\n"
        "        for t in zip(a, b)\n"
        "            pass\n"
        "    return Net(n, means)\n"
    )
    monkeypatch.chdir(tmp_path)
    answer = by_file(run(["."], static()))
    error, _, findings = answer["model.py"]
    assert error is None, error
    assert {f"{f['class']}.{f['attribute']}" for f in findings} == {"Cell.x_mean", "Net.x_mean"}
    # the same answer as a run that never saw train.py
    (tmp_path / "train.py").unlink()
    assert by_file(run(["."], static()))["model.py"][2] == findings
