"""The analysis through the Python API: which classes are modules, what is a tensor, across files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemod.api import transform_source
from codemod.ftypes import Action
from codemod.runner import RunOptions, RunReport, run

REPO_ROOT = Path(__file__).resolve().parents[1]
RESEARCH_REPO = REPO_ROOT / "examples" / "research_repo"
GOLDEN = REPO_ROOT / "golden"


def analyse(root: Path, *, prefilter: bool = True, persistent: str = "auto", paths=None) -> RunReport:
    report = run(
        [root] if paths is None else paths,
        RunOptions(write=False, validate=False, unsafe_fixes=True, use_cache=False, jobs=1, root=root, prefilter=prefilter, persistent=persistent),
    )
    problems = list(report.errors) + [(r.display_path, r.error) for r in report.files if r.error]
    assert not problems, problems
    return report


def actions(report: RunReport) -> dict[str, tuple]:
    """"Class.attr" -> (action, persistent) of every finding."""
    found = {}
    for finding in report.findings:
        key = f"{finding.class_name}.{finding.attribute}"
        assert key not in found, f"two findings for {key}"
        found[key] = (finding.action.value, finding.persistent)
    return found


def rewritten(report: RunReport, display_path: str) -> str | None:
    for result in report.files:
        if result.display_path == display_path:
            return result.rewritten
    raise AssertionError(f"{display_path} was not analysed: {[r.display_path for r in report.files]}")


def comparable(report: RunReport) -> list:
    """Everything a run produces, in a form two runs can be compared by."""
    out = []
    for result in report.files:
        out.append(
            (
                result.display_path,
                result.error,
                result.rewritten if result.changed else None,
                [f.to_json() for f in result.findings],
            )
        )
    return out


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


@pytest.fixture(params=[True, False], ids=["prefilter", "full-parse"])
def prefilter(request) -> bool:
    return request.param


MASK_BODY = """
    def __init__(self, size=4):
        super().__init__()
        self.proj = {linear}(size, size)
        self.mask = torch.ones(size)

    def forward(self, x):
        return self.proj(x) * self.mask
