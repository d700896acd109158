"""Parallel analysis and the result cache: same results, whatever the jobs and the cache state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli_support import tool_env
from codemod.cli import main
from codemod.runner import RunOptions, RunReport, run

REPO_ROOT = Path(__file__).resolve().parents[1]

BASE = """\
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.norm = nn.LayerNorm(size)

    def _table(self, size):
        return torch.arange(size).float()
"""

UTILS = """\
import torch


def make_mask(size):
    return torch.tril(torch.ones(size, size, dtype=torch.bool))
"""

CONFIG = """\
import torch


class Config:
    def __init__(self):
        self.weights = torch.ones(3)
"""

# Model files of several shapes: buffers, random buffers, parameters, skips, helpers, bases in other files.
VARIANTS = [
    """\
import torch
from torch import nn


class Model{i}(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.proj = nn.Linear(size, size)
        self.mask = torch.ones(size)
{extra}""",
    """\
import torch
from .base import Base


class Model{i}(Base):
    def __init__(self, size=4):
        super().__init__(size)
        self.noise = torch.randn(size) * 0.1
        self.positions = self._table(size)
{extra}""",
    """\
import torch
import torch.nn as nn
from .utils import make_mask


class Model{i}(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.mask = make_mask(size)
        self.scale = torch.ones(size, requires_grad=True)
        self.pair = [torch.ones(2), torch.zeros(2)]
{extra}""",
    """\
import torch
from .model_{prev} import Model{prev}


class Model{i}(Model{prev}):
    def __init__(self, size=4):
        super().__init__(size)
        self.table = torch.zeros(size, size)
{extra}""",
    """\
import torch
from .config import Config


class Holder{i}(Config):
    def __init__(self):
        super().__init__()
        self.extra = torch.zeros(2)
{extra}""",
]

FORWARD = """
    def forward_{k}(self, x):
        y = x * {k}
        for _ in range({k}):
            y = y + 1
        return y
"""


def model_source(i: int) -> str:
    variant = VARIANTS[i % len(VARIANTS)]
    extra = "".join(FORWARD.format(k=k) for k in range((i * 7) % 6))  # sizes differ from the file order
    return variant.format(i=i, prev=i - 1, extra=extra)


def make_repository(root: Path, models: int) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "zoo"\nversion = "0"\n')
    pkg = root / "zoo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(BASE)
    (pkg / "utils.py").write_text(UTILS)
    (pkg / "config.py").write_text(CONFIG)
    for i in range(models):
        (pkg / f"model_{i}.py").write_text(model_source(i))
    # A subclass in another file that rebinds a base attribute to a non-tensor.
    (pkg / "zz_override.py").write_text(
        "from .model_0 import Model0\n\n\nclass Override(Model0):\n    def __init__(self):\n        super().__init__()\n        self.mask = 1.0\n"
    )
    return root


def comparable(report: RunReport) -> list:
    return [
        (r.display_path, r.error, r.rewritten if r.changed else None, [f.to_json() for f in r.findings])
        for r in report.files
    ] + [("errors", report.errors, None, None), ("summary", report.summary.line(), None, None)]


def analyse(root: Path, **options) -> RunReport:
    options.setdefault("jobs", 1)
    options.setdefault("use_cache", False)
    return run([root], RunOptions(write=False, validate=False, unsafe_fixes=True, root=root, **options))


class Spy:
    """Counts analyses done in this process (the cache's misses, with jobs=1)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.paths: list[str] = []
        import codemod.api  # the runner calls the analysis through there

        real = codemod.api.analyse_text

        def counting(index, path, text, display_path, options):
            self.paths.append(display_path)
            return real(index, path, text, display_path, options)

        monkeypatch.setattr(codemod.api, "analyse_text", counting)


@pytest.fixture
def zoo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_repository(tmp_path / "zoo_repo", models=44)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_repository(tmp_path / "small_repo", models=5)
    monkeypatch.chdir(root)
    return root


def rewritten(report: RunReport) -> list[str]:
    """The files with a rewrite: a warm run analyses them again (what is written never
    comes from the cache), and only them."""
    return [r.display_path for r in report.files if r.changed]


def finding(report: RunReport, class_name: str, attribute: str):
    matches = [f for f in report.findings if (f.class_name, f.attribute) == (class_name, attribute)]
    assert len(matches) <= 1
    return matches[0] if matches else None


# -- jobs -----------------------------------------------------------------------------------------


def test_jobs_1_and_2_give_identical_results_in_the_same_order(zoo: Path, monkeypatch: pytest.MonkeyPatch):
    import concurrent.futures  # the runner imports its pool from there when it needs one

    pools = []
    real_pool = concurrent.futures.ProcessPoolExecutor

    class RecordingPool(real_pool):
        def __init__(self, workers, *args, **kwargs):
            pools.append(workers)
            super().__init__(workers, *args, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", RecordingPool)
    serial = analyse(zoo, jobs=1)
    assert pools == []
    parallel = analyse(zoo, jobs=2)
    assert pools == [2], "the run with jobs=2 did not use two workers"

    assert len(serial.files) >= 40
    assert [r.display_path for r in serial.files] == sorted(r.display_path for r in serial.files)
    assert comparable(parallel) == comparable(serial)
    # The repository is not trivial: every kind of result is there.
    actions = {f.action.value for f in serial.findings}
    assert actions == {"buffer", "parameter", "skip"}
    override = finding(serial, "Model0", "mask")
    assert override.action.value == "skip" and "Override" in override.reason
    assert not [f for f in serial.findings if f.class_name.startswith("Holder")]


def test_jobs_through_the_command_line(zoo: Path):
    one = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", "--check", "--jobs", "1", "."])
    two = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", "--check", "-j", "2", "."])
    assert one.exit_code == two.exit_code == 1
    assert one.stdout == two.stdout
    assert len(one.stdout.splitlines()) > 40


def test_parallel_write_run_rewrites_every_file_once(zoo: Path):
    expected = {r.path: r.rewritten for r in analyse(zoo).files if r.changed}
    report = run([zoo], RunOptions(write=True, validate=False, unsafe_fixes=True, jobs=2, use_cache=False, root=zoo))
    assert not report.has_errors
    for path, text in expected.items():
        assert path.read_text() == text
    assert analyse(zoo, jobs=2).changed_files == []


# -- warm and cold --------------------------------------------------------------------------------


def test_warm_run_gives_the_same_results_as_a_cold_run(zoo: Path, monkeypatch: pytest.MonkeyPatch):
    cache_home = Path(os.environ["CODEMOD_CACHE_DIR"])
    cold = analyse(zoo, use_cache=False)
    assert not list(cache_home.glob(f"{zoo.name}-*"))
    filling = analyse(zoo, use_cache=True, jobs=2)
    # The cache lives outside the repository, as JSON data.
    (project,) = cache_home.glob(f"{zoo.name}-*")
    assert [p.name for p in project.glob("*.json")] and (project / "CACHEDIR.TAG").is_file()
    assert not (zoo / ".codemod").exists()
    spy = Spy(monkeypatch)
    warm = analyse(zoo, use_cache=True)
    assert spy.paths == rewritten(cold), "a warm run over unchanged files analysed more than the files with a rewrite"
    assert 0 < len(spy.paths) < len(cold.files)
    assert comparable(filling) == comparable(cold)
    assert comparable(warm) == comparable(cold)
    # The diffs printed from cached results are the same too.
    from codemod.report import unified_diff

    assert [unified_diff(r) for r in warm.changed_files] == [unified_diff(r) for r in cold.changed_files]


def test_cached_paths_follow_the_working_directory(zoo: Path, monkeypatch: pytest.MonkeyPatch):
    analyse(zoo, use_cache=True)
    monkeypatch.chdir(zoo / "zoo")
    spy = Spy(monkeypatch)
    warm = analyse(zoo, use_cache=True)
    assert spy.paths == rewritten(warm)
    cold = analyse(zoo, use_cache=False)
    assert comparable(warm) == comparable(cold)
    assert warm.findings[0].path.startswith("model_")


# -- invalidation ---------------------------------------------------------------------------------


def test_cache_invalidated_when_a_file_changes(small: Path, monkeypatch: pytest.MonkeyPatch):
    first = analyse(small, use_cache=True, persistent="state")
    assert finding(first, "Model1", "noise").persistent is True
    target = small / "zoo" / "model_1.py"
    target.write_text(target.read_text().replace("torch.randn(size) * 0.1", "torch.full((size,), 0.5)"))
    spy = Spy(monkeypatch)
    second = analyse(small, use_cache=True, persistent="state")
    assert "zoo/model_1.py" in spy.paths
    changed = finding(second, "Model1", "noise")
    assert (changed.action.value, changed.persistent) == ("buffer", False)
    assert 'self.register_buffer("noise", torch.full((size,), 0.5), persistent=False)' in next(
        r.rewritten for r in second.files if r.display_path == "zoo/model_1.py"
    )
    assert comparable(second) == comparable(analyse(small, persistent="state"))


def test_cache_sees_an_edit_that_keeps_size_and_mtime(small: Path):
    """On a file system with 1-second timestamps, a run and a same-size edit within one second
    leave size and mtime as the cache recorded them ("racy" entries, as git calls them)."""
    target = small / "zoo" / "model_1.py"
    now = time.time()
    if now % 1 > 0.7:
        time.sleep(1.05 - now % 1)
    second_ns = int(time.time()) * 1_000_000_000  # the file's mtime, truncated to the current second
    os.utime(target, ns=(second_ns, second_ns))
    first = analyse(small, use_cache=True, persistent="state")
    assert finding(first, "Model1", "noise").persistent is True
    text = target.read_text()
    edited = text.replace("torch.randn(size) * 0.1", "torch.zeros(size) * 0.1")
    assert edited != text and len(edited) == len(text)
    target.write_text(edited)
    os.utime(target, ns=(second_ns, second_ns))
    second = analyse(small, use_cache=True, persistent="state")
    assert finding(second, "Model1", "noise").persistent is False, "stale cached result for an edited file"
    assert comparable(second) == comparable(analyse(small, persistent="state"))


def test_cache_invalidated_when_a_dependency_changes(small: Path, monkeypatch: pytest.MonkeyPatch):
    first = analyse(small, use_cache=True)
    assert finding(first, "Model1", "noise").action.value == "buffer"
    assert finding(first, "Model3", "table").action.value == "buffer"
    base = small / "zoo" / "base.py"
    base.write_text(BASE.replace("class Base(nn.Module):", "class Base(object):"))
    spy = Spy(monkeypatch)
    second = analyse(small, use_cache=True)
    assert "zoo/model_1.py" in spy.paths
    assert finding(second, "Model1", "noise") is None
    assert finding(second, "Model1", "positions") is None
    # model_3 inherits from model_2 (an nn.Module), not from base: unchanged.
    assert finding(second, "Model3", "table").action.value == "buffer"
    assert comparable(second) == comparable(analyse(small))

    base.write_text(BASE)
    third = analyse(small, use_cache=True)
    assert comparable(third) == comparable(first)


def test_cache_invalidated_when_a_helper_in_another_file_changes(small: Path):
    first = analyse(small, use_cache=True)
    assert finding(first, "Model2", "mask").action.value == "buffer"
    (small / "zoo" / "utils.py").write_text("def make_mask(size):\n    return [[1] * size] * size\n")
    second = analyse(small, use_cache=True)
    assert finding(second, "Model2", "mask") is None
    assert comparable(second) == comparable(analyse(small))


def test_cache_invalidated_when_a_transitive_base_changes(small: Path):
    first = analyse(small, use_cache=True)
    assert finding(first, "Model3", "table").action.value == "buffer"
    (small / "zoo" / "model_2.py").write_text(model_source(2).replace("(nn.Module)", "(object)"))
    second = analyse(small, use_cache=True)
    assert finding(second, "Model3", "table") is None
    assert comparable(second) == comparable(analyse(small))


def test_cache_invalidated_when_the_persistent_option_changes(small: Path):
    default = analyse(small, use_cache=True)
    state = analyse(small, use_cache=True, persistent="state")
    assert comparable(state) == comparable(analyse(small, persistent="state"))
    assert comparable(state) != comparable(default)
    assert finding(state, "Model1", "noise").persistent is True
    never = analyse(small, use_cache=True, persistent="never")
    assert finding(never, "Model1", "noise").persistent is False
    assert comparable(analyse(small, use_cache=True)) == comparable(default)


def test_cache_invalidated_when_the_tool_changes(small: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import codemod
    from codemod.cache import tool_fingerprint

    analyse(small, use_cache=True)
    spy = Spy(monkeypatch)
    warm = analyse(small, use_cache=True)
    assert spy.paths == rewritten(warm)  # warm: only the files with a rewrite analysed again
    assert "zoo/utils.py" not in spy.paths
    spy.paths.clear()
    # A new version of the tool: every file is analysed again.
    monkeypatch.setattr(codemod, "__version__", codemod.__version__ + ".post1")
    analyse(small, use_cache=True)
    assert "zoo/utils.py" in spy.paths
    # The same version with edited code (an editable install, a patched checkout) too.
    package = tmp_path / "package"
    shutil.copytree(Path(codemod.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(codemod, "__file__", str(package / "__init__.py"))
    before = tool_fingerprint("key")
    assert tool_fingerprint("key") == before
    (package / "rewrite.py").write_text((package / "rewrite.py").read_text() + "\n# edited\n")
    assert tool_fingerprint("key") != before


def test_cache_invalidated_when_the_prefilter_option_changes(small: Path, monkeypatch: pytest.MonkeyPatch):
    analyse(small, use_cache=True, prefilter=True)
    spy = Spy(monkeypatch)
    analyse(small, use_cache=True, prefilter=False)
    assert len(spy.paths) == len(list(small.rglob("*.py")))


def test_cache_invalidated_when_a_file_is_added(small: Path, monkeypatch: pytest.MonkeyPatch):
    first = analyse(small, use_cache=True)
    assert finding(first, "Model2", "mask").action.value == "buffer"
    # A subclass in a new file rebinds the attribute: the base's rewrite would break it.
    (small / "zoo" / "new_sub.py").write_text(
        "from .model_2 import Model2\n\n\nclass Sub(Model2):\n    def __init__(self):\n        super().__init__()\n        self.mask = None if self.training else 'off'\n"
    )
    second = analyse(small, use_cache=True)
    assert finding(second, "Model2", "mask").action.value == "skip"
    assert comparable(second) == comparable(analyse(small))


def test_cache_invalidated_when_a_missing_module_appears(small: Path, write_tree):
    write_tree(small, {"zoo/late.py": "import torch\nfrom .later_base import LaterBase\n\n\nclass Late(LaterBase):\n    def __init__(self):\n        super().__init__()\n        self.ids = torch.arange(3)\n"})
    first = analyse(small, use_cache=True)
    assert finding(first, "Late", "ids") is None
    write_tree(small, {"zoo/later_base.py": "from torch import nn\n\n\nclass LaterBase(nn.Module):\n    pass\n"})
    second = analyse(small, use_cache=True)
    assert finding(second, "Late", "ids").action.value == "buffer"


def test_cache_invalidated_when_a_subclass_in_another_file_changes(small: Path):
    first = analyse(small, use_cache=True)
    assert finding(first, "Model0", "mask").action.value == "skip"
    override = small / "zoo" / "zz_override.py"
    override.write_text(override.read_text().replace("self.mask = 1.0", "self.mask = torch.zeros(4)").replace("from .model_0", "import torch\nfrom .model_0"))
    second = analyse(small, use_cache=True)
    assert finding(second, "Model0", "mask").action.value == "buffer"
    assert comparable(second) == comparable(analyse(small))


def test_cache_invalidated_when_a_subclass_is_added_to_an_existing_file(small: Path):
    first = analyse(small, use_cache=True)
    assert finding(first, "Model2", "mask").action.value == "buffer"
    other = small / "zoo" / "model_4.py"
    other.write_text(
        other.read_text()
        + "\n\nfrom .model_2 import Model2\n\n\nclass Late(Model2):\n    def __init__(self):\n        super().__init__()\n        self.mask = 'none'\n"
    )
    second = analyse(small, use_cache=True)
    assert finding(second, "Model2", "mask").action.value == "skip"
    assert comparable(second) == comparable(analyse(small))


def test_cache_invalidated_when_a_file_is_deleted(small: Path):
    first = analyse(small, use_cache=True)
    assert finding(first, "Model0", "mask").action.value == "skip"
    (small / "zoo" / "zz_override.py").unlink()
    second = analyse(small, use_cache=True)
    assert finding(second, "Model0", "mask").action.value == "buffer"
    assert comparable(second) == comparable(analyse(small))


@pytest.mark.parametrize(
    ("model", "script", "before", "after"),
    [
        # BUF218: a pruning script hands the table, read through the model, to .numpy()
        ("import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
         "        super().__init__()\n        self.table = torch.zeros(4, 2)\n\n    def forward(self, x):\n"
         "        return x @ self.table\n",
         "import torch\n\n\ndef prune(net, i):\n    return torch.argmax(net.module.table[i], dim=1).numpy()\n",
         ("skip", "BUF218"), ("buffer", "BUF101")),
        # BUF313: a decoder fills the slot through another object
        ("import torch.nn.functional as F\nfrom torch import nn\n\n\nclass Norm(nn.Module):\n    def __init__(self):\n"
         "        super().__init__()\n        self.weight = None\n\n    def forward(self, x):\n"
         "        return F.linear(x, self.weight)\n",
         "def decode(norm, style):\n    norm.weight = style[:, 0]\n",
         ("skip", "BUF313"), None),
    ],
)
def test_cache_invalidated_when_another_file_stops_reading_or_filling_the_attribute(tmp_path: Path, model, script, before, after):
    """What these rules decide reads every file of the run: a cached report must not outlive the
    script that made it."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text(model)
    (root / "pkg" / "script.py").write_text(script)

    def decision(report: RunReport):
        found = [f for f in report.findings if f.path.endswith("model.py")]
        return (found[0].action.value, found[0].code) if found else None

    assert decision(analyse(root, use_cache=True)) == before
    (root / "pkg" / "script.py").write_text("def unrelated():\n    return 1\n")
    assert decision(analyse(root, use_cache=True)) == after == decision(analyse(root))


# -- --no-cache and broken caches -------------------------------------------------------------------


def cache_file(root: Path) -> Path:
    """The project's cache file, in the cache directory (outside the repository)."""
    from codemod.cache import cache_base, project_directory

    (found,) = project_directory(cache_base(), root).glob("analysis-*.json")
    return found


def test_no_cache_writes_no_codemod_directory(small: Path):
    from codemod.cache import cache_base, project_directory

    project = project_directory(cache_base(), small)
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--no-cache", "."])
    assert result.exit_code == 0, result.output
    assert not (small / ".codemod").exists() and not project.exists()
    written = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", "."])
    assert written.exit_code == 0
    assert not (small / ".codemod").exists() and not project.exists()
    # The default does use a cache, outside the repository: a dry run writes nothing into it.
    cached = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--dry-run", "."])
    assert cached.exit_code == 0
    assert json.loads(cache_file(small).read_text())["entries"]
    assert not (small / ".codemod").exists()


def test_cache_disabled_in_config(small: Path):
    from codemod.cache import cache_base, project_directory

    project = project_directory(cache_base(), small)
    with open(small / "pyproject.toml", "a") as handle:
        handle.write("\n[tool.codemod]\ncache = false\n")
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--check", "."])
    assert result.exit_code == 1
    assert not project.exists()
    CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--check", "--cache", "."])
    assert project.exists()


def _corruptions(data: bytes) -> dict[str, bytes]:
    assert data.startswith(b'{"format":') and b"repository_digest" in data
    middle = len(data) // 2
    return {
        "garbage": b"this is not json at all\n" * 10,
        "empty": b"",
        "truncated": data[:middle],
        "renamed field": data.replace(b"repository_digest", b"repository_digesT", 1),
        "flipped byte in the middle": data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :],
        "deeply nested": b"[" * 200_000 + b"]" * 200_000,
        "not utf-8": b"\xff\xfe" + data,
    }


CORRUPTION_NAMES = ["garbage", "empty", "truncated", "renamed field", "flipped byte in the middle", "deeply nested", "not utf-8"]


@pytest.mark.parametrize("kind", CORRUPTION_NAMES)
def test_corrupted_cache_file_is_ignored(small: Path, kind: str):
    reference = comparable(analyse(small))
    analyse(small, use_cache=True)
    path = cache_file(small)
    path.write_bytes(_corruptions(path.read_bytes())[kind])
    again = analyse(small, use_cache=True)
    assert comparable(again) == reference
    # And the cache is usable afterwards.
    assert comparable(analyse(small, use_cache=True)) == reference
    assert isinstance(json.loads(cache_file(small).read_text())["entries"], dict)


def test_cache_file_of_the_wrong_shape_is_ignored(small: Path):
    reference = comparable(analyse(small))
    analyse(small, use_cache=True)
    path = cache_file(small)
    data = json.loads(path.read_text())
    entries = data["entries"]
    for bad in ([1, 2, 3], {key: ["not", "an", "entry"] for key in entries}, {key: None for key in entries}):
        path.write_text(json.dumps(dict(data, entries=bad)))
        assert comparable(analyse(small, use_cache=True)) == reference
        path.write_text(json.dumps(bad))
        assert comparable(analyse(small, use_cache=True)) == reference


def test_unwritable_cache_directory_does_not_fail_the_run(small: Path, tmp_path: Path):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory should be\n")
    report = analyse(small, use_cache=True, cache_dir=blocked)
    assert comparable(report) == comparable(analyse(small))


def test_subset_and_whole_project_runs_share_entries(small: Path, monkeypatch: pytest.MonkeyPatch):
    whole = analyse(small, use_cache=True)
    names = ("__init__.py", "base.py", "config.py", "model_1.py", "model_2.py", "utils.py")
    subset_files = [small / "zoo" / name for name in names]

    def subset(use_cache: bool) -> RunReport:
        return run(subset_files, RunOptions(write=False, validate=False, unsafe_fixes=True, root=small, jobs=1, use_cache=use_cache))

    spy = Spy(monkeypatch)
    shared = subset(True)
    # Entries are per file: those whose analysis did not search the whole project (for
    # subclasses or call sites, which the subset changes) came from the whole run's cache.
    assert "zoo/base.py" not in spy.paths and "zoo/utils.py" not in spy.paths
    assert set(spy.paths) < {f"zoo/{name}" for name in names}
    assert comparable(shared) == comparable(subset(False))
    # And the whole project again: still correct after the subset run updated the cache.
    assert comparable(analyse(small, use_cache=True)) == comparable(whole)


# -- concurrent runs -----------------------------------------------------------------------------------


def _spawn(root: Path, *args: str) -> subprocess.Popen:
    env = tool_env()
    return subprocess.Popen(
        [sys.executable, "-m", "codemod", "run", "--no-validate", "--unsafe-fixes", "--dry-run", "--format", "json", *args, "."],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _findings(stdout: str) -> list:
    """The findings of a JSON report, without what only a run knows (whether it would write them)."""
    return [{k: v for k, v in f.items() if k != "would_be_written"} for f in json.loads(stdout)["findings"]]


def _expected_json(root: Path, persistent: str = "never") -> list:
    report = analyse(root, persistent=persistent)
    return [f.to_json() for f in report.findings]


def test_two_concurrent_runs_leave_a_readable_cache_and_correct_results(zoo: Path, monkeypatch: pytest.MonkeyPatch):
    expected = _expected_json(zoo)
    for _ in range(2):
        first = _spawn(zoo, "--jobs", "1")
        second = _spawn(zoo, "--jobs", "1")
        outputs = [p.communicate(timeout=300) for p in (first, second)]
        for process, (stdout, stderr) in zip((first, second), outputs):
            assert process.returncode == 0, stderr
            assert _findings(stdout) == expected
    caches = list(cache_file(zoo).parent.glob("analysis-*.json"))
    assert len(caches) == 1
    assert isinstance(json.loads(caches[0].read_text())["entries"], dict)
    assert not list(caches[0].parent.glob(".*codemod-tmp*")), "temporary cache files left behind"
    spy = Spy(monkeypatch)
    warm = analyse(zoo, use_cache=True)
    assert spy.paths == rewritten(warm)
    assert [f.to_json() for f in warm.findings] == expected


def test_concurrent_runs_with_different_options(zoo: Path):
    default, state = _expected_json(zoo), _expected_json(zoo, "state")
    assert default != state
    first = _spawn(zoo, "--jobs", "2")
    second = _spawn(zoo, "--jobs", "1", "--persistent", "state")
    (out1, err1), (out2, err2) = first.communicate(timeout=300), second.communicate(timeout=300)
    assert first.returncode == 0, err1
    assert second.returncode == 0, err2
    assert _findings(out1) == default
    assert _findings(out2) == state
    assert [f.to_json() for f in analyse(zoo, use_cache=True).findings] == default
    assert [f.to_json() for f in analyse(zoo, use_cache=True, persistent="state").findings] == state
