"""Validation end to end on CPU: a small repository with hand-written rewrites.

One module-scoped run validates every class (workers are shared across
classes, as in real use); the tests then read its verdicts.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from codemod.ftypes import Action, ClassRewrite, Finding, Verdict
from codemod.validate import ValidationOptions, missing_examples, validate_rewrites


CONFIG = """
class Config:
    def __init__(self, type_num=4, hidden_size=8, dropout=0.1):
        self.type_num = type_num
        self.hidden_size = hidden_size
        self.dropout = dropout
"""

LAYERS = """
import math
import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model=8, max_len=16):
        super().__init__()
        self.proj = nn.Linear(d_model, d_model)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div)
        pe[:, 1::2] = torch.cos(position * div)
        self.pe = pe

    def forward(self, x):
        return self.proj(x) + self.pe[: x.size(1)]
"""

MODELS = """
import torch
import torch.nn as nn

from .layers import PositionalEncoding


class TypeCls(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.type_emb = nn.Embedding(config.type_num, config.hidden_size)
        self.type_indices = torch.arange(0, config.type_num, 1).long()
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, text_rep, mask):
        type_emb = self.type_emb(self.type_indices)
        scores = torch.einsum("bth,ch->btc", self.dropout(text_rep), type_emb)
        scores = scores * mask.unsqueeze(-1)
        return torch.sigmoid(scores.sum(1)), type_emb


class Needy(nn.Module):
    def __init__(self, config, encoder: nn.Module, scale=2.0):  # no module can be made up for encoder
        super().__init__()
        self.lin = nn.Linear(config.hidden_size, config.hidden_size)
        self.bias_vec = torch.full((config.hidden_size,), scale)

    def forward(self, x, mask=None):
        return self.lin(x) + self.bias_vec


class RelModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = PositionalEncoding()
        self.scale = torch.ones(8)

    def forward(self, x):
        return self.enc(x) * self.scale


class ArangeInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.weights = torch.linspace(0, 1, 8)

    def forward(self, x):
        positions = torch.arange(x.size(1)).float()  # no device: a second bug the rewrite does not touch
        return self.lin(x) * self.weights + positions[None, :, None]
"""

ABSMODELS = """
import torch
import torch.nn as nn

from pkg.layers import PositionalEncoding


class AbsModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = PositionalEncoding()
        self.offset = torch.zeros(8)

    def forward(self, x):
        return self.enc(x) + self.offset
"""

BROKEN = """
import torch
import torch.nn as nn