"""


def module_file(header: str, base: str, linear: str = "torch.nn.Linear") -> str:
    return f"import torch\n{header}\n\n\nclass Model({base}):" + MASK_BODY.format(linear=linear)


# -- module detection: import styles ---------------------------------------------------------------

IMPORT_STYLES = {
    "import torch.nn as nn": module_file("import torch.nn as nn", "nn.Module", "nn.Linear"),
    "from torch import nn": module_file("from torch import nn", "nn.Module", "nn.Linear"),
    "from torch.nn import Module as M": module_file("from torch.nn import Module as M", "M"),
    "torch.nn.Module": module_file("", "torch.nn.Module"),
    "nn.Sequential base": module_file("from torch import nn", "nn.Sequential", "nn.Linear"),
    "nn.ModuleList base": module_file("from torch import nn", "nn.ModuleList", "nn.Linear"),
    "torch.nn.modules.module.Module": module_file("import torch.nn.modules.module", "torch.nn.modules.module.Module"),
    "from torch.nn.modules.module import Module": module_file("from torch.nn.modules.module import Module", "Module"),
    "from torch.nn import modules": module_file("from torch.nn import modules", "modules.Module"),
    "import torch as th": module_file("import torch as th", "th.nn.Module").replace("torch.ones", "th.ones"),
    "generic base": module_file("from typing import Generic, TypeVar\nfrom torch import nn\nT = TypeVar('T')", "nn.Module, Generic[T]", "nn.Linear"),
    "lightning.pytorch.LightningModule": module_file("from lightning.pytorch import LightningModule", "LightningModule"),
    "import lightning as L": module_file("import lightning as L", "L.LightningModule"),
    "pytorch_lightning as pl": module_file("import pytorch_lightning as pl", "pl.LightningModule"),
    "transformers.PreTrainedModel": module_file("from transformers import PreTrainedModel", "PreTrainedModel"),
    "transformers.modeling_utils.PreTrainedModel": module_file(
        "from transformers.modeling_utils import PreTrainedModel", "PreTrainedModel"
    ),
}


@pytest.mark.parametrize("source", IMPORT_STYLES.values(), ids=IMPORT_STYLES.keys())
def test_module_detected_through_import_style(project: Path, write_tree, prefilter: bool, source: str):
    write_tree(project, {"model.py": source})
    report = analyse(project, prefilter=prefilter)
    if "PreTrainedModel" in source:
        # detected as a module, and left to _init_weights (rules/transformers_models.py)
        assert actions(report) == {"Model.mask": ("skip", None)}
        assert [f.code for f in report.findings] == ["BUF202"]
        return
    assert actions(report) == {"Model.mask": ("buffer", False)}
    text = rewritten(report, "model.py")
    assert text is not None
    # The name takes the file's quotes ('T' makes the "generic base" file a single-quote one).
    assert ('register_buffer("mask", ' in text or "register_buffer('mask', " in text) and "persistent=False)" in text
    assert "self.mask = " not in text


NOT_MODULES = {
    "plain class": "class Model:",
    "object base": "class Model(object):",
    "dataclass": "from dataclasses import dataclass\n\n\n@dataclass\nclass Model:",
    "Dataset": "from torch.utils.data import Dataset\n\n\nclass Model(Dataset):",
    "IterableDataset": "import torch.utils.data as tud\n\n\nclass Model(tud.IterableDataset):",
    "Sampler": "from torch.utils.data import Sampler\n\n\nclass Model(Sampler):",
    "LRScheduler": "from torch.optim.lr_scheduler import LRScheduler\n\n\nclass Model(LRScheduler):",
    "_LRScheduler": "import torch.optim.lr_scheduler as sched\n\n\nclass Model(sched._LRScheduler):",
    "Optimizer": "class Model(torch.optim.Optimizer):",
    "autograd Function": "class Model(torch.autograd.Function):",
    "PretrainedConfig": "from transformers import PretrainedConfig\n\n\nclass Model(PretrainedConfig):",
    "LogitsProcessor": "from transformers import LogitsProcessor\n\n\nclass Model(LogitsProcessor):",
    "Cache": "from transformers.cache_utils import Cache\n\n\nclass Model(Cache):",
    "DynamicCache": "from transformers import DynamicCache\n\n\nclass Model(DynamicCache):",
    "NamedTuple": "from typing import NamedTuple\n\n\nclass Model(NamedTuple):",
    "Exception": "class Model(Exception):",
    "dict": "class Model(dict):",
}


@pytest.mark.parametrize("header", NOT_MODULES.values(), ids=NOT_MODULES.keys())
def test_non_module_classes_are_never_rewritten(project: Path, write_tree, prefilter: bool, header: str):
    source = (
        "import torch\n\n\n"
        + header
        + """
    def __init__(self, size=4):
        super().__init__()
        self.table = torch.ones(size)
        self.counts = torch.zeros(size, dtype=torch.long)
"""
    )
    write_tree(project, {"thing.py": source})
    report = analyse(project, prefilter=prefilter)
    assert report.findings == []
    assert report.changed_files == []


def test_subclass_of_a_repository_non_module_is_not_a_module(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": """\
                import torch


                class Config:
                    def __init__(self):
                        self.weights = torch.ones(3)
                """,
            "pkg/sub.py": """\
                import torch
                from .config import Config


                class SubConfig(Config):
                    def __init__(self):
                        super().__init__()
                        self.extra = torch.zeros(3)
                """,
        },
    )
    assert analyse(project, prefilter=prefilter).findings == []


# -- module detection: repository classes across files ---------------------------------------------

BASE = """\
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.norm = nn.LayerNorm(size)
"""


def child(import_line: str, base: str, name: str = "Child", attr: str = "mask") -> str:
    return f"""\
import torch
{import_line}


class {name}({base}):
    def __init__(self, size=4):
        super().__init__(size)
        self.{attr} = torch.ones(size)
