"""``record``: capture constructor arguments and forward inputs from a real run, then validate with them."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from codemod.ftypes import Action, ClassRewrite, Finding, Verdict
from codemod.validate import ValidationOptions, record, validate_rewrites
from codemod.validate.record import default_records_dir

CONFIG = """
from dataclasses import dataclass


@dataclass
class ModelConfig:
    vocab: int
    dim: int
    max_len: int = 16
"""

MODEL = """
import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.sigmoid(self.lin(x)) * x


class Tagger(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.emb = nn.Embedding(config.vocab, config.dim)
        self.positions = torch.arange(config.max_len)
        self.pos = nn.Embedding(config.max_len, config.dim)
        self.gate = Gate(config.dim)
        self.out = nn.Linear(config.dim, 3)
        config.dim = -1  # constructors that mutate their config must still be recorded as called

    def forward(self, tokens):
        h = self.emb(tokens) + self.pos(self.positions[: tokens.size(1)])
        return {"logits": self.out(self.gate(h)), "hidden": h}


class Unpicklable(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.table = torch.ones(2)

    def forward(self, x):
        return self.fn(x) * self.table


class BigInput(nn.Module):
    def forward(self, x):
        return x.sum()


class Subclassed(Gate):
    pass
"""

TEST = """
import torch

from pkg.config import ModelConfig
from pkg.model import BigInput, Subclassed, Tagger, Unpicklable


def test_tagger():
    model = Tagger(ModelConfig(vocab=20, dim=8))
    out = model(torch.randint(0, 20, (2, 5)))
    assert out["logits"].shape == (2, 5, 3)
    model(torch.randint(0, 20, (3, 7)))  # later calls do not replace the first record


def test_unpicklable():
    Unpicklable(lambda x: x * 2)(torch.ones(2))


def test_big_input():
    BigInput()(torch.zeros(300_000))  # 1.2 MB, over the cap used below


def test_subclass_without_own_init():
    Subclassed(4)(torch.ones(1, 4))
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("recorded")
    write(root, {"pkg/__init__.py": "", "pkg/config.py": CONFIG, "pkg/model.py": MODEL, "tests/test_model.py": TEST})
    result = record(
        root, [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], max_bytes=1_000_000
    )
    return root, result


def test_record_runs_the_command_and_reports_classes(recorded):
    root, result = recorded
    assert result.exit_code == 0
    # in the user cache directory (the tests' own: CODEMOD_CACHE_DIR), never in the repository
    from codemod.cache import cache_base

    assert result.records_dir == default_records_dir(root)
    assert result.records_dir.parent == cache_base() / "records"
    assert not (root / ".codemod").exists()
    by_name = {r.name: r for r in result.recorded}
    assert set(by_name) == {"pkg.model.Tagger", "pkg.model.Gate", "pkg.model.Unpicklable", "pkg.model.BigInput",
                            "pkg.model.Subclassed"}
    assert by_name["pkg.model.Tagger"].has_inputs
    assert by_name["pkg.model.Gate"].has_inputs  # nested modules are recorded too
    assert by_name["pkg.model.Subclassed"].has_inputs  # seen through its base class's __init__
    unpicklable = by_name["pkg.model.Unpicklable"]
    assert not unpicklable.has_inputs and "not picklable" in " ".join(unpicklable.notes)
    big = by_name["pkg.model.BigInput"]
    assert not big.has_inputs and "over 1.0 MB of tensors (the cap)" in " ".join(big.notes)
    index = json.loads((result.records_dir / "index.json").read_text())
    assert index["pkg/model.py::Tagger"]["inputs"] is True


def _rewrite(root: Path, cls: str, attribute: str, old: str, new: str) -> tuple[list[ClassRewrite], dict[Path, str]]:
    path = root / "pkg" / "model.py"
    text = path.read_text()
    assert old in text
    line = text[: text.index(old)].count("\n") + 1  # validation checks that this statement ran
    finding = Finding("pkg/model.py", line, 1, cls, attribute, Action.BUFFER, False, "raw tensor")
    return [ClassRewrite(path, "pkg.model", cls, [finding])], {path: text.replace(old, new)}


def test_validation_uses_the_records(recorded):
    root, _ = recorded
    rewrites, overlay = _rewrite(
        root, "Tagger", "positions",
        "self.positions = torch.arange(config.max_len)",
        'self.register_buffer("positions", torch.arange(config.max_len), persistent=False)',
    )
    unpicklable, overlay2 = _rewrite(
        root, "Unpicklable", "table", "self.table = torch.ones(2)",
        'self.register_buffer("table", torch.ones(2), persistent=False)',
    )
    # both classes live in the same file: apply both edits to one overlay text
    path = root / "pkg" / "model.py"
    text = overlay[path].replace("self.table = torch.ones(2)",
                                 'self.register_buffer("table", torch.ones(2), persistent=False)')
    # zero_setup=False: Unpicklable(fn) would otherwise be built with a made-up `fn`
    results = validate_rewrites(root, rewrites + unpicklable, {path: text}, ValidationOptions(timeout=60, zero_setup=False, device="meta"))
    tagger = results[(path, "Tagger")]
    assert tagger.verdict is Verdict.PASSED, tagger.message
    assert "forward:cpu" in tagger.compared and "forward:meta" in tagger.compared
    assert tagger.max_abs_diff == 0.0
    assert tagger.left_behind == ["positions (cpu)"]
    assert "positions" in tagger.original_failure
    assert any("built from the record" in d and "pytest" in d for d in tagger.details)
    other = results[(path, "Unpicklable")]
    assert other.verdict is Verdict.NOT_VALIDATED
    assert "not picklable" in other.message
    assert other.snippet == "example('pkg.model.Unpicklable', fn=..., inputs=lambda: {'x': ...})"


def test_record_hook_is_lazy_and_chains_to_existing_sitecustomize(tmp_path, monkeypatch):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import os\nos.environ['CHAINED_SITECUSTOMIZE'] = 'yes'\n")
    monkeypatch.setenv("PYTHONPATH", str(other))
    script = (
        "import os, sys\n"
        "assert os.environ.get('CHAINED_SITECUSTOMIZE') == 'yes'\n"
        "assert '_codemod_recorder' in sys.modules\n"
        "assert 'torch' not in sys.modules\n"
        "sys.exit(3)\n"
    )
    result = record(tmp_path, [sys.executable, "-c", script])
    assert result.exit_code == 3
    assert result.recorded == []