class WrongValue(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.table = torch.arange(4.0)

    def forward(self, x):
        return self.lin(x) + self.table


class WrongPersistent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.mask = torch.ones(4)

    def forward(self, x):
        return self.lin(x) * self.mask


class Dropped(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.table = torch.arange(4.0)

    def forward(self, x):
        return self.lin(x)
"""

CKPT = """
import torch
import torch.nn as nn


class PersistentBuf(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.mask = torch.tril(torch.ones(4, 4))

    def forward(self, x):
        return self.lin(x) @ self.mask


class NonPersistentBuf(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.mask = torch.tril(torch.ones(4, 4))

    def forward(self, x):
        return self.lin(x) @ self.mask


class NewParam(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = torch.ones(4, requires_grad=True)
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x) * self.alpha
"""

MISBEHAVING = """
import os
import sys
import time

import torch
import torch.nn as nn


class RaisesInInit(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.zeros(3)
        raise ValueError("this model refuses to be built")


class CallsExit(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.zeros(3)
        sys.exit(3)


class Hangs(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.zeros(3)
        time.sleep(600)


class Aborts(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.zeros(3)
        os.abort()
"""

EXAMPLES = """
import torch

from codemod.examples import example
from pkg.config import Config

example("pkg.models.TypeCls", Config(type_num=4, hidden_size=8),
        inputs=lambda: (torch.randn(2, 5, 8), torch.ones(2, 5)))
example("pkg.layers.PositionalEncoding", d_model=8, inputs=lambda: torch.randn(2, 5, 8))
example("pkg.models.RelModel", inputs=lambda: torch.randn(2, 5, 8))
example("pkg.models.ArangeInForward", inputs=lambda: torch.randn(2, 5, 8))
example("pkg.absmodels.AbsModel", inputs=lambda: {"x": torch.randn(2, 5, 8)})
example("pkg.broken.WrongValue", inputs=lambda: torch.randn(2, 4))
example("pkg.ckpt.NewParam", inputs=lambda: torch.randn(2, 4))
"""

SOURCES = {
    "pkg/__init__.py": "",
    "pkg/config.py": CONFIG,
    "pkg/layers.py": LAYERS,
    "pkg/models.py": MODELS,
    "pkg/absmodels.py": ABSMODELS,
    "pkg/broken.py": BROKEN,
    "pkg/ckpt.py": CKPT,
    "pkg/misbehaving.py": MISBEHAVING,
    "codemod_examples.py": EXAMPLES,
}


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def finding(cls: str, attribute: str, action: str = "buffer", persistent: bool | None = False) -> Finding:
    return Finding(
        path="x.py", line=1, column=1, class_name=cls, attribute=attribute,
        action=Action(action), persistent=persistent if action == "buffer" else None, reason="raw tensor",
    )


def rewritten_sources() -> dict[str, str]:
    """Hand-written rewrites; some deliberately wrong."""
    layers = replace_once(LAYERS, "        self.pe = pe", '        self.register_buffer("pe", pe, persistent=False)')
    models = MODELS
    models = replace_once(
        models, "        self.type_indices = torch.arange(0, config.type_num, 1).long()",
        '        self.register_buffer("type_indices", torch.arange(0, config.type_num, 1).long(), persistent=False)',
    )
    models = replace_once(
        models, "        self.bias_vec = torch.full((config.hidden_size,), scale)",
        '        self.register_buffer("bias_vec", torch.full((config.hidden_size,), scale), persistent=False)',
    )
    models = replace_once(
        models, "        self.scale = torch.ones(8)", '        self.register_buffer("scale", torch.ones(8), persistent=False)'
    )
    models = replace_once(
        models, "        self.weights = torch.linspace(0, 1, 8)",
        '        self.register_buffer("weights", torch.linspace(0, 1, 8), persistent=False)',
    )
    absmodels = replace_once(
        ABSMODELS, "        self.offset = torch.zeros(8)", '        self.register_buffer("offset", torch.zeros(8), persistent=False)'
    )
    broken = BROKEN
    # wrong value
    broken = replace_once(
        broken, "        self.table = torch.arange(4.0)",
        '        self.register_buffer("table", torch.arange(4.0) + 1, persistent=False)',
    )
    # persistent although planned non-persistent
    broken = replace_once(broken, "        self.mask = torch.ones(4)", '        self.register_buffer("mask", torch.ones(4))')
    # attribute dropped
    broken = replace_once(broken, "        self.table = torch.arange(4.0)\n", "")
    ckpt = CKPT
    ckpt = replace_once(
        ckpt, "        self.mask = torch.tril(torch.ones(4, 4))",
        '        self.register_buffer("mask", torch.tril(torch.ones(4, 4)), persistent=True)',
    )
    ckpt = replace_once(
        ckpt, "        self.mask = torch.tril(torch.ones(4, 4))",
        '        self.register_buffer("mask", torch.tril(torch.ones(4, 4)), persistent=False)',
    )
    ckpt = replace_once(ckpt, "        self.alpha = torch.ones(4, requires_grad=True)", "        self.alpha = nn.Parameter(torch.ones(4))")
    misbehaving = MISBEHAVING.replace(
        "        self.table = torch.zeros(3)", '        self.register_buffer("table", torch.zeros(3), persistent=False)'
    )
    return {
        "pkg/layers.py": layers,
        "pkg/models.py": models,
        "pkg/absmodels.py": absmodels,
        "pkg/broken.py": broken,
        "pkg/ckpt.py": ckpt,
        "pkg/misbehaving.py": misbehaving,
    }


CLASSES: list[tuple[str, str, list[Finding]]] = [
    ("pkg/layers.py", "PositionalEncoding", [finding("PositionalEncoding", "pe")]),
    ("pkg/models.py", "TypeCls", [finding("TypeCls", "type_indices")]),
    ("pkg/models.py", "Needy", [finding("Needy", "bias_vec")]),
    ("pkg/models.py", "RelModel", [finding("RelModel", "scale")]),
    ("pkg/models.py", "ArangeInForward", [finding("ArangeInForward", "weights")]),
    ("pkg/absmodels.py", "AbsModel", [finding("AbsModel", "offset")]),
    ("pkg/broken.py", "WrongValue", [finding("WrongValue", "table")]),
    ("pkg/broken.py", "WrongPersistent", [finding("WrongPersistent", "mask", persistent=False)]),
    ("pkg/broken.py", "Dropped", [finding("Dropped", "table")]),
    ("pkg/ckpt.py", "PersistentBuf", [finding("PersistentBuf", "mask", persistent=True)]),
    ("pkg/ckpt.py", "NonPersistentBuf", [finding("NonPersistentBuf", "mask", persistent=False)]),
    ("pkg/ckpt.py", "NewParam", [finding("NewParam", "alpha", action="parameter")]),
    ("pkg/misbehaving.py", "RaisesInInit", [finding("RaisesInInit", "table")]),
    ("pkg/misbehaving.py", "CallsExit", [finding("CallsExit", "table")]),
    ("pkg/misbehaving.py", "Hangs", [finding("Hangs", "table")]),
    ("pkg/misbehaving.py", "Aborts", [finding("Aborts", "table")]),
]


def line_of(relative: str, cls: str, attribute: str) -> int:
    """The line of the first `self.<attribute> = ...` of the class in the written file."""
    lines = textwrap.dedent(SOURCES[relative]).lstrip("\n").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"class {cls}("))
    return next(i for i in range(start, len(lines)) if lines[i].strip().startswith(f"self.{attribute} =")) + 1


def class_rewrites(root: Path, names: list[str] | None = None) -> list[ClassRewrite]:
    out = []
    for relative, cls, findings in CLASSES:
        if names is not None and cls not in names:
            continue
        for f in findings:  # the line validation checks ran (coverage of the rewritten statement)
            f.line = line_of(relative, cls, f.attribute)
        module = relative[:-3].replace("/", ".")
        out.append(ClassRewrite(path=root / relative, module=module, class_name=cls, findings=findings))
    return out


def overlay(root: Path) -> dict[Path, str]:
    return {root / name: textwrap.dedent(text).lstrip("\n") for name, text in rewritten_sources().items()}


# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    write_tree(root, SOURCES)
    return root


@pytest.fixture(scope="module")
def results(repo):
    started = time.monotonic()
    out = validate_rewrites(repo, class_rewrites(repo), overlay(repo), ValidationOptions(jobs=2, timeout=8, device="meta"))
    out["elapsed"] = time.monotonic() - started  # type: ignore[index]
    return out


def verdict_of(results, repo, relative, cls):
    return results[(repo / relative, cls)]


def test_every_class_gets_a_verdict(results, repo):
    for relative, cls, _ in CLASSES:
        assert (repo / relative, cls) in results


def test_positional_encoding_passes_and_original_fails_on_meta(results, repo):
    v = verdict_of(results, repo, "pkg/layers.py", "PositionalEncoding")
    assert v.verdict is Verdict.PASSED, v.message
    assert v.device == "cpu+meta"
    assert {"attributes", "state_dict", "parameters", "device_movement", "forward:cpu", "forward:meta"} <= set(v.compared)
    assert v.left_behind == ["pe (cpu)"]
    assert v.original_failure and "mixed devices" in v.original_failure and "pe" in v.original_failure
    assert v.max_abs_diff == 0.0
    assert any("the bug this rewrite fixes" in d for d in v.details)
    assert v.checkpoint_compatible is True


def test_type_cls_embedding_is_caught_by_the_dispatch_checker(results, repo):
    v = verdict_of(results, repo, "pkg/models.py", "TypeCls")
    assert v.verdict is Verdict.PASSED, v.message
    assert v.left_behind == ["type_indices (cpu)"]
    # meta kernels accept a CPU index for embedding; only the checker notices
    assert "aten.embedding" in v.original_failure and "type_indices" in v.original_failure
    assert "forward:meta" in v.compared
    assert any("built from the example" in d for d in v.details)


def test_wrong_value_fails(results, repo):
    v = verdict_of(results, repo, "pkg/broken.py", "WrongValue")
    assert v.verdict is Verdict.FAILED
    assert "attributes" in v.message and "table" in v.message and "values differ" in v.message


def test_persistent_flag_mismatch_fails(results, repo):
    v = verdict_of(results, repo, "pkg/broken.py", "WrongPersistent")
    assert v.verdict is Verdict.FAILED
    assert "persistent=True" in v.message and "persistent=False" in v.message
    assert "mask is saved although" in " ".join(v.details)


def test_dropped_attribute_fails(results, repo):
    v = verdict_of(results, repo, "pkg/broken.py", "Dropped")
    assert v.verdict is Verdict.FAILED
    assert "no longer sets table" in v.message


def test_constructor_args_without_example_is_not_validated_with_snippet(results, repo):
    v = verdict_of(results, repo, "pkg/models.py", "Needy")
    assert v.verdict is Verdict.NOT_VALIDATED
    assert "config" in v.message
    assert v.snippet == "example('pkg.models.Needy', config=..., encoder=..., inputs=lambda: {'x': ...})"
    assert missing_examples(results_without_elapsed(results)).startswith("from codemod.examples import example\n")


def test_constructor_args_from_examples_file_is_validated(results, repo):
    v = verdict_of(results, repo, "pkg/models.py", "TypeCls")
    assert v.verdict is Verdict.PASSED
    assert v.snippet is None


def test_relative_import_resolves_to_rewritten_source(results, repo):
    # RelModel imports PositionalEncoding with `from .layers import`; had the rewritten
    # worker loaded the original layers.py, enc.pe would still be left behind -> FAILED
    v = verdict_of(results, repo, "pkg/models.py", "RelModel")
    assert v.verdict is Verdict.PASSED, v.message
    assert sorted(v.left_behind) == ["enc.pe (cpu)", "scale (cpu)"]
    assert "forward:meta" in v.compared


def test_absolute_self_import_resolves_to_rewritten_source(results, repo):
    v = verdict_of(results, repo, "pkg/absmodels.py", "AbsModel")
    assert v.verdict is Verdict.PASSED, v.message
    assert sorted(v.left_behind) == ["enc.pe (cpu)", "offset (cpu)"]


def test_other_device_bug_in_forward_does_not_block_the_rewrite(results, repo):
    v = verdict_of(results, repo, "pkg/models.py", "ArangeInForward")
    assert v.verdict is Verdict.PASSED, v.message
    assert "forward:meta" not in v.compared
    assert any("still fails on meta" in d for d in v.details)


def test_persistent_buffer_changes_the_checkpoint_format(results, repo):
    # a new persistent key makes released checkpoints fail strict loading: its own verdict, not "failed"
    v = verdict_of(results, repo, "pkg/ckpt.py", "PersistentBuf")
    assert v.verdict is Verdict.CHANGES_CHECKPOINT, v.message
    assert v.checkpoint_compatible is False
    assert v.missing_keys == ["mask"]
    assert v.verdict_for("mask") is Verdict.CHANGES_CHECKPOINT
    message = v.message_for("mask")
    assert "strict=False" in message and "missing_keys=[mask]" in message and "--allow-new-keys" in message
    assert not v.failures
    # no inputs in the examples file: made up from the first layer forward uses (Linear(4, 4))
    assert "forward:cpu" in v.compared
    assert any("inputs made up from the model's layers: randn(2x7x4)" in d for d in v.details)


def test_non_persistent_buffer_keeps_checkpoints_compatible(results, repo):
    v = verdict_of(results, repo, "pkg/ckpt.py", "NonPersistentBuf")
    assert v.verdict is Verdict.PASSED, v.message
    assert v.checkpoint_compatible is True
    assert v.missing_keys == []
    assert "forward:cpu" in v.compared  # with made-up inputs


def test_new_parameter_before_existing_ones_changes_the_order(results, repo):
    v = verdict_of(results, repo, "pkg/ckpt.py", "NewParam")
    assert v.verdict is Verdict.CHANGES_CHECKPOINT, v.message  # new key alpha
    assert v.parameter_order_changed is True
    assert v.checkpoint_compatible is False and v.missing_keys == ["alpha"]
    assert any("new parameters alpha" in d for d in v.details)


def test_raise_in_init_is_an_error(results, repo):
    v = verdict_of(results, repo, "pkg/misbehaving.py", "RaisesInInit")
    assert v.verdict is Verdict.ERROR
    assert "ValueError: this model refuses to be built" in v.message


def test_sys_exit_is_an_error(results, repo):
    v = verdict_of(results, repo, "pkg/misbehaving.py", "CallsExit")
    assert v.verdict is Verdict.ERROR
    assert "sys.exit(3)" in v.message


def test_hang_is_a_timeout(results, repo):
    v = verdict_of(results, repo, "pkg/misbehaving.py", "Hangs")
    assert v.verdict is Verdict.TIMEOUT
    assert "within 8 s" in v.message and "during build" in v.message
    assert "misbehaving.py" in v.message  # the stack dump says where it hung


def test_abort_is_an_error_and_the_run_goes_on(results, repo):
    v = verdict_of(results, repo, "pkg/misbehaving.py", "Aborts")
    assert v.verdict is Verdict.ERROR
    assert "SIGABRT" in v.message
    passed = [k for k, r in results_without_elapsed(results).items() if r.verdict is Verdict.PASSED]
    assert len(passed) >= 6


def test_working_tree_untouched(results, repo):
    assert not list(repo.rglob("__pycache__"))
    assert (repo / "pkg/layers.py").read_text().count("self.pe = pe") == 1
    assert results["elapsed"] < 60


def results_without_elapsed(results):
    return {k: v for k, v in results.items() if k != "elapsed"}


# -- CUDA ---------------------------------------------------------------------------------------


def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


@pytest.mark.cuda
@pytest.mark.skipif(not _cuda(), reason="needs a CUDA device")
def test_cuda_real_move_and_forward(repo):
    names = ["PositionalEncoding", "TypeCls", "RelModel", "WrongValue", "PersistentBuf"]
    out = validate_rewrites(repo, class_rewrites(repo, names), overlay(repo), ValidationOptions(device="cuda"))
    pe = out[(repo / "pkg/layers.py", "PositionalEncoding")]
    assert pe.verdict is Verdict.PASSED, pe.message
    assert pe.device.startswith("cuda")
    assert f"forward:{pe.device}" in pe.compared
    assert pe.left_behind == ["pe (cpu)"]
    assert pe.original_failure and "device" in pe.original_failure
    assert pe.max_abs_diff is not None and pe.max_abs_diff < 1e-3
    type_cls = out[(repo / "pkg/models.py", "TypeCls")]
    assert type_cls.verdict is Verdict.PASSED, type_cls.message
    assert type_cls.original_failure
    assert out[(repo / "pkg/models.py", "RelModel")].verdict is Verdict.PASSED
    assert out[(repo / "pkg/broken.py", "WrongValue")].verdict is Verdict.FAILED
    ckpt = out[(repo / "pkg/ckpt.py", "PersistentBuf")]
    assert ckpt.verdict is Verdict.CHANGES_CHECKPOINT and ckpt.missing_keys == ["mask"], ckpt.message


@pytest.mark.cuda
@pytest.mark.skipif(not _cuda(), reason="needs a CUDA device")
def test_cuda_auto_picks_the_gpu(repo):
    out = validate_rewrites(
        repo, class_rewrites(repo, ["PositionalEncoding"]), overlay(repo), ValidationOptions(device="auto")
    )
    v = out[(repo / "pkg/layers.py", "PositionalEncoding")]
    assert v.verdict is Verdict.PASSED and v.device.startswith("cuda")