"""


def test_repository_base_through_absolute_import(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": BASE,
            "pkg/models/__init__.py": "",
            "pkg/models/a.py": child("from pkg.base import Base", "Base", "A"),
            "pkg/models/b.py": child("import pkg.base", "pkg.base.Base", "B"),
            "pkg/models/c.py": child("import pkg.base as pb", "pb.Base", "C"),
            "pkg/models/d.py": child("from pkg import base", "base.Base", "D"),
        },
    )
    report = analyse(project, prefilter=prefilter)
    assert actions(report) == {f"{n}.mask": ("buffer", False) for n in "ABCD"}


def test_repository_base_through_relative_imports(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": BASE,
            "pkg/models/__init__.py": "",
            "pkg/models/layers.py": child("from ..base import Base", "Base", "Layer"),
            "pkg/models/net.py": child("from .layers import Layer", "Layer", "Net", attr="pe"),
            "pkg/models/deep/__init__.py": "",
            "pkg/models/deep/head.py": child("from ...base import Base", "Base", "Head", attr="table"),
            "pkg/models/deep/tail.py": child("from .. import layers", "layers.Layer", "Tail", attr="ids"),
        },
    )
    report = analyse(project, prefilter=prefilter)
    assert actions(report) == {
        "Layer.mask": ("buffer", False),
        "Net.pe": ("buffer", False),
        "Head.table": ("buffer", False),
        "Tail.ids": ("buffer", False),
    }


def test_repository_base_through_init_reexports_two_levels(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "lib/__init__.py": "from .nn import Base\n",
            "lib/nn/__init__.py": "from .blocks import *\n",
            "lib/nn/blocks/__init__.py": "from .core import Base\n\n__all__ = ['Base']\n",
            "lib/nn/blocks/core.py": BASE,
            "app/__init__.py": "",
            "app/model.py": child("from lib import Base", "Base", "Top"),
            "app/other.py": child("import lib", "lib.Base", "Dotted"),
            "app/mid.py": child("from lib.nn import Base as B", "B", "Mid"),
        },
    )
    report = analyse(project, prefilter=prefilter)
    assert actions(report) == {
        "Top.mask": ("buffer", False),
        "Dotted.mask": ("buffer", False),
        "Mid.mask": ("buffer", False),
    }


def test_repository_base_chain_of_three_files(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "m/__init__.py": "",
            "m/base.py": BASE,
            "m/middle.py": "from .base import Base\n\n\nclass Middle(Base):\n    pass\n",
            "m/upper.py": "from m.middle import Middle\n\n\nclass Upper(Middle):\n    \"\"\"No constructor of its own.\"\"\"\n",
            "m/leaf.py": child("from .upper import Upper", "Upper", "Leaf"),
        },
    )
    assert actions(analyse(project, prefilter=prefilter)) == {"Leaf.mask": ("buffer", False)}


def test_script_style_repository_without_init_files(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "models/layers.py": BASE,
            "models/net.py": child("from models.layers import Base", "Base", "Net"),
            "train.py": child("from models.net import Net", "Net", "Trainer", attr="steps"),
        },
    )
    assert actions(analyse(project, prefilter=prefilter)) == {
        "Net.mask": ("buffer", False),
        "Trainer.steps": ("buffer", False),
    }


def test_repository_base_that_is_not_a_module_stops_detection(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": "class Base:\n    def __init__(self, size=4):\n        self.size = size\n",
            "pkg/child.py": child("from .base import Base", "Base"),
        },
    )
    assert analyse(project, prefilter=prefilter).findings == []


def test_known_third_party_base_in_a_repository_chain(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "hf/__init__.py": "",
            "hf/base.py": """\
                from transformers import PreTrainedModel


                class MyPreTrained(PreTrainedModel):
                    base_model_prefix = "my"
                """,
            "hf/model.py": child("from .base import MyPreTrained", "MyPreTrained", "MyModel", attr="position_ids"),
            "pl_mod/__init__.py": "",
            "pl_mod/task.py": child("from lightning.pytorch import LightningModule", "LightningModule", "Task", attr="class_ids"),
        },
    )
    report = analyse(project, prefilter=prefilter)
    assert actions(report) == {
        "MyModel.position_ids": ("skip", None),  # a PreTrainedModel through a repository base
        "Task.class_ids": ("buffer", False),
    }
    assert {f.attribute: f.code for f in report.findings} == {"position_ids": "BUF202", "class_ids": "BUF101"}


def test_unknown_external_base_is_not_a_module(project: Path, write_tree, prefilter: bool):
    write_tree(project, {"m.py": child("from somelib import Base", "Base")})
    assert analyse(project, prefilter=prefilter).findings == []


def test_inheritance_cycle_does_not_hang(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": child("from .b import B", "B", "A"),
            "pkg/b.py": child("from .a import A", "A", "B"),
        },
    )
    assert analyse(project, prefilter=prefilter).findings == []


# -- tensors from other files ---------------------------------------------------------------------


def test_helper_function_imported_from_another_file_is_a_tensor(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": """\
                import math

                import torch


                def make_mask(size):
                    return torch.tril(torch.ones(size, size, dtype=torch.bool))


                def _base(size):
                    return torch.arange(size).float()


                def positions(size):
                    return _base(size) / size


                def hidden_size(config):
                    return int(math.sqrt(config))
                """,
            "pkg/model.py": """\
                from torch import nn

                from . import utils
                from .utils import hidden_size, make_mask, positions


                class Attention(nn.Module):
                    def __init__(self, size=4):
                        super().__init__()
                        self.mask = make_mask(size)
                        self.pos = positions(size)
                        self.table = utils.make_mask(size)
                        self.width = hidden_size(16)
                """,
        },
    )
    report = analyse(project, prefilter=prefilter)
    assert actions(report) == {
        "Attention.mask": ("buffer", False),
        "Attention.pos": ("buffer", False),
        "Attention.table": ("buffer", False),
    }
    text = rewritten(report, "pkg/model.py")
    assert 'self.register_buffer("mask", make_mask(size), persistent=False)' in text
    assert "self.width = hidden_size(16)" in text


def test_inherited_helper_method_from_a_base_in_another_file(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": """\
                import torch
                from torch import nn


                class Base(nn.Module):
                    def __init__(self):
                        super().__init__()

                    def _build(self, n=3):
                        return torch.eye(n)

                    def _count(self):
                        return 3
                """,
            "pkg/model.py": """\
                from .base import Base


                class Model(Base):
                    def __init__(self):
                        super().__init__()
                        self.eye = self._build()
                        self.n = self._count()
                """,
        },
    )
    report = analyse(project, prefilter=prefilter)
    assert actions(report) == {"Model.eye": ("buffer", False)}
    assert 'self.register_buffer("eye", self._build(), persistent=False)' in rewritten(report, "pkg/model.py")


@pytest.mark.parametrize(
    "expression",
    ["~self._causal(n)", "-self._causal(n)", "2.0 * self._causal(n)", "self._causal(n) * 2.0", "(self._causal(n))"],
)
def test_helper_method_used_inside_an_expression(project: Path, write_tree, prefilter: bool, expression: str):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": """\
                import torch
                from torch import nn


                class Base(nn.Module):
                    def _causal(self, n):
                        return torch.ones(n, n).triu(1)
                """,
            "pkg/model.py": f"""\
                from .base import Base


                class Model(Base):
                    def __init__(self, n=4):
                        super().__init__()
                        self.mask = {expression}
                """,
            "pkg/local.py": f"""\
                import torch
                from torch import nn


                class Local(nn.Module):
                    def __init__(self, n=4):
                        super().__init__()
                        self.mask = {expression}

                    def _causal(self, n):
                        return torch.ones(n, n).triu(1)
                """,
        },
    )
    report = analyse(project, prefilter=prefilter)
    assert actions(report) == {"Model.mask": ("buffer", False), "Local.mask": ("buffer", False)}


def test_subclass_in_another_file_rebinding_to_a_non_tensor_skips_the_base_attribute(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": """\
                import torch
                from torch import nn


                class Base(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.scale = torch.ones(1)
                        self.bias = torch.zeros(1)
                """,
            "pkg/impl/__init__.py": "",
            "pkg/impl/child.py": """\
                from ..base import Base


                class Child(Base):
                    def __init__(self):
                        super().__init__()
                        self.scale = 2.0
                """,
        },
    )
    report = analyse(project, prefilter=prefilter)
    by_attr = {f.attribute: f for f in report.findings}
    assert set(by_attr) == {"scale", "bias"}
    assert by_attr["scale"].action is Action.SKIP
    assert "Child" in by_attr["scale"].reason and "non-tensor" in by_attr["scale"].reason
    assert by_attr["bias"].action is Action.BUFFER
    text = rewritten(report, "pkg/base.py")
    assert "self.scale = torch.ones(1)" in text
    assert 'self.register_buffer("bias", torch.zeros(1), persistent=False)' in text


def test_subclass_setting_the_attribute_outside_init_to_a_non_tensor(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": BASE.replace("self.norm = nn.LayerNorm(size)", "self.norm = nn.LayerNorm(size)\n        self.temperature = torch.ones(1)"),
            "pkg/child.py": """\
                from .base import Base


                class Child(Base):
                    def reset(self):
                        self.temperature = None if self.training else [1.0]
                """,
        },
    )
    report = analyse(project, prefilter=prefilter)
    (finding,) = report.findings
    assert (finding.class_name, finding.attribute, finding.action) == ("Base", "temperature", Action.SKIP)
    assert "Child.reset" in finding.reason
    assert report.changed_files == []


def test_subclass_rebinding_to_a_tensor_keeps_the_rewrite(project: Path, write_tree, prefilter: bool):
    write_tree(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": BASE.replace("self.norm = nn.LayerNorm(size)", "self.norm = nn.LayerNorm(size)\n        self.table = torch.zeros(size)"),
            "pkg/child.py": """\
                import torch
                from .base import Base


                class Child(Base):
                    def __init__(self, size=4):
                        super().__init__(size)
                        self.table = torch.ones(size)
                """,
        },
    )
    report = analyse(project, prefilter=prefilter)
    assert actions(report)["Base.table"][0] == "buffer"


# -- values that are never tensors ----------------------------------------------------------------

NEVER_TENSOR = [
    'torch.device("cpu")',
    "torch.device(device)",
    "torch.float32",
    "torch.get_default_dtype()",
    "torch.Size([2, 3])",
    "torch.finfo(torch.float32).eps",
    "torch.finfo(torch.float16)",
    "torch.iinfo(torch.int32).max",
    "torch.Generator()",
    "torch.Generator().manual_seed(0)",
    "torch.compile(self.proj)",
    "torch.optim.Adam(self.proj.parameters(), lr=1e-3)",
    "torch.optim.SGD(self.parameters(), lr=0.1)",
    "torch.optim.lr_scheduler.StepLR(torch.optim.SGD(self.parameters(), lr=0.1), step_size=1)",
    "GradScaler()",
    'torch.amp.GradScaler("cpu")',
    "nn.ReLU()",
    "nn.Linear(4, 4)",
    "nn.ModuleList([nn.Linear(2, 2)])",
    "torch.ones(3).sum().item()",
    "torch.arange(3).tolist()",
    "torch.ones(2, 3).shape",
    "torch.ones(2, 3).size()",
    "torch.ones(2, 3).numel()",
    "torch.ones(2).dim()",
    "torch.cuda.is_available()",
    "torch.is_tensor(x)",
    "3",
    "0.5",
    "1e-6",
    "True",
    '"cpu"',
    "None",
    "(2, 3)",
    "np.zeros(3)",
    "np.arange(4) * 2.0",
    "np.random.randn(3)",
    "math.sqrt(4)",
    "len(self.proj.weight)",
]


@pytest.mark.parametrize("expression", NEVER_TENSOR)
def test_never_tensor_values_are_not_rewritten(project: Path, write_tree, prefilter: bool, expression: str):
    source = f"""\
import math

import numpy as np
import torch
from torch import nn
from torch.cuda.amp import GradScaler


class Net(nn.Module):
    def __init__(self, device="cpu", x=None):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.value = {expression}
        self.real = torch.ones(2)
"""
    write_tree(project, {"net.py": source})
    report = analyse(project, prefilter=prefilter)
    assert actions(report) == {"Net.real": ("buffer", False)}
    assert f"self.value = {expression}\n" in rewritten(report, "net.py")


def test_transform_source_api(project: Path):
    source = module_file("from torch import nn", "nn.Module", "nn.Linear")
    result = transform_source(source, path="model.py")
    assert result.changed
    assert [(f.class_name, f.attribute, f.action, f.persistent) for f in result.findings] == [
        ("Model", "mask", Action.BUFFER, False)
    ]
    assert 'self.register_buffer("mask", torch.ones(size), persistent=False)' in result.code
    again = transform_source(result.code, path="model.py")
    assert again.code == result.code and not again.changed
    state = transform_source(source, path="model.py", persistent="state")
    assert 'self.register_buffer("mask", torch.ones(size), persistent=False)' in state.code  # a constant is not state
    noisy = source.replace("torch.ones(size)", "torch.randn(size)")
    assert 'self.register_buffer("mask", torch.randn(size), persistent=False)' in transform_source(noisy, path="model.py").code
    assert 'self.register_buffer("mask", torch.randn(size))' in transform_source(noisy, path="model.py", persistent="state").code
    with pytest.raises(SyntaxError):
        transform_source("class X(:\n    pass\n", path="broken.py")


# -- the pre-filter gives the same results as a full parse -----------------------------------------


def test_prefilter_equals_full_parse_on_the_research_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    copy = tmp_path / "research_repo"
    shutil.copytree(RESEARCH_REPO, copy, ignore=shutil.ignore_patterns("__pycache__", ".codemod"))
    monkeypatch.chdir(copy)
    fast = analyse(copy, prefilter=True)
    full = analyse(copy, prefilter=False)
    assert comparable(fast) == comparable(full)
    assert fast.findings, "the example repository has findings"


GOLDEN_CASES = sorted(p for p in GOLDEN.iterdir() if (p / "input.py").is_file()) if GOLDEN.is_dir() else []


def test_there_are_golden_inputs():
    assert len(GOLDEN_CASES) >= 45


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=[p.name for p in GOLDEN_CASES])
def test_prefilter_equals_full_parse_on_golden_input(case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    work = tmp_path / "case"
    work.mkdir()
    if (case / "repo").is_dir():
        shutil.copytree(case / "repo", work, dirs_exist_ok=True)
    shutil.copyfile(case / "input.py", work / "input.py")
    monkeypatch.chdir(work)
    fast = run([work], RunOptions(write=False, validate=False, unsafe_fixes=True, use_cache=False, jobs=1, root=work, prefilter=True))
    full = run([work], RunOptions(write=False, validate=False, unsafe_fixes=True, use_cache=False, jobs=1, root=work, prefilter=False))
    assert comparable(fast) == comparable(full)


# Shapes where the text pre-filter must still see a finding: (source, "Class.attr" -> action).
PREFILTER_SHAPES = {
    "parameter moved to a device": (
        "from torch import nn\n\n\nclass A(nn.Module):\n    def __init__(self, x, device):\n"
        "        super().__init__()\n        self.w = nn.Parameter(x).to(device)\n",
        {"A.w": "skip"},  # BUF216: reported unless persistent = "state"
    ),
    "list of parameters": (
        "import torch\nfrom torch import nn\n\n\nclass A(nn.Module):\n    def __init__(self, n):\n"
        "        super().__init__()\n        self.ps = [nn.Parameter(torch.zeros(3)) for _ in range(n)]\n",
        {"A.ps": "skip"},
    ),
    "parameter bound to a local first": (
        "import torch\nfrom torch import nn\n\n\nclass A(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        p = nn.Parameter(torch.zeros(3))\n        self.ps = [p]\n",
        {"A.ps": "skip"},
    ),
    "torch imported inside the constructor": (
        "from torch import nn\n\n\nclass A(nn.Module):\n    def __init__(self, x, device):\n"
        "        super().__init__()\n        from torch.nn import Parameter\n"
        "        self.w = Parameter(x).to(device)\n",
        {"A.w": "skip"},  # BUF216
    ),
    "torch function imported by name": (
        "from torch import nn, zeros\n\n\nclass A(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.z = zeros(3)\n",
        {"A.z": "buffer"},
    ),
    "functional through nn": (
        "import torch.nn as nn\n\n\nclass A(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.h = nn.functional.one_hot(\n            nn.init.zeros_(nn.Parameter(None).data.long()), 4)\n",
        {"A.h": "buffer"},
    ),
    "torch function chosen at run time": (
        "import torch\nfrom torch import nn\nNAME = 'ones'\n\n\nclass A(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.z = getattr(torch, NAME)(3)\n",
        {"A.z": "buffer"},
    ),
    "dotted call split over lines": (
        "import torch\nfrom torch import nn\n\n\nclass A(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.z = (torch\n                  .zeros(3))\n",
        {"A.z": "buffer"},
    ),
    "tensor annotation of an argument": (
        "import torch\nfrom torch import Tensor, nn\n\n\nclass A(nn.Module):\n    def __init__(self, t: Tensor):\n"
        "        super().__init__()\n        self.t = t\n\n\nmodel = A(torch.zeros(3))\n",
        {"A.t": "buffer"},
    ),
    "buffer registered with a string name, raw tensor beside it": (
        "import torch\nfrom torch import nn\n\n\nclass A(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.register_buffer(\"a\", torch.zeros(3))  # (\n"
        "        self.b = torch.ones(3)\n",
        {"A.b": "buffer"},
    ),
    "a repository function named Parameter": (
        {
            "layers.py": "import torch\n\n\ndef Parameter(n):\n    return torch.zeros(n)\n",
            "model.py": "from torch import nn\nfrom layers import Parameter\n\n\nclass A(nn.Module):\n"
            "    def __init__(self):\n        super().__init__()\n        self.w = Parameter(3)\n",
        },
        {"A.w": "buffer"},
    ),
}


@pytest.mark.parametrize("shape", sorted(PREFILTER_SHAPES))
def test_prefilter_keeps_the_findings_of_tricky_shapes(shape: str, project: Path, write_tree):
    source, expected = PREFILTER_SHAPES[shape]
    write_tree(project, source if isinstance(source, dict) else {"model.py": source})
    fast = analyse(project, prefilter=True)
    full = analyse(project, prefilter=False)
    assert comparable(fast) == comparable(full)
    assert {key: action for key, (action, _) in actions(full).items()} == expected


def test_a_lone_carriage_return_ends_a_line_as_for_the_parser(project: Path, prefilter: bool):
    # Old Mac line endings mixed with \n: Python counts the \r as a line end.
    source = "import torch\rfrom torch import nn\n\n\nclass A(nn.Module):\n    def __init__(self):\n" \
             "        super().__init__()\n        self.mask = torch.ones(2)\n"
    (project / "m.py").write_bytes(source.encode())
    report = analyse(project, prefilter=prefilter)
    (finding,) = report.findings
    assert (finding.line, finding.column) == (8, 9)
    assert rewritten(report, "m.py") == source.replace(
        "self.mask = torch.ones(2)", 'self.register_buffer("mask", torch.ones(2), persistent=False)'
    )


def _holders(source: str) -> set[int] | None:
    from codemod.analysis import scan_text
    from codemod.repo_index import RepoIndex

    path = Path("pkg/model.py")
    return scan_text(RepoIndex([path]), path, source).holders


NO_TENSOR_INIT = """import torch
from torch import nn
import torch.nn.functional as F
from .configs import Config, make_mask


class A(nn.Module):
    def __init__(self, config: Config, dtype=torch.float32):
        super().__init__()
        self.proj = nn.Linear(4, 4, dtype=dtype)  # torch.float32 is no tensor
        self.act = F.gelu
        self.weight = nn.Parameter(torch.zeros(4, dtype=torch.float32))
        self.register_buffer("mask", torch.ones(4, 4), persistent=False)
        self.config = Config.from_dict({"x": torch.nn.Linear})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.proj(x)) * self.weight
