"""Zero-setup validation: classes nobody wrote an example for, imports that work, speed.

Each end-to-end test writes a small repository, hands hand-written rewrites to
``validate_rewrites`` (or runs the whole tool) and reads the verdicts.
"""

from __future__ import annotations

import dataclasses

import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from torch import nn

from codemod.ftypes import Action, ClassRewrite, Finding, Verdict
from codemod.validate import ValidationOptions, validate_rewrites, worker_pairs
from codemod.validate import imports, runner, synth


def _finding(cls: str, attribute: str, action: str = "buffer", persistent: bool | None = False) -> Finding:
    return Finding("x.py", 1, 1, cls, attribute, Action(action), persistent if action == "buffer" else None, "raw")


def _repo(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _validate(root: Path, module_file: str, module: str, rewrites: dict[str, tuple[str, str]],
              classes: list[tuple[str, list[Finding]]], **options):
    """``rewrites``: old line -> new line in ``module_file``; validate ``classes`` of it."""
    path = root / module_file
    text = original = path.read_text("utf-8")
    for old, new in rewrites.values():
        assert old in text, old
        text = text.replace(old, new, 1)

    def at_its_line(finding: Finding) -> Finding:
        # validation checks that the rewritten statement ran: give the statement's real line
        olds = [old for old, _ in rewrites.values() if f"self.{finding.attribute} " in old]
        if not olds:
            return finding
        return dataclasses.replace(finding, line=original[: original.index(olds[0])].count("\n") + 1)

    todo = [ClassRewrite(path, module, cls, [at_its_line(f) for f in findings]) for cls, findings in classes]
    options.setdefault("device", "cpu")
    options.setdefault("timeout", 60)
    out = validate_rewrites(root, todo, {path: text}, ValidationOptions(**options))
    return {cls: out[(path, cls)] for cls, _ in classes}


def _detail(v) -> str:
    return " | ".join([v.message] + list(v.details))


# -- submodules through their parents ----------------------------------------------------------

PARENT = """
import torch
import torch.nn as nn


class Child(nn.Module):
    # nothing can be made up for `proj`: only the parent knows how to build this class
    def __init__(self, proj: nn.Module, width: int):
        super().__init__()
        self.proj = proj
        self.table = torch.arange(float(width))

    def forward(self, x):
        return self.proj(x) + self.table


class Parent(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = Child(nn.Linear(4, 4), 4)

    def forward(self, x):
        return self.child(x) * 2
"""


def test_a_submodule_is_built_and_called_as_its_parent_does(tmp_path):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": PARENT})
    line = "        self.table = torch.arange(float(width))"
    good = _validate(tmp_path, "pkg/m.py", "pkg.m",
                     {"t": (line, '        self.register_buffer("table", torch.arange(float(width)), persistent=False)')},
                     [("Child", [_finding("Child", "table")])])["Child"]
    assert good.verdict is Verdict.PASSED, _detail(good)
    assert "built with the arguments pkg.m.Parent passes to it" in _detail(good)
    assert "forward:cpu" in good.compared  # the inputs the parent's forward handed to it


WEIGHTED = """
import torch
import torch.nn as nn


class TaskWeights(nn.Module):
    def __init__(self, is_regression, reduction="sum"):
        super().__init__()
        self.is_regression = is_regression
        self.log_vars = nn.Parameter(torch.zeros(len(is_regression)))
        self.reduction = reduction

    def forward(self, losses):
        stds = torch.exp(self.log_vars) ** 0.5
        coeffs = 1 / ((self.is_regression.to(losses.dtype) + 1) * stds ** 2)
        return (coeffs * losses + torch.log(stds)).sum()


class Criterion:  # not a module: no parent build reaches TaskWeights
    def __init__(self):
        self.weights = TaskWeights(is_regression=torch.Tensor([False, True]))

    def __call__(self, a, b):
        return self.weights(torch.stack([a, b]))
"""


def test_a_class_is_built_with_the_arguments_a_call_in_the_repository_s_own_code_passes(tmp_path):
    # nothing can be made up for is_regression (len() of it): the constructor of another class
    # shows it, a float tensor
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": WEIGHTED})
    line = "        self.is_regression = is_regression"
    v = _validate(tmp_path, "pkg/m.py", "pkg.m",
                  {"t": (line, '        self.register_buffer("is_regression", is_regression, persistent=False)')},
                  [("TaskWeights", [_finding("TaskWeights", "is_regression")])])["TaskWeights"]
    assert v.verdict is Verdict.PASSED and v.forward_compared, _detail(v)
    assert v.builds == ["built as pkg/m.py:20 calls it (is_regression=tensor([False, True], float32))"], v.builds


def test_a_wrong_rewrite_of_a_submodule_built_through_its_parent_fails(tmp_path):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": PARENT})
    line = "        self.table = torch.arange(float(width))"
    bad = _validate(tmp_path, "pkg/m.py", "pkg.m",
                    {"t": (line, '        self.register_buffer("table", torch.arange(float(width)) + 1, persistent=False)')},
                    [("Child", [_finding("Child", "table")])])["Child"]
    assert bad.verdict is Verdict.FAILED, _detail(bad)


# -- made-up constructor arguments -------------------------------------------------------------

CONFIGS = """
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class ModelConfig:
    hidden_size: int = 1024
    num_heads: int = 8
    dropout: float = 0.1


class FromConfig(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        assert config.hidden_size % config.num_heads == 0
        self.lin = nn.Linear(config.hidden_size, config.hidden_size)
        self.scale = torch.tensor(config.hidden_size ** -0.5)

    def forward(self, x):
        return self.lin(x) * self.scale


class FromNames(nn.Module):
    def __init__(self, dim: int, n_heads, dropout, use_bias=True):
        super().__init__()
        self.lin = nn.Linear(dim, dim, bias=use_bias)
        self.heads = n_heads
        self.mask = torch.ones(dim) * (1 - dropout)

    def forward(self, x):
        return self.lin(x) * self.mask


class Picky(nn.Module):
    def __init__(self, dim):
        super().__init__()
        if dim % 16:
            raise ValueError("dim must be a multiple of 16")
        self.offset = torch.zeros(dim)

    def forward(self, x):
        return x + self.offset


class Unmakeable(nn.Module):
    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.encoder = encoder
        self.offset = torch.zeros(4)
"""


def test_arguments_made_up_from_annotations_config_classes_and_names(tmp_path):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/c.py": CONFIGS})
    out = _validate(
        tmp_path, "pkg/c.py", "pkg.c",
        {
            "scale": ("        self.scale = torch.tensor(config.hidden_size ** -0.5)",
                      '        self.register_buffer("scale", torch.tensor(config.hidden_size ** -0.5), persistent=False)'),
            "mask": ("        self.mask = torch.ones(dim) * (1 - dropout)",
                     '        self.register_buffer("mask", torch.ones(dim) * (1 - dropout), persistent=False)'),
            "offset": ("        self.offset = torch.zeros(dim)",
                       '        self.register_buffer("offset", torch.zeros(dim), persistent=False)'),
            "unmakeable": ("        self.offset = torch.zeros(4)",
                           '        self.register_buffer("offset", torch.zeros(4), persistent=False)'),
        },
        [("FromConfig", [_finding("FromConfig", "scale")]), ("FromNames", [_finding("FromNames", "mask")]),
         ("Picky", [_finding("Picky", "offset")]), ("Unmakeable", [_finding("Unmakeable", "offset")])],
    )
    config = out["FromConfig"]
    assert config.verdict is Verdict.PASSED, _detail(config)
    # the repository's dataclass, with its large sizes made small
    assert "config=ModelConfig(small sizes)" in _detail(config)
    assert "forward:cpu" in config.compared
    names = out["FromNames"]
    assert names.verdict is Verdict.PASSED, _detail(names)
    assert "dim=8, n_heads=2, dropout=0.0" in _detail(names)
    picky = out["Picky"]
    assert picky.verdict is Verdict.PASSED, _detail(picky)
    assert "dim=16" in _detail(picky)  # 8 raised; the next candidate built
    unmakeable = out["Unmakeable"]
    assert unmakeable.verdict is Verdict.NOT_VALIDATED
    assert unmakeable.snippet and "encoder=..." in unmakeable.snippet


def test_a_pretrained_config_subclass_is_built_with_small_sizes():
    pytest.importorskip("transformers")
    from transformers import PretrainedConfig

    class TinyConfig(PretrainedConfig):
        model_type = "tiny-test"

        def __init__(self, hidden_size=768, num_attention_heads=12, num_hidden_layers=12, vocab_size=30000, **kw):
            super().__init__(**kw)
            self.hidden_size = hidden_size
            self.num_attention_heads = num_attention_heads
            self.num_hidden_layers = num_hidden_layers
            self.vocab_size = vocab_size

    values = synth._config_values(TinyConfig)
    config, shown = values[0]
    assert shown == "TinyConfig(small sizes)"
    assert (config.hidden_size, config.num_attention_heads, config.num_hidden_layers, config.vocab_size) == (32, 2, 1, 99)


# -- made-up forward inputs --------------------------------------------------------------------


class _Tokens(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(11, 6)
        self.norm = nn.LayerNorm(6)

    def forward(self, ids, mask):
        return self.norm(self.emb(ids)) * mask.unsqueeze(-1)


class _Image(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, image):
        return self.conv(image)


class _Normed(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(5)
        self.head = nn.Linear(5, 2)

    def forward(self, hidden):
        return self.head(self.norm(hidden))


class _Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = _Image()

    def forward(self, x):
        return self.body(x).mean()


def test_inputs_made_up_from_the_first_layer_forward_uses():
    tokens = synth.input_candidates(_Tokens())[0]
    assert tokens["args"][0] == {"op": "randint", "high": 11, "shape": [2, 7]}  # Embedding: integer indices
    assert tokens["args"][1] == {"op": "ones", "shape": [2, 7]}  # a mask, by its name
    assert synth.input_candidates(_Image())[0]["args"] == [{"op": "randn", "shape": [2, 3, 16, 16]}]
    assert synth.input_candidates(_Normed())[0]["args"] == [{"op": "randn", "shape": [2, 7, 5]}]
    # one level down: the submodule's own first layer
    assert synth.input_candidates(_Outer())[0]["args"] == [{"op": "randn", "shape": [2, 3, 16, 16]}]
    for model in (_Tokens(), _Image(), _Normed(), _Outer()):
        args, kwargs = synth.make_inputs(synth.input_candidates(model)[0])
        model(*args, **kwargs)  # every made-up input runs


def test_inputs_from_forward_annotations():
    class Annotated(nn.Module):
        def forward(self, x: torch.Tensor, steps: int, scale: float):
            return x * steps * scale

    class Wide(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Sequential(nn.Linear(3, 3))

        def forward(self, x: torch.Tensor, steps: int, scale: float):
            return self.inner(x) * steps * scale

    # nothing says how large x is: the usual shapes are tried, the first that runs is kept
    candidates = synth.input_candidates(Annotated())
    assert candidates[0]["args"] == [{"op": "randn", "shape": [2, 16]}, {"op": "value", "value": 2},
                                     {"op": "value", "value": 0.5}]
    assert len(candidates) > 1
    candidate = synth.input_candidates(Wide())[0]
    assert candidate["args"][1:] == [{"op": "value", "value": 2}, {"op": "value", "value": 0.5}]


# -- imports that work -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "files",
    [
        {"pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["lib"]\n'},
        {"setup.cfg": "[options]\npackage_dir =\n    =lib\n"},
        {"setup.py": "from setuptools import setup, find_packages\nsetup(packages=find_packages('lib'), package_dir={'': 'lib'})\n"},
    ],
)
def test_package_directories_declared_by_the_build_configuration(tmp_path, files):
    _repo(tmp_path, dict(files, **{"lib/pkg/__init__.py": ""}))
    assert imports.declared_package_dirs(tmp_path) == [(tmp_path / "lib").resolve()]


SRC_MODEL = """
import torch
import torch.nn as nn

import not_installed_module_for_codemod_tests as optional  # never used by Plain
from srcpkg.helpers import width


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(width(), width())
        self.offset = torch.ones(width())

    def forward(self, x):
        return self.lin(x) + self.offset


class UsesIt(nn.Module):
    def __init__(self):
        super().__init__()
        self.tool = optional.Tool()
        self.offset = torch.ones(4)
"""


def test_a_src_layout_with_a_missing_optional_dependency(tmp_path):
    _repo(tmp_path, {
        "pyproject.toml": "[project]\nname = 'srcpkg'\n",
        "src/srcpkg/__init__.py": "",
        "src/srcpkg/helpers.py": "def width():\n    return 4\n",
        "src/srcpkg/model.py": SRC_MODEL,
    })
    out = _validate(
        tmp_path, "src/srcpkg/model.py", "srcpkg.model",
        {
            "plain": ("        self.offset = torch.ones(width())",
                      '        self.register_buffer("offset", torch.ones(width()), persistent=False)'),
            "uses": ("        self.offset = torch.ones(4)",
                     '        self.register_buffer("offset", torch.ones(4), persistent=False)'),
        },
        [("Plain", [_finding("Plain", "offset")]), ("UsesIt", [_finding("UsesIt", "offset")])],
    )
    plain = out["Plain"]
    assert plain.verdict is Verdict.PASSED, _detail(plain)
    assert "stand-ins for modules that are not installed: not_installed_module_for_codemod_tests" in _detail(plain)
    uses = out["UsesIt"]
    assert uses.verdict is Verdict.NOT_VALIDATED, _detail(uses)
    assert "needs the module 'not_installed_module_for_codemod_tests'" in uses.message


def test_a_package_that_asks_its_own_installed_version_is_imported_from_source(tmp_path):
    """`__version__ = importlib.metadata.version("verpkg")` in the package's `__init__.py`
    raises PackageNotFoundError in a source tree that was never installed: the package's own
    version is answered with a placeholder, and the class builds and passes."""
    _repo(tmp_path, {
        "verpkg/__init__.py": "import importlib.metadata\n__version__ = importlib.metadata.version('verpkg')\n",
        "verpkg/model.py": """
            import torch
            import torch.nn as nn


            class Scaled(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(4, 4)
                    self.offset = torch.ones(4)

                def forward(self, x):
                    return self.lin(x) + self.offset
        """,
    })
    out = _validate(
        tmp_path, "verpkg/model.py", "verpkg.model",
        {"offset": ("        self.offset = torch.ones(4)",
                    '        self.register_buffer("offset", torch.ones(4), persistent=False)')},
        [("Scaled", [_finding("Scaled", "offset")])],
    )
    assert out["Scaled"].verdict is Verdict.PASSED, _detail(out["Scaled"])


def test_a_class_defined_in_a_method_is_not_validated_as_the_modules_class_of_its_name(tmp_path):
    """The rewrite is in a class that a method defines; the module's own class of the same name
    is another class: validation says the local one cannot be imported, and builds neither."""
    _repo(tmp_path, {
        "nested.py": """
            import torch
            import torch.nn as nn


            class Scaled(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.offset = torch.ones(4)

                def forward(self, x):
                    return x + self.offset


            class Factory:
                def build(self):
                    class Scaled(nn.Module):
                        def __init__(self):
                            super().__init__()
                            self.offset = torch.zeros(4)

                        def forward(self, x):
                            return x * self.offset

                    return Scaled()
        """,
    })
    out = _validate(
        tmp_path, "nested.py", "nested",
        {"offset": ("                self.offset = torch.zeros(4)",
                    '                self.register_buffer("offset", torch.zeros(4), persistent=False)')},
        [("Scaled", [_finding("Scaled", "offset")])],
    )
    assert out["Scaled"].verdict is Verdict.NOT_VALIDATED, _detail(out["Scaled"])
    assert "Scaled is defined inside the function build()" in out["Scaled"].message


DECORATED_MODEL = """
import torch
import torch.nn as nn
from not_installed_module_for_codemod_tests import overrides  # a checking decorator only


class Decorated(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.offset = torch.ones(4)

    @overrides
    def forward(self, x):
        return self.lin(x) + self.offset
"""


def test_a_missing_module_used_only_as_a_bare_decorator_leaves_the_function_as_written(tmp_path):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": DECORATED_MODEL})
    out = _validate(
        tmp_path, "pkg/model.py", "pkg.model",
        {"plain": ("        self.offset = torch.ones(4)",
                   '        self.register_buffer("offset", torch.ones(4), persistent=False)')},
        [("Decorated", [_finding("Decorated", "offset")])],
    )
    decorated = out["Decorated"]
    assert decorated.verdict is Verdict.PASSED and decorated.forward_compared, _detail(decorated)
    assert "used only as decorators, which left what they decorate unchanged: not_installed_module_for_codemod_tests.overrides" in (
        _detail(decorated)
    )


STYLED_MODEL = """
import torch
import torch.nn as nn
import not_installed_plotting_for_codemod_tests as sns

sns.set()  # a plotting style: nothing keeps what it returns
PALETTE = None


class Styled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.offset = torch.ones(4)

    def forward(self, x):
        return self.lin(x) + self.offset
"""

KEPT_MODEL = STYLED_MODEL.replace("PALETTE = None", "PALETTE = sns.color_palette()  # kept: its value is used")


def test_a_missing_modules_call_whose_result_a_modules_top_level_drops_lets_the_import_go_on(tmp_path):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": STYLED_MODEL, "pkg/kept.py": KEPT_MODEL})
    rewrite = {"plain": ("        self.offset = torch.ones(4)",
                         '        self.register_buffer("offset", torch.ones(4), persistent=False)')}
    styled = _validate(tmp_path, "pkg/model.py", "pkg.model", rewrite, [("Styled", [_finding("Styled", "offset")])])["Styled"]
    assert styled.verdict is Verdict.PASSED and styled.forward_compared, _detail(styled)
    assert "statements that keep nothing, let pass: not_installed_plotting_for_codemod_tests.set(...)" in _detail(styled)
    # a call whose value the module keeps is a use of the missing module: not validated, as before
    kept = _validate(tmp_path, "pkg/kept.py", "pkg.kept", rewrite, [("Styled", [_finding("Styled", "offset")])])["Styled"]
    assert kept.verdict is Verdict.NOT_VALIDATED, _detail(kept)
    assert "color_palette(...) needs the module 'not_installed_plotting_for_codemod_tests'" in kept.message, kept.message


def _fake_interpreter(directory: Path, log: Path) -> Path:
    """A "project interpreter": a script that notes each start, then runs this Python."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "python"
    script.write_text(f"#!/bin/sh\necho started >> '{log}'\nexec '{sys.executable}' \"$@\"\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


SIMPLE = """
import torch
import torch.nn as nn


class Simple(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.table = torch.ones(4)

    def forward(self, x):
        return self.lin(x) + self.table
"""
SIMPLE_REWRITE = {"t": ("        self.table = torch.ones(4)",
                        '        self.register_buffer("table", torch.ones(4), persistent=False)')}


@pytest.mark.skipif(os.name != "posix", reason="the fake interpreter is a shell script")
def test_workers_run_under_the_project_interpreter(tmp_path):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/s.py": SIMPLE})
    log = tmp_path / "started.log"
    python = _fake_interpreter(tmp_path / "venv" / "bin", log)
    v = _validate(tmp_path, "pkg/s.py", "pkg.s", SIMPLE_REWRITE, [("Simple", [_finding("Simple", "table")])],
                  python=str(python))["Simple"]
    assert v.verdict is Verdict.PASSED, _detail(v)
    # one interpreter per side; on Linux one warm zygote that forks both (runner.forking_supported)
    assert log.read_text().count("started") == (1 if runner.forking_supported() else 2)
    # a directory is taken as a virtual environment
    assert imports.project_python(tmp_path, tmp_path / "venv") == str(python)


def test_the_default_interpreter_is_the_active_or_the_project_virtual_environment(tmp_path):
    active = _fake_interpreter(tmp_path / "active" / "bin", tmp_path / "log")
    assert imports.project_python(tmp_path, None, {"VIRTUAL_ENV": str(tmp_path / "active")}) == str(active)
    local = _fake_interpreter(tmp_path / ".venv" / "bin", tmp_path / "log")
    assert imports.project_python(tmp_path, None, {}) == str(local)
    (local).unlink()
    assert imports.project_python(tmp_path, None, {}) == sys.executable
    with pytest.raises(imports.InterpreterError, match="no executable interpreter"):
        imports.project_python(tmp_path, "missing/python", {})


def test_an_interpreter_without_torch_is_named_in_the_verdict(tmp_path):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/s.py": SIMPLE})
    bare = tmp_path / "bare" / "python"
    bare.parent.mkdir()
    # an interpreter that cannot import torch: the system's Python with no site packages
    bare.write_text(f"#!/bin/sh\nexec '{sys.executable}' -S -I -c 'import torch'\n")
    bare.chmod(0o755)
    v = _validate(tmp_path, "pkg/s.py", "pkg.s", SIMPLE_REWRITE, [("Simple", [_finding("Simple", "table")])],
                  python=str(bare))["Simple"]
    assert v.verdict is Verdict.ERROR
    assert f"the project interpreter {bare} cannot import torch" in v.message


# -- speed -------------------------------------------------------------------------------------


def test_worker_pairs_never_outnumber_half_the_cores():
    assert worker_pairs(2, 11, available=2) == 1  # the default -j on 2 cores
    assert worker_pairs(16, 11, available=8) == 4
    assert worker_pairs(1, 11, available=8) == 1
    assert worker_pairs(8, 3, available=64) == 3
    assert worker_pairs(4, 5, available=1) == 1


def test_verdicts_are_reused_until_an_imported_file_changes(tmp_path, monkeypatch):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": "WIDTH = 4\n",
                     "pkg/s.py": SIMPLE.replace("import torch.nn as nn", "import torch.nn as nn\nfrom pkg.helpers import WIDTH")})
    cache_dir = tmp_path / "cache"
    args = (tmp_path, "pkg/s.py", "pkg.s", SIMPLE_REWRITE, [("Simple", [_finding("Simple", "table")])])
    first = _validate(*args, cache=True, cache_dir=cache_dir)["Simple"]
    assert first.verdict is Verdict.PASSED
    files = list((cache_dir / "verdicts").iterdir())  # a folder of its own in the cache directory
    assert len(files) == 1 and files[0].suffix == ".json"
    stored = json.loads(files[0].read_text())  # data only
    entry = next(iter(stored["entries"].values()))
    assert str((tmp_path / "pkg" / "helpers.py").resolve()) in entry["files"]

    import codemod.validate.runner as runner

    def no_workers(*_a, **_k):
        raise AssertionError("a worker was started for a cached verdict")

    with monkeypatch.context() as patch:
        patch.setattr(runner.Pool, "run", no_workers)
        again = _validate(*args, cache=True, cache_dir=cache_dir)["Simple"]
    assert again.verdict is Verdict.PASSED and again.compared == first.compared

    # a file the validation imported changes: the verdict is computed again
    (tmp_path / "pkg" / "helpers.py").write_text("WIDTH = 5\n")
    calls = []
    original_run = runner.Pool.run
    with monkeypatch.context() as patch:
        patch.setattr(runner.Pool, "run", lambda self, *a: (calls.append(1), original_run(self, *a))[1])
        third = _validate(*args, cache=True, cache_dir=cache_dir)["Simple"]
    assert calls and third.verdict is Verdict.PASSED

    # `codemod clean` removes the stored verdicts with the analysis cache
    from codemod.validate import verdict_cache

    assert list(verdict_cache.clean(cache_dir, tmp_path)) == files
    assert not (cache_dir / "verdicts").exists()


# -- the summary's advice, and `record` telling why it failed ----------------------------------


def test_the_summary_says_how_recording_the_tests_would_raise_the_fraction(tmp_path):
    from codemod.runner import RunOptions, run

    _repo(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/c.py": CONFIGS,
        "tests/test_c.py": "from pkg.c import Unmakeable\n",
    })
    report = run([tmp_path], RunOptions(write=False, jobs=1, use_cache=False, root=tmp_path, device="cpu"))
    verdicts = {f.class_name: f.validation.verdict for f in report.findings if f.validation}
    assert verdicts["Unmakeable"] is Verdict.NOT_VALIDATED
    assert verdicts["FromConfig"] is Verdict.PASSED
    assert report.hints, report.summary.line()
    hint = report.hints[0]
    assert "the tests name 1 of them (Unmakeable)" in hint
    assert "`codemod record -- python -m pytest tests`" in hint


def test_record_reports_the_real_cause_when_the_command_fails_before_building(tmp_path):
    from codemod.validate.record import record

    result = record(tmp_path, [sys.executable, "-c", "import a_module_nobody_installed_xyz"])
    assert result.exit_code != 0 and not result.recorded
    last = result.summary_lines()[-1]
    assert "failed (exit status 1) before building any model" in last
    assert "ModuleNotFoundError: No module named 'a_module_nobody_installed_xyz'" in last
    missing = record(tmp_path, ["a-command-that-does-not-exist-xyz"])
    assert missing.exit_code == 127 and "cannot run 'a-command-that-does-not-exist-xyz'" in missing.summary_lines()[-1]


# -- the command line: --python, [tool.codemod] python, the progress bar -----------------------


def _cli(args: list[str], cwd: Path, stderr=None):
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "codemod", *args], cwd=str(cwd), env=env,
                          stdout=subprocess.PIPE, stderr=stderr if stderr is not None else subprocess.PIPE)


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="the fake interpreter is a shell script")
def test_python_from_the_command_line_and_from_pyproject(tmp_path):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/s.py": SIMPLE, "pyproject.toml": "[project]\nname = 'pkg'\n"})
    log = tmp_path / "started.log"
    _fake_interpreter(tmp_path / "env" / "bin", log)
    result = _cli(["run", "--check", "--no-cache", "--python", str(tmp_path / "env"), "-j1", str(tmp_path)], tmp_path)
    assert result.returncode == 1, result.stderr
    per_run = 1 if runner.forking_supported() else 2  # interpreters started: the zygote, else one per side
    assert b"validation of 1 class: 1 passed" in result.stdout and log.read_text().count("started") == per_run
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'pkg'\n\n[tool.codemod]\npython = 'env/bin/python'\n")
    result = _cli(["run", "--check", "--no-cache", "-j1", str(tmp_path)], tmp_path)
    assert b"validation of 1 class: 1 passed" in result.stdout and log.read_text().count("started") == 2 * per_run
    result = _cli(["run", "--check", "--no-cache", "--python", "nowhere/python", str(tmp_path)], tmp_path)
    # an interpreter that is not there is a usage error before any work (exit 2)
    assert result.returncode == 2 and b"no executable interpreter" in result.stderr, result.stderr
    assert b"validation:" not in result.stdout


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_the_validation_progress_bar_shows_on_a_terminal_only(tmp_path):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/s.py": SIMPLE})
    controller, terminal = os.openpty()
    try:
        _cli(["run", "--check", "--no-cache", "-j1", str(tmp_path)], tmp_path, stderr=terminal)
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
    assert b"1/1 classes validated" in shown
    piped = _cli(["run", "--check", "--no-cache", "-j1", str(tmp_path)], tmp_path)
    assert b"classes validated" not in piped.stderr
    quiet_controller, quiet_terminal = os.openpty()
    try:
        _cli(["run", "--check", "--no-cache", "-q", "-j1", str(tmp_path)], tmp_path, stderr=quiet_terminal)
        os.close(quiet_terminal)
        os.set_blocking(quiet_controller, False)
        try:
            quiet = os.read(quiet_controller, 4096)
        except OSError:
            quiet = b""
    finally:
        os.close(quiet_controller)
    assert b"classes validated" not in quiet


def test_workers_cannot_install_packages(tmp_path):
    """Some repositories run `pip install` for what they miss at import: never during validation."""
    probe = tmp_path / "env.json"
    _repo(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/s.py": SIMPLE.replace("import torch\n", "import json, os\nimport torch\n"
                                   f"json.dump({{k: os.environ.get(k) for k in ('PIP_NO_INDEX', 'PIP_CONFIG_FILE', "
                                   f"'PIP_FIND_LINKS', 'UV_OFFLINE')}}, open({str(probe)!r}, 'w'))\n", 1),
    })
    os.environ["PIP_FIND_LINKS"] = "/somewhere/wheels"
    try:
        v = _validate(tmp_path, "pkg/s.py", "pkg.s", SIMPLE_REWRITE, [("Simple", [_finding("Simple", "table")])])["Simple"]
    finally:
        del os.environ["PIP_FIND_LINKS"]
    assert v.verdict is Verdict.PASSED, _detail(v)
    assert json.loads(probe.read_text()) == {"PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": os.devnull,
                                             "PIP_FIND_LINKS": None, "UV_OFFLINE": "1"}


def test_a_stand_in_fails_only_when_used(tmp_path, monkeypatch):
    from codemod.validate import stubs

    _repo(tmp_path, {"standin_pkg/__init__.py": "",
                     "standin_pkg/m.py": "import missing_dep_for_codemod_stub_test as dep\n"
                                         "from missing_dep_for_codemod_stub_test.sub import Base\n"
                                         "class Derived(Base):\n    pass\n"
                                         "def use():\n    return dep.helper(1)\n"
                                         "def version():\n    return dep.__version__\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    finder_names = list(stubs._finder.names)
    try:
        module = stubs.import_with_stubs("standin_pkg.m", str(tmp_path))
        assert "missing_dep_for_codemod_stub_test" in stubs.stubbed()
        module.Derived()  # subclassing a stand-in and instantiating the subclass works
        assert not hasattr(module.dep, "__version__")
        with pytest.raises(stubs.StubUsed) as used:
            module.use()
        assert "needs the module 'missing_dep_for_codemod_stub_test'" in str(used.value)
        with pytest.raises(AttributeError) as missing:
            module.version()
        assert stubs.stub_used(missing.value) is not None
    finally:
        stubs._finder.names[:] = finder_names
        for name in [n for n in sys.modules if n.startswith(("standin_pkg", "missing_dep_for_codemod_stub_test"))]:
            del sys.modules[name]


# -- a rewrite whose attribute holds no tensor with the arguments used is not proven ----------------

MAYBE_TENSOR = """
import os

import torch
import torch.nn as nn


class MaybeMean(nn.Module):
    def __init__(self, mean=None):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.mean = torch.tensor(mean) if mean else None
        self.table = torch.ones(4)

    def forward(self, x):
        return self.lin(x) + self.table


class OnlyOnCluster(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.boost = torch.ones(4) if os.environ.get("ON_THE_TRAINING_CLUSTER") else None

    def forward(self, x):
        return self.lin(x) if self.boost is None else self.lin(x) * self.boost
"""


def test_a_rewrite_that_held_none_in_both_models_is_not_validated(tmp_path):
    _repo(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": MAYBE_TENSOR})
    rewrites = {
        "m": ("        self.mean = torch.tensor(mean) if mean else None",
              '        self.register_buffer("mean", torch.tensor(mean) if mean else None, persistent=False)'),
        "t": ("        self.table = torch.ones(4)",
              '        self.register_buffer("table", torch.ones(4), persistent=False)'),
        "b": ("        self.boost = torch.ones(4) if os.environ.get(\"ON_THE_TRAINING_CLUSTER\") else None",
              '        self.register_buffer("boost", torch.ones(4) if os.environ.get("ON_THE_TRAINING_CLUSTER") else None, '
              'persistent=False)'),
    }
    found = _validate(tmp_path, "pkg/m.py", "pkg.m", rewrites,
                      [("MaybeMean", [_finding("MaybeMean", "mean"), _finding("MaybeMean", "table")]),
                       ("OnlyOnCluster", [_finding("OnlyOnCluster", "boost")])])
    # mean=None by default: a second build gives the None default a value, and its tensor branch runs
    v = found["MaybeMean"]
    assert v.verdict_for("mean") is Verdict.PASSED, _detail(v)
    assert v.verdict_for("table") is Verdict.PASSED, _detail(v)
    assert len(v.builds) == 2 and "with mean=" in v.builds[1], v.builds
    # no build can take the tensor branch outside the environment it names: nothing about the
    # tensor is proven
    v = found["OnlyOnCluster"]
    assert v.verdict_for("boost") is Verdict.NOT_VALIDATED, _detail(v)
    assert "holds None" in v.message_for("boost") and "no tensor was compared" in v.message_for("boost")
    assert v.verdict is Verdict.NOT_VALIDATED  # the class as a whole is not proven

CONFIG_AT_IMPORT = """
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--dim", type=int, default=4)
params = parser.parse_args()
"""

MODEL_READING_CONFIG = """
import torch
import torch.nn as nn

from config import params


class Memory(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(params.dim, params.dim)
        self.table = torch.ones(params.dim)

    def forward(self, x):
        return self.lin(x) + self.table
"""


def test_a_module_that_parses_the_command_line_on_import_sees_no_arguments(tmp_path):
    # config.py calls parse_args() when imported; the worker's own arguments would make it exit
    _repo(tmp_path, {"config.py": CONFIG_AT_IMPORT, "model.py": MODEL_READING_CONFIG})
    rewrites = {"t": ("        self.table = torch.ones(params.dim)",
                      '        self.register_buffer("table", torch.ones(params.dim), persistent=False)')}
    found = _validate(tmp_path, "model.py", "model", rewrites, [("Memory", [_finding("Memory", "table")])])
    v = found["Memory"]
    assert v.verdict_for("table") is Verdict.PASSED, _detail(v)
    assert v.forward_for("table") == "compared"


def test_a_root_directory_without_init_is_not_shadowed_by_its_own_self_named_module(tmp_path):
    # modules/ (no __init__.py) holds modules.py: validating modules/stft.py puts modules/ on
    # sys.path, where `modules.py` would answer `import modules.commons` and fail
    _repo(tmp_path, {
        "modules/commons.py": "def scale():\n    return 2.0\n",
        "modules/modules.py": """
            import torch.nn as nn
            import modules.commons as commons

            class Block(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 8)

                def forward(self, x):
                    return self.lin(x) * commons.scale()
            """,
        "modules/stft.py": """
            import torch
            import torch.nn as nn

            class Windowed(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 8)
                    self.window = torch.hann_window(8)

                def forward(self, x):
                    return self.lin(x) * self.window
            """,
        "egs/run/models.py": """
            import torch
            import torch.nn as nn
            import modules.modules as blocks

            class Generator(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.block = blocks.Block()
                    self.window = torch.hann_window(8)

                def forward(self, x):
                    return self.block(x) * self.window
            """,
    })
    old, new = "        self.window = torch.hann_window(8)", '        self.register_buffer("window", torch.hann_window(8), persistent=False)'
    todo, overlay = [], {}
    for file, module, cls in (("modules/stft.py", "stft", "Windowed"), ("egs/run/models.py", "models", "Generator")):
        path = tmp_path / file
        text = path.read_text("utf-8")
        line = text[: text.index(old.strip())].count("\n") + 1
        overlay[path] = text.replace(old.strip(), new.strip(), 1)
        todo.append(ClassRewrite(path, module, cls, [dataclasses.replace(_finding(cls, "window"), line=line)]))
    out = validate_rewrites(tmp_path, todo, overlay, ValidationOptions(device="cpu", timeout=60))
    for (path, cls), v in out.items():
        assert v.verdict_for("window") is Verdict.PASSED, (cls, _detail(v))
        assert v.forward_for("window") == "compared", cls


# -- a class the repository builds in another dtype --------------------------------------------


def test_a_class_the_repository_casts_to_float64_is_built_and_fed_in_float64(tmp_path):
    """A recurrent model keeps its initial state in float64 (`.double()`), and the training
    script builds it `LSTMNet(...).double()`: with made-up float32 inputs and float32 weights
    its forward raises, in the original too. Built as the script builds it, cast as it casts
    it, fed inputs in the model's dtype, its forward is compared (in float64, then after each
    cast check)."""
    _repo(tmp_path, {
        "net.py": """
            import torch
            import torch.nn as nn


            class LSTMNet(nn.Module):
                def __init__(self, input_size, hidden_size=6):
                    super().__init__()
                    self.lstm = nn.LSTM(input_size, hidden_size, batch_first=True)
                    self.h_0 = torch.zeros(1, 1, hidden_size).double()
                    self.c_0 = torch.zeros(1, 1, hidden_size).double()
                    self.fc = nn.Linear(hidden_size, 1)

                def forward(self, x):
                    out, _ = self.lstm(x, (self.h_0, self.c_0))
                    return self.fc(out[:, -1])
            """,
        "train.py": """
            from net import LSTMNet

            INPUT_SIZE = 5
            model = LSTMNet(INPUT_SIZE, hidden_size=6).double()
            """})
    old = "self.h_0 = torch.zeros(1, 1, hidden_size).double()"
    new = 'self.register_buffer("h_0", torch.zeros(1, 1, hidden_size).double(), persistent=False)'
    validation = _validate(tmp_path, "net.py", "net", {"h_0": (old, new)}, [("LSTMNet", [_finding("LSTMNet", "h_0")])])["LSTMNet"]
    assert validation.verdict is Verdict.PASSED, _detail(validation)
    assert validation.rewrites["h_0"]["forward"] == "compared", _detail(validation)
    assert "compared in float64 (the repository casts the class to it)" in validation.rewrites["h_0"]["message"]
    assert any("then cast to torch.float64 as it is there" in d for d in validation.details), _detail(validation)