"""


def test_prefilter_skips_a_constructor_that_makes_no_raw_tensor():
    assert _holders(NO_TENSOR_INIT) == set()


@pytest.mark.parametrize(
    "line",
    [
        "self.z = torch.zeros(4)",
        "self.z = F.pad(x, (1, 1))",
        "self.z = make_mask(4)",
        "self.z = getattr(torch, 'ones')(4)",
        "self.z = self._build(4)",
        "self.z = nn.Parameter(torch.zeros(4)).to('cuda')",
        "self.z = [nn.Parameter(torch.zeros(4))]",
        "self.z = torch.nn.init.zeros_(torch.empty(4))",
    ],
)
def test_prefilter_keeps_a_constructor_that_may_make_one(line: str):
    source = NO_TENSOR_INIT.replace("        self.config = ", f"        {line}\n        self.config = ")
    assert _holders(source) == {7}


# -- the example repository -----------------------------------------------------------------------


def test_research_repo_findings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    copy = tmp_path / "research_repo"
    shutil.copytree(RESEARCH_REPO, copy, ignore=shutil.ignore_patterns("__pycache__", ".codemod"))
    monkeypatch.chdir(copy)
    report = analyse(copy)
    found = {(f.path, f.class_name, f.attribute): f for f in report.findings}

    type_indices = found[("eventx/models/casee.py", "TypeCls", "type_indices")]
    assert (type_indices.action, type_indices.persistent) == (Action.BUFFER, False)
    assert type_indices.reason == "persistent=False: derived from constructor arguments; rebuilt on each construction"
    assert type_indices.code == "BUF101"
    assert (type_indices.line, type_indices.column) == (12, 9)

    pe = found[("eventx/models/casee.py", "PositionAware", "pe")]
    assert (pe.action, pe.persistent) == (Action.BUFFER, False)

    noise = found[("eventx/models/casee.py", "CasEE", "noise")]
    assert (noise.action, noise.persistent) == (Action.BUFFER, False)  # no new checkpoint key by default
    assert "random" in noise.reason and 'persistent = "state"' in noise.suggestion
    assert noise.code == "BUF101"

    weights = found[("eventx/models/casee.py", "CasEE", "class_weights")]
    assert weights.action is Action.SKIP and weights.reason and weights.suggestion

    temperature = found[("eventx/models/layers.py", "AdaptiveAdditionPredictor", "temperature")]
    assert temperature.action is Action.PARAMETER

    mask = found[("eventx/models/layers.py", "CausalSelfAttention", "mask")]
    assert (mask.action, mask.persistent) == (Action.BUFFER, False)

    assert not [f for f in report.findings if f.class_name in ("LabelStats", "EventConfig")]
    assert all(not f.path.startswith(("tests/", "codemod_examples")) for f in report.findings)

    casee = rewritten(report, "eventx/models/casee.py")
    # Wrapped to 88 columns, as black wraps them.
    assert (
        'self.register_buffer(\n            "type_indices", torch.arange(0, config.type_num, 1).long(), persistent=False\n        )'
        in casee
    )
    assert 'self.register_buffer(\n            "pe", sinusoid_table(max_len, hidden_size), persistent=False\n        )' in casee
    assert 'self.register_buffer(\n            "noise", torch.randn(config.hidden_size) * 0.01, persistent=False\n        )' in casee
    assert "self.class_weights = [torch.ones(config.type_num), torch.ones(config.type_num)]" in casee
    layers = rewritten(report, "eventx/models/layers.py")
    assert "self.temperature = nn.Parameter(torch.ones(1))" in layers
    assert 'self.register_buffer("mask", causal_mask(max_len), persistent=False)' in layers
    assert rewritten(report, "eventx/config.py") is None
    assert report.summary.files_changed == 2


def test_only_tensor_annotations_make_constructor_arguments_tensors():
    from codemod.api import transform_source

    source = (
        "from typing import Callable, List, Optional, Union\n"
        "import torch\n"
        "from torch import nn, Tensor\n\n\n"
        "class A(nn.Module):\n"
        "    def __init__(self, a: torch.Tensor, b: Optional[torch.Tensor] = None, c: 'Tensor | None' = None,\n"
        "                 d: Optional[Callable[[torch.Tensor, torch.Tensor], None]] = None,\n"
        "                 e: List[torch.Tensor] = (), f: Union[Tensor, None] = None, g: int = 3):\n"
        "        super().__init__()\n"
        "        self.a = a\n        self.b = b\n        self.c = c\n        self.d = d\n"
        "        self.e = e\n        self.f = f\n        self.g = g\n"
    )
    # An nn.Parameter passes a `Tensor` annotation too (and `self.a = a` keeps it a parameter):
    # alone, the annotations make the tensors reported; a call passing plain ones types them.
    alone = {f.attribute: f.action.value for f in transform_source(source).findings}
    assert {name: alone.get(name) for name in "abcf"} == dict.fromkeys("abcf", "skip")
    assert all("may be an nn.Parameter passed in" in f.reason for f in transform_source(source).findings if f.attribute in "abcf")
    called = source + "\n\nmodel = A(torch.ones(2), torch.ones(2), torch.ones(2), None, [], torch.ones(2))\n"
    rewritten = {f.attribute for f in transform_source(called).findings if f.action.value == "buffer"}
    assert rewritten == {"a", "b", "c", "f"}


def test_comprehension_items_type_what_a_call_inside_another_comprehension_passes():
    from codemod.api import transform_source

    source = (
        "import torch\nfrom torch import nn\n\n\n"
        "class Scale(nn.Module):\n"
        "    def __init__(self, w):\n"
        "        super().__init__()\n        self.w = w\n\n"
        "    def forward(self, x):\n        return x * self.w.unsqueeze(0)\n\n\n"
    )
    # every item of a comprehension of tensors is a tensor
    over_tensors = source + "def build(xs):\n    ws = [x.detach() for x in xs]\n    return [Scale(w) for w in ws]\n"
    found = {f.attribute: f.action.value for f in transform_source(over_tensors).findings}
    assert found == {"w": "buffer"}, found
    # iterating a dict comprehension gives its keys (numbers here), not its tensor values
    over_keys = source + "def build():\n    table = {n: torch.ones(n) for n in (1, 2)}\n    return [Scale(k) for k in table]\n"
    found = {f.attribute: f.action.value for f in transform_source(over_keys).findings}
    assert found.get("w") != "buffer", found
